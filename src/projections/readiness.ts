// Readiness of the read models: which projections have an unapplied event older than a bound (for /readyz).
import type { Knex } from 'knex';
import { type EventStore, type LogPosition, comparePositions } from '../eventstore/port.ts';
import type { Projection } from './projection.ts';

/** How long the oldest unprojected event may wait before /readyz reports the instance as not ready. */
export const READY_LAG_MS = 30_000;

/**
 * Projections whose oldest unapplied event is older than READY_LAG_MS. Checkpoints come from the table,
 * so this also works in `serve`; a local runner may be ahead of it (it stores a checkpoint that only
 * skipped unhandled events within a second), so the later of the two counts.
 */
export async function laggingProjections(
  knex: Knex,
  store: EventStore,
  projections: Projection[],
  local: Record<string, LogPosition | null>,
  now: Date,
): Promise<string[]> {
  const rows = (await knex('projection_checkpoints').select('name', 'position')) as { name: string; position: string | null }[];
  const lagging: string[] = [];
  for (const p of projections) {
    const stored = rows.find((r) => r.name === p.name)?.position ?? null;
    const mine = local[p.name] ?? null;
    const position = comparePositions(mine, stored) > 0 ? mine : stored;
    const [next] = await store.readAll({ from: position === null ? 'start' : { after: position }, maxCount: 1 });
    if (next && now.getTime() - next.createdAt.getTime() > READY_LAG_MS) lagging.push(p.name);
  }
  return lagging;
}
