// What handlers receive: the service's long-lived parts (Services), the caller (Auth) and the request scope.
// The composition root builds Services; the HTTP binding builds a RequestContext per request.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db.ts';
import type { EventMetadata, EventStore, LogPosition } from './eventstore/port.ts';
import type { ShreddingStore } from './eventstore/shredding.ts';
import type { IdSource } from './ids.ts';
import type { Metrics } from './metrics.ts';
import type { ObjectStore } from './storage/port.ts';
import type { Mailer } from './mail/port.ts';
import type { PaymentProvider } from './payments/port.ts';
import type { VehicleDataProvider } from './vehicle-data/port.ts';
import type { ProjectionStatus } from './read-model-status.ts';
import type { Access, AuthFor } from './contract/auth.ts';
import type { ErrorList, ImplicitCode } from './domain/errors.ts';
import type { Caller, Invocable, Invoked } from './contract/caller.ts';
import type { z } from 'zod';

export type { Access, Auth, AuthFor, MembershipRole, PlatformRole, SessionAuth, SystemAuth } from './contract/auth.ts';
export { callerOrg, hasRole, systemAuth } from './contract/auth.ts';

/** A read model as read-your-writes waits name it (projections export one object per read model). */
export interface ReadModelRef {
  readonly name: string;
}

/** How far the read models are: what HTTP needs of the projection runner. */
export interface ReadModelProgress {
  /** Waits until the read models have applied `position`; ProjectionLagError after `timeoutMs`. */
  waitFor(position: LogPosition | null, readModels: ReadModelRef[], timeoutMs: number): Promise<void>;
  /** The checkpoint of every projection this process runs. */
  positions(): Record<string, LogPosition | null>;
  /** Every read model's checkpoint, state, lag and failure (for /readyz, /metrics and the health page). */
  statuses(): Promise<ProjectionStatus[]>;
  /** The names of the read models. */
  names(): string[];
  /** Resumes at once the failed read models this process runs whose failure an operator cleared (else within a second). */
  resume?(): Promise<string[]>;
}

/** A read-your-writes wait ran out. */
export class ProjectionLagError extends Error {
  constructor(readonly projections: string[]) {
    super(`read models not yet up to date: ${projections.join(', ')}`);
  }
}

/** A read-your-writes wait named a read model that is stopped at an event it cannot apply (the write itself was saved). */
export class ReadModelFailedError extends Error {
  constructor(readonly projections: string[]) {
    super(`read models stopped at an event they cannot apply: ${projections.join(', ')}`);
  }
}

/** The long-lived parts of the service that handlers, pages and workers use. */
export interface Services {
  config: Config;
  db: Db;
  knex: Knex;
  store: EventStore;
  /** The data-subject keys behind the log's encrypted personal fields (erasure deletes them). */
  personalData: Pick<ShreddingStore, 'eraseSubjects' | 'keys'>;
  runner: ReadModelProgress;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Private object storage (attachments). */
  objects: ObjectStore;
  /** The payment provider (chosen by the composition root: the sandbox so far). */
  payments: PaymentProvider;
  /** The vehicle-data provider (VEHICLE_DATA_PROVIDER). */
  vehicleData: VehicleDataProvider;
  /** Where customer emails go (SMTP_URL, else the outbox). */
  mailer: Mailer;
  /** Calls an operation through the pipeline as `caller`, with this process's options (the console, pages, workers). */
  invoke<Op extends Invocable>(op: Op, input: unknown, caller: Caller): Promise<Invoked<z.output<Op['response']>>>;
  /** The registered JSON operation of the core API named `id`. */
  operation(id: string): Invocable | undefined;
}

/** What a command needs from the request: where to write, who is acting, when, and which ids to use. */
export interface CommandContext {
  store: EventStore;
  ids: IdSource;
  now: Date;
  metadata: EventMetadata;
  /**
   * Told the log position each command of this call reached (its append, or the stream's last event when it appended
   * nothing): read-your-writes waits at the latest. Absent where nobody waits for the call's writes (most workers, the CLI).
   */
  reached?(position: LogPosition | null): void;
}

/** Everything a handler gets for one request; `auth` is narrowed by the operation's declared access. */
export interface RequestContext<A extends Access = Access, E extends string = string> extends CommandContext {
  /** The operation's declared errors: `throw ctx.errors.error('invoice_not_found', ...)`; an undeclared code does not type-check. */
  errors: ErrorList<E | ImplicitCode>;
  services: Services;
  requestId: string;
  logger: Logger;
  auth: AuthFor<A>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The request headers the operation declares in `requestHeaders`, as given (null when absent). */
  headers: Readonly<Record<string, string | null>>;
  /** The pipeline notes every command's position here (see CommandContext). */
  reached(position: LogPosition | null): void;
  /**
   * Read-your-writes: waits until the read models the operation declares (`readModels`) have applied every command this
   * call ran so far (ProjectionLagError after PROJECTION_WAIT_MS: 503 projection_lag). Nothing written yet: returns at once.
   * Throws when the operation declares no read models (a handler that reads its writes back must say which).
   */
  readYourWrites(): Promise<void>;
}
