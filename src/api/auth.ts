// Resolves the caller from the Authorization header, and checks an operation's access rule.
import type { Knex } from 'knex';
import { hashSecret, looksValid } from '../secrets.ts';
import type { MembershipDoc, UserDoc } from '../projections/identity/identity.ts';
import { ApiError, forbidden } from './errors.ts';
import type { Auth, MembershipRole, PlatformRole } from './context.ts';
import { hasRole } from './context.ts';
import type { Access } from './operation.ts';

/** Extracts the bearer token, or null when there is no Authorization header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new ApiError(401, 'unauthenticated', 'The authorization header must be "Bearer <token>".');
  return m[1]!;
}

/** Looks up a session token; null when unknown, expired or revoked. */
export async function sessionAuth(knex: Knex, token: string, now: Date): Promise<Auth | null> {
  if (!looksValid(token, 'svc_sess_')) return null;
  const tokenHash = hashSecret(token);
  const row = (await knex('sessions as s')
    .join('identity_users as u', 'u.id', 's.user_id')
    .leftJoin('identity_memberships as m', 'm.id', knex.raw(`s.organization_id::text || ':' || s.user_id::text`))
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', now)
    .first('s.user_id', 's.organization_id', 's.expires_at', 'u.doc as user', 'm.doc as membership')) as
    | { user_id: string; organization_id: string; expires_at: Date; user: UserDoc; membership: MembershipDoc | null }
    | undefined;
  if (!row) return null;
  return {
    kind: 'session',
    tokenHash,
    userId: row.user_id,
    email: row.user.email,
    name: row.user.name,
    organizationId: row.organization_id,
    membershipRole: (row.membership?.role as MembershipRole | undefined) ?? null,
    platformRoles: row.user.platform_roles as PlatformRole[],
    expiresAt: new Date(row.expires_at),
  };
}

/** Throws 401/403 unless `auth` satisfies `access`. */
export function checkAccess(access: Access, auth: Auth): void {
  if (access === 'public') return;
  if (typeof access === 'object') {
    if (auth.kind !== 'integration') throw new ApiError(401, 'unauthenticated', 'This operation needs an integration API key.');
    if (access.integration !== 'any' && !access.integration.some((s) => auth.scopes.includes(s)))
      throw forbidden(`The API key lacks the scope this operation needs (${access.integration.join(' or ')}).`);
    return;
  }
  if (auth.kind !== 'session') throw new ApiError(401, 'unauthenticated', 'A valid session token is required: authorization: Bearer svc_sess_...');
  switch (access) {
    case 'org_user':
      return;
    case 'org_admin':
      if (auth.membershipRole === 'owner' || auth.membershipRole === 'admin' || hasRole(auth, 'billing_staff')) return;
      throw forbidden('Only owners and admins of the organization may do this.');
    case 'billing_staff':
      if (hasRole(auth, 'billing_staff')) return;
      throw forbidden('Only billing staff may do this.');
    case 'platform_staff':
      if (hasRole(auth, 'platform_staff')) return;
      throw forbidden('Only platform staff may do this.');
  }
}
