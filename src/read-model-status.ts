// How an operator sees a read model (shared by the projection engine that measures it and the surfaces that show it).
import type { LogPosition } from './eventstore/port.ts';

/** What a projection is doing: applying the live log, replaying behind it, or stopped at an event it cannot apply. */
export type ProjectionState = 'running' | 'catching_up' | 'failed';

/** The event a projection stopped at and why. */
export interface ProjectionFailure {
  position: LogPosition;
  event_id: string;
  stream_id: string;
  type: string;
  /** The class of the error (ZodError, EventReadError, error: ... from the database). */
  error: string;
  message: string;
  failed_at: string;
}

/** One projection as an operator sees it. */
export interface ProjectionStatus {
  name: string;
  state: ProjectionState;
  position: LogPosition | null;
  /** Seconds since the oldest event not yet applied was appended; 0 when caught up. */
  lag_seconds: number;
  failure: ProjectionFailure | null;
}

/** How long the oldest unprojected event may wait before /readyz reports the instance as not ready. */
export const READY_LAG_MS = 30_000;

/** The projections that keep an instance from being ready: failed ones at once, the others once their oldest unapplied event is older than READY_LAG_MS. */
export function notReady(statuses: ProjectionStatus[]): ProjectionStatus[] {
  return statuses.filter((s) => s.failure !== null || s.lag_seconds * 1000 > READY_LAG_MS);
}
