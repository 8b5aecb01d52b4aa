// auth.sessions.get: who is calling.
import { operation } from '../../contract/operation.ts';
import { SessionDetail } from '../../contract/schemas/identity.ts';
import { getOrganization } from './identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';

export const sessionsGet = operation({
  id: 'auth.sessions.get',
  surface: 'core',
  tags: ['Authentication'],
  summary: 'Describes the caller: user, organization, roles and session expiry.',
  request: null,
  response: SessionDetail,
  error: 'auth.SessionGetError',
  errors: identityErrors.list(),
  access: 'org_user',
  async handle(ctx) {
    const auth = ctx.auth;
    if (auth.kind !== 'session') throw ctx.errors.error('unauthenticated', 'A session token is required.');
    const org = await getOrganization(ctx.services.knex, auth.organizationId);
    if (!org) throw ctx.errors.error('unauthenticated', 'The session\'s organization no longer exists.');
    return {
      user: { id: auth.userId, email: auth.email, name: auth.name },
      organization: { id: org.id, name: org.name, kind: org.kind as 'repairer' | 'supplier' | 'platform' },
      membership_role: auth.membershipRole,
      roles: auth.platformRoles,
      expires_at: auth.expiresAt.toISOString(),
    };
  },
});
