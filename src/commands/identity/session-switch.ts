// auth.sessions.switch (internal): the sign-in page's organization switcher. A new session of the signed-in user in another of
// their organizations; the session it replaces is revoked. Invoked by src/http/pages/login.ts as the signed-in user.
import { operation } from '../../contract/operation.ts';
import { SessionCreateResponse, SessionSwitchRequest } from '../../contract/schemas/identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';
import { membership } from '../../queries/identity/identity.ts';
import { createSession, revokeSession } from './identity.ts';

/** auth.sessions.switch */
export const sessionsSwitch = operation({
  id: 'auth.sessions.switch',
  surface: 'internal',
  tags: ['Authentication'],
  summary: 'Opens a session of the signed-in user in another of their organizations and revokes the one used for this call.',
  request: SessionSwitchRequest,
  response: SessionCreateResponse,
  error: 'auth.SessionSwitchError',
  errors: identityErrors.list('not_a_member'),
  access: 'org_user',
  async handle(ctx, req) {
    const { knex, config } = ctx.services;
    if (!(await membership(knex, req.organization_id, ctx.auth.userId))) throw ctx.errors.error('not_a_member', 'You are not a member of that organization.');
    const session = await createSession(knex, { userId: ctx.auth.userId, organizationId: req.organization_id, now: ctx.now, ttlHours: config.sessionTtlHours });
    await revokeSession(knex, ctx.auth.tokenHash, ctx.now);
    return { token: session.token, expires_at: session.expiresAt.toISOString(), organization_id: req.organization_id };
  },
});
