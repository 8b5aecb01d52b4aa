// auth.sessions.insert and auth.sessions.remove: sign in and out.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { SessionCreateRequest, SessionCreateResponse } from '../../contract/schemas/identity.ts';
import { findUserByEmail, membership, organizationsOfUser } from '../../queries/identity/identity.ts';
import { passwordMatches } from './credentials.ts';
import { createSession, revokeSession } from './identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';

const badCredentials = () => identityErrors.error('invalid_credentials', 'The email or password is wrong.');

export const sessionsInsert = operation({
  id: 'auth.sessions.insert',
  examples: {
    request: { email: 'dana@acme-repairs.example', password: 'correct horse battery staple' },
    response: { token: 'svc_sess_3q9V8y2Xk1', expires_at: '2026-01-16T09:30:00.000Z', organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
  },
  surface: 'core',
  tags: ['Authentication'],
  summary: 'Signs a user in to one organization and returns a bearer token.',
  request: SessionCreateRequest,
  response: SessionCreateResponse,
  error: 'auth.SessionInsertError',
  errors: identityErrors.list('invalid_credentials', 'not_a_member', 'no_organization', 'rate_limited'),
  access: 'public',
  headers: { 'Cache-Control': 'no-store' },
  async handle(ctx, req) {
    const { knex, config } = ctx.services;
    const user = await findUserByEmail(knex, req.email);
    // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
    const ok = await passwordMatches(knex, user?.id ?? null, req.password);
    if (!user || !ok) throw badCredentials();
    let organizationId = req.organization_id;
    if (organizationId) {
      if (!(await membership(knex, organizationId, user.id))) throw ctx.errors.error('not_a_member', 'The user is not a member of that organization.');
    } else {
      // The first by name, as the sign-in page and the switcher list them.
      const first = (await organizationsOfUser(knex, user.id))[0];
      if (!first) throw ctx.errors.error('no_organization', 'The user belongs to no organization.');
      organizationId = first.id;
    }
    const session = await createSession(knex, { userId: user.id, organizationId, now: ctx.now, ttlHours: config.sessionTtlHours });
    return { token: session.token, expires_at: session.expiresAt.toISOString(), organization_id: organizationId };
  },
});

export const sessionsRemove = operation({
  id: 'auth.sessions.remove',
  examples: {
    request: null,
    response: {},
  },
  surface: 'core',
  tags: ['Authentication'],
  summary: 'Signs out: revokes the session token used for this call at once.',
  request: null,
  response: Empty,
  error: 'auth.SessionRemoveError',
  errors: identityErrors.list(),
  access: 'org_user',
  async handle(ctx) {
    if (ctx.auth.kind === 'session') await revokeSession(ctx.services.knex, ctx.auth.tokenHash, ctx.now);
    return {};
  },
});
