// What an operation handler receives: the caller, the request's ids and clock, and the service's parts.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db.ts';
import type { EventStore, LogPosition } from '../eventstore/port.ts';
import type { CommandContext } from '../commands/run.ts';
import type { Metrics } from '../metrics.ts';
import type { ProjectionRunner } from '../projections/runner.ts';

/** A platform role of a user. */
export type PlatformRole = 'billing_staff' | 'platform_staff';
/** A role inside an organization. */
export type MembershipRole = 'owner' | 'admin' | 'member';

/** Who is calling. */
export type Auth =
  | { kind: 'anonymous' }
  | {
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
  | { kind: 'integration'; integrationId: string; organizationId: string; scopes: string[]; clientId: string };

/** The long-lived parts of the service that handlers use. */
export interface Services {
  config: Config;
  db: Db;
  knex: Knex;
  store: EventStore;
  runner: ProjectionRunner;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}

/** Everything a handler gets for one request. */
export interface RequestContext extends CommandContext {
  services: Services;
  requestId: string;
  logger: Logger;
  auth: Auth;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Waits until the named projections have applied `position` (read-your-writes). */
  waitFor(position: LogPosition | null, projections: string[]): Promise<void>;
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
