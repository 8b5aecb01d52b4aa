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

/**
 * The service acting on its own, in process: a worker pass, the payment provider's verified notification, the seed, the CLI.
 * No HTTP authenticator makes one: only code of this process can call as the system, naming the job that acts.
 */
export interface SystemAuth {
  kind: 'system';
  /** Who acts: the job's name (`usage-invoices-worker`, `payment-provider`, `cli`); the events' actor id. */
  job: string;
  /** The organization the job acts for (its events' org_id), or null for work across organizations. */
  organizationId: string | null;
}

/** Who is calling. */
export type Auth = { kind: 'anonymous' } | SessionAuth | IntegrationAuth | SystemAuth;

/**
 * Who may call an operation. `system`: only a system caller (SystemAuth), so only this process; such operations are internal
 * (surface `internal`), never routed over HTTP.
 */
export type Access = 'public' | 'org_user' | 'org_admin' | 'billing_staff' | 'platform_staff' | 'system' | { integration: string[] | 'any' };

/** The caller an operation with this access can see: the pipeline checks access before the handler runs. */
export type AuthFor<A extends Access> = A extends 'public' ? Auth : A extends 'system' ? SystemAuth : A extends { integration: unknown } ? IntegrationAuth : SessionAuth;

/** The system caller of `job`, acting for `organizationId` (null: across organizations). */
export function systemAuth(job: string, organizationId: string | null = null): SystemAuth {
  return { kind: 'system', job, organizationId };
}

/** True for a session whose user holds the platform role (platform staff count as billing staff too). */
export function hasRole(auth: Auth, role: PlatformRole): boolean {
  if (auth.kind !== 'session') return false;
  return auth.platformRoles.includes(role) || (role === 'billing_staff' && auth.platformRoles.includes('platform_staff'));
}

/** The organization of the caller, or null for anonymous callers. */
export function callerOrg(auth: Auth): string | null {
  return auth.kind === 'anonymous' ? null : auth.organizationId;
}
