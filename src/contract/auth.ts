// Who may call, and who is calling: the caller kinds and the access rules operations declare.

/** A platform role of a user. */
export type PlatformRole = 'billing_staff' | 'platform_staff';
/** A role inside an organization. */
export type MembershipRole = 'owner' | 'admin' | 'member';

/** A signed-in user of one organization. */
export interface SessionAuth {
  kind: 'session';
  tokenHash: string;
  userId: string;
  email: string;
  name: string;
  organizationId: string;
  membershipRole: MembershipRole | null;
  platformRoles: PlatformRole[];
  expiresAt: Date;
}

/** An installed integration calling with its API key. */
export interface IntegrationAuth {
  kind: 'integration';
  integrationId: string;
  organizationId: string;
  scopes: string[];
  clientId: string;
}

/** Who is calling. */
export type Auth = { kind: 'anonymous' } | SessionAuth | IntegrationAuth;

/** Who may call an operation. */
export type Access = 'public' | 'org_user' | 'org_admin' | 'billing_staff' | 'platform_staff' | { integration: string[] | 'any' };

/** The caller an operation with this access can see: the HTTP binding checks access before the handler runs. */
export type AuthFor<A extends Access> = A extends 'public' ? Auth : A extends { integration: unknown } ? IntegrationAuth : SessionAuth;

/** True for a session whose user holds the platform role (platform staff count as billing staff too). */
export function hasRole(auth: Auth, role: PlatformRole): boolean {
  if (auth.kind !== 'session') return false;
  return auth.platformRoles.includes(role) || (role === 'billing_staff' && auth.platformRoles.includes('platform_staff'));
}

/** The organization of the caller, or null for anonymous callers. */
export function callerOrg(auth: Auth): string | null {
  return auth.kind === 'anonymous' ? null : auth.organizationId;
}
