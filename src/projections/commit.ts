// One projection transaction: read-model writes of one or more projections and their checkpoints, all or nothing.
import type { Knex } from 'knex';
import type { LogPosition, RecordedEvent } from '../eventstore/port.ts';
import { type Projection, committed } from './projection.ts';

/** Another runner moved (or holds) the checkpoints of `names`: they must reload and catch up alone. */
export class CheckpointMoved extends Error {
  constructor(readonly names: string[]) {
    super(`checkpoint moved: ${names.join(', ')}`);
  }
}

/** A projection's `apply` threw; the transaction was rolled back for everyone in it. */
export class ProjectionFailed extends Error {
  constructor(readonly projection: string, override readonly cause: unknown) {
    super(`projection ${projection} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** What one projection contributes to a transaction: events to apply (may be empty) and its checkpoint move. */
export interface CommitPart {
  projection: Projection;
  events: RecordedEvent[];
  /** The stored checkpoint the compare-and-set expects. */
  from: LogPosition | null;
  to: LogPosition | null;
  /** Bulk replay: writes rows folded in memory instead of applying `events`. */
  write?: (trx: Knex.Transaction) => Promise<void>;
}

/**
 * Applies every part and moves each checkpoint with a compare-and-set, in one transaction: per
 * projection, the rows and the checkpoint that covers them commit together. The advisory locks are
 * tried (never waited for), so two processes alternate batch by batch instead of blocking.
 */
export async function commitParts(knex: Knex, parts: CommitPart[], now: Date): Promise<void> {
  if (parts.length === 0) return;
  let done: Knex.Transaction | undefined;
  await knex.transaction(async (trx) => {
    done = trx;
    // Asynchronous commit: read models are derived from the durable log and the checkpoint commits
    // with their rows, so a crash can only lose both together, and the runner replays from the
    // older checkpoint. Waiting for a WAL flush per batch would only add latency.
    const names = parts.map((p) => p.projection.name);
    const locks = await trx.raw(
      `select n as name, pg_try_advisory_xact_lock(hashtextextended('projection:' || n, 1)) as ok, set_config('synchronous_commit', 'off', true)
       from unnest(?::text[]) with ordinality as t(n, i) order by i`,
      [names],
    );
    const refused = (locks.rows as { name: string; ok: boolean }[]).filter((r) => !r.ok).map((r) => r.name);
    if (refused.length) throw new CheckpointMoved(refused);
    for (const part of parts) {
      if (part.events.length === 0 && !part.write) continue;
      try {
        if (part.write) await part.write(trx);
        else await part.projection.apply(trx, part.events);
      } catch (err) {
        throw new ProjectionFailed(part.projection.name, err);
      }
    }
    // The compare-and-set comes last: the first write gives the transaction an xid, and while it is
    // open no reader of $all sees a later commit (the xid8 rule), so writes are kept short.
    const moves = parts.map((p) => ({ name: p.projection.name, version: p.projection.version, from: p.from, to: p.to }));
    const updated = await trx.raw(
      `update projection_checkpoints c set position = m.to_position, updated_at = ?
       from jsonb_to_recordset(?::jsonb) as m(name text, version int, from_position text, to_position text)
       where c.name = m.name and c.version = m.version and c.position is not distinct from m.from_position
       returning c.name`,
      [now, JSON.stringify(moves.map((m) => ({ name: m.name, version: m.version, from_position: m.from, to_position: m.to })))],
    );
    const updatedNames = new Set((updated.rows as { name: string }[]).map((r) => r.name));
    const moved = names.filter((n) => !updatedNames.has(n));
    if (moved.length) throw new CheckpointMoved(moved);
  });
  // Rows written by this transaction are now visible: tell the writers (recentDocument), at the lowest position it covers.
  const at = parts.map((p) => p.to).reduce<LogPosition | null>((a, b) => (a === null || (b !== null && b < a) ? b : a), null);
  if (done && at !== null) committed(done, at, knex);
}
