// auth.sessions.get: who is calling.
import { operation } from '../../contract/operation.ts';
import { SessionDetail } from '../../contract/schemas/identity.ts';
import { getOrganization } from './identity.ts';
import { identityErrors } from '../../domain/identity/errors.ts';

export const sessionsGet = operation({
  id: 'auth.sessions.get',
  examples: {
    request: null,
    response: {
      user: { id: '0193a9f0-2b6d-7e14-8c3a-5d9e1f7b2c40', email: 'dana@acme-repairs.example', name: 'Dana Whitfield' },
      organization: { id: '0193472c-1f99-732d-8f1b-0abb219cd679', name: 'Acme Repairs Ltd', kind: 'repairer' },
      membership_role: 'owner',
      roles: [],
      expires_at: '2026-01-16T09:30:00.000Z',
    },
  },
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
