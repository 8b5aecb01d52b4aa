// How far each read model is behind the log (for /readyz, /metrics and the health page): the age of the
// oldest event it has not applied, and the failures stored by whichever process runs it.
import type { Knex } from 'knex';
import { type EventStore, type LogPosition, comparePositions } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { storedFailure } from './health.ts';
import type { ProjectionFailure, ProjectionState, ProjectionStatus } from '../../read-model-status.ts';

/** Lag past which a projection another process runs is shown as catching up rather than running. */
const CATCHING_UP_S = 5;

/**
 * Every projection's checkpoint, lag and failure. Checkpoints come from the table, so this also works in
 * `serve`; a local runner may be ahead of it (it stores a checkpoint that only skipped unhandled events
 * within a second), so the later of the two counts. Projections at one position share one read of the log.
 */
export async function projectionStatuses(
  knex: Knex,
  store: EventStore,
  projections: Projection[],
  local: Record<string, LogPosition | null>,
  now: Date,
  /** This process's view of the projections it runs (none in `serve`: the state is then read off the lag). */
  localState?: (name: string) => ProjectionState,
): Promise<ProjectionStatus[]> {
  const rows = (await knex('projection_checkpoints').select('name', 'position', 'failure')) as { name: string; position: string | null; failure: ProjectionFailure | string | null }[];
  const byName = new Map(rows.map((r) => [r.name, r]));
  const next = new Map<string, Promise<Date | null>>();
  const oldestAfter = (position: LogPosition | null) => {
    const key = position ?? '';
    let found = next.get(key);
    if (!found) {
      found = store.readAll({ from: position === null ? 'start' : { after: position }, maxCount: 1 }).then(([e]) => e?.createdAt ?? null);
      next.set(key, found);
    }
    return found;
  };
  return Promise.all(
    projections.map(async (p) => {
      const row = byName.get(p.name);
      const stored = row?.position ?? null;
      const mine = local[p.name] ?? null;
      const position = comparePositions(mine, stored) > 0 ? mine : stored;
      const oldest = await oldestAfter(position);
      const failure = row?.failure ? storedFailure(row.failure) : null;
      const lag = oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0;
      // A stored failure that an operator has just cleared is being retried, though this process may not have resumed yet.
      const here = localState?.(p.name);
      const state: ProjectionState = failure ? 'failed' : here === 'failed' ? 'catching_up' : (here ?? (lag > CATCHING_UP_S ? 'catching_up' : 'running'));
      return { name: p.name, state, position, lag_seconds: lag, failure };
    }),
  );
}


/** Events in the log after each projection's position (`positions` by name), counted up to `cap`; projections at one position share one read. */
export async function eventsBehind(store: EventStore, positions: Map<string, LogPosition | null>, cap: number): Promise<Map<string, number>> {
  const counts = new Map<string, Promise<number>>();
  const out = new Map<string, number>();
  for (const [name, position] of positions) {
    const key = position ?? '';
    let n = counts.get(key);
    if (!n) {
      n = store.readAll({ from: position === null ? 'start' : { after: position }, maxCount: cap }).then((events) => events.length);
      counts.set(key, n);
    }
    out.set(name, await n);
  }
  return out;
}
