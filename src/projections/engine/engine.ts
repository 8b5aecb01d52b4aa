// What the parts of one runner share: the database and the log, its projections, where each is (checkpoints), what
// it is doing (modes), how operators see it (health), who waits for it (waits), and whether the daemon runs.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventStore } from '../../eventstore/port.ts';
import type { Clock } from '../../clock.ts';
import type { Projection } from '../projection.ts';
import type { Checkpoints } from './checkpoints.ts';
import type { ProjectionHealth } from './health.ts';
import type { Waits } from './waits.ts';

/**
 * What the daemon does with a projection. joined: fed by the tail. solo: catching up on its own. ready: caught up,
 * joins at the tail's next batch. held: rebuild or catchUp drives it. failed: stopped at an event until retried,
 * skipped or rebuilt.
 */
export type Mode = 'joined' | 'solo' | 'ready' | 'held' | 'failed';

/** The state the tail, the solo catch-ups, the failure handling and the runner share. */
export interface Engine {
  readonly knex: Knex;
  readonly store: EventStore;
  readonly projections: Projection[];
  readonly logger: Logger;
  readonly clock: Clock;
  /** Events per read of the shared tail. */
  readonly batchSize: number;
  /** Events per read of a projection catching up alone. */
  readonly bulkBatchSize: number;
  readonly checkpoints: Checkpoints;
  readonly health: ProjectionHealth;
  readonly waits: Waits;
  /** The mode of each projection while the daemon runs (none when it is stopped). */
  readonly modes: Map<string, Mode>;
  /** Whether the daemon runs. */
  running(): boolean;
  /** Aborted when the daemon stops. */
  signal(): AbortSignal;
}
