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
      user: { id: '019387ea-5dfc-7b8e-884d-848979496e70', email: 'billing@acme-repairs.example', name: 'Acme Repairs Ltd' },
      organization: { id: '019387ea-5dfc-7b8e-884d-848979496e70', name: 'Acme Repairs Ltd', kind: 'repairer' },
      membership_role: null,
      roles: ['billing_staff'],
      expires_at: '2026-01-15T09:30:00.000Z',
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
