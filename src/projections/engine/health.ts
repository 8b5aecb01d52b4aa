// The state of each projection as an operator sees it: running, catching up, or failed at one event. A state
// change is one log line and moves the metrics; a failure is stored with its checkpoint row, so every
// process (`serve`, the CLI, /readyz) sees it, and the runner that stopped resumes when it is cleared.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { LogPosition, RecordedEvent } from '../../eventstore/port.ts';
import type { Metrics } from '../../metrics.ts';
import type { ProjectionFailure, ProjectionState } from '../../read-model-status.ts';

export type { ProjectionFailure, ProjectionState };

/** An event an operator chose to leave out of one projection. */
export interface ProjectionSkip {
  projection: string;
  event_id: string;
  stream_id: string;
  position: LogPosition;
  type: string;
  reason: string;
  actor: string;
  skipped_at: string;
}

/** The failure record of an event a projection could not apply. */
export function failureOf(event: RecordedEvent, err: unknown, at: Date): ProjectionFailure {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return {
    position: event.position,
    event_id: event.id,
    stream_id: event.streamId,
    type: event.type,
    error: cause instanceof Error ? cause.constructor.name : typeof cause,
    // Database and schema messages name what is wrong (a field, a value); they hold no secret of ours.
    message: (cause instanceof Error ? cause.message : String(cause)).slice(0, 1000),
    failed_at: at.toISOString(),
  };
}

/** Tracks the states of one process's projections: logs each change once and keeps the metrics. */
export class ProjectionHealth {
  private readonly states = new Map<string, ProjectionState>();
  private readonly failures = new Map<string, ProjectionFailure>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  /** The state last set for `name` (running before anything was said). */
  state(name: string): ProjectionState {
    return this.states.get(name) ?? 'running';
  }

  /** The failure of `name` while it is failed. */
  failure(name: string): ProjectionFailure | undefined {
    return this.failures.get(name);
  }

  /** How far a build beside the live tables of `name` is (0..1), or null once it ended. */
  building(name: string, done: number | null): void {
    if (done === null) this.metrics?.projectionRebuild.remove({ projection: name });
    else this.metrics?.projectionRebuild.set({ projection: name }, done);
  }

  /** A build beside the live tables of `name` failed (logged by the caller). */
  buildFailed(name: string): void {
    this.metrics?.projectionRebuildFailures.inc({ projection: name });
  }

  /** Names of the projections that are failed in this process. */
  failed(): string[] {
    return [...this.failures.keys()];
  }

  /** Counts `events` that `name` applied (committed). */
  applied(name: string, events: number): void {
    if (events > 0) this.metrics?.projectionEventsApplied.inc({ projection: name }, events);
  }

  /** Moves `name` to `state`; one log line when it changes (an error line for a failure). */
  set(name: string, state: ProjectionState, failure?: ProjectionFailure): void {
    const before = this.states.get(name);
    this.states.set(name, state);
    if (state === 'failed' && failure) this.failures.set(name, failure);
    else this.failures.delete(name);
    for (const s of ['running', 'catching_up', 'failed'] as const) this.metrics?.projectionState.set({ projection: name, state: s }, s === state ? 1 : 0);
    if (before === state) return;
    if (state === 'failed') {
      this.metrics?.projectionFailures.inc({ projection: name });
      this.logger.error({ projection: name, state, failure }, `projection ${name} failed at event ${failure?.event_id ?? '?'} (${failure?.type ?? '?'}): it stops there until retried, skipped or rebuilt`);
    } else {
      // Leaving a failure is news for whoever was alerted; catching up and joining the tail is routine (a start, a rebuild).
      this.logger[before === 'failed' ? 'info' : 'debug']({ projection: name, state, from: before ?? null }, `projection ${name} is ${state.replace('_', ' ')}`);
    }
  }
}

/** A failure as its column comes back (jsonb is a string on some drivers, an object on others). */
export function storedFailure(value: ProjectionFailure | string): ProjectionFailure {
  return typeof value === 'string' ? (JSON.parse(value) as ProjectionFailure) : value;
}

/** Stores the failure of `name` on its checkpoint row (seen by every process). */
export async function storeFailure(knex: Knex, name: string, failure: ProjectionFailure): Promise<void> {
  await knex('projection_checkpoints').where({ name }).update({ failure: JSON.stringify(failure) });
}

/** Clears a stored failure: the runner that stopped at it tries the event again. False when `name` was not failed. */
export async function clearFailure(knex: Knex, name: string): Promise<boolean> {
  const n = await knex('projection_checkpoints').where({ name }).whereNotNull('failure').update({ failure: null });
  return n > 0;
}

/** The stored failure of every failed projection. */
export async function storedFailures(knex: Knex): Promise<Map<string, ProjectionFailure>> {
  const rows = (await knex('projection_checkpoints').whereNotNull('failure').select('name', 'failure')) as { name: string; failure: ProjectionFailure | string }[];
  return new Map(rows.map((r) => [r.name, storedFailure(r.failure)]));
}

/** Records that `skip.event_id` is left out of `skip.projection` and clears its failure, in one transaction. */
export async function recordSkip(knex: Knex, skip: ProjectionSkip): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('projection_skips').insert(skip).onConflict(['projection', 'event_id']).ignore();
    await trx('projection_checkpoints').where({ name: skip.projection }).update({ failure: null });
  });
}

/** The event ids an operator skipped, by projection, for these projections (one query for all). */
export async function skippedIds(knex: Knex, projections: readonly string[]): Promise<Map<string, Set<string>>> {
  const rows = (await knex('projection_skips').whereIn('projection', projections).select('projection', 'event_id')) as { projection: string; event_id: string }[];
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const set = out.get(r.projection) ?? new Set<string>();
    set.add(r.event_id);
    out.set(r.projection, set);
  }
  return out;
}

/** Every recorded skip (of one stream when given), oldest first. */
export async function listSkips(knex: Knex, opts: { streamId?: string } = {}): Promise<ProjectionSkip[]> {
  const q = knex('projection_skips').select('*').orderBy('skipped_at').orderBy('projection');
  if (opts.streamId) q.where({ stream_id: opts.streamId });
  const rows = (await q) as (Omit<ProjectionSkip, 'skipped_at'> & { skipped_at: Date | string })[];
  return rows.map((r) => ({ ...r, skipped_at: new Date(r.skipped_at).toISOString() }));
}
