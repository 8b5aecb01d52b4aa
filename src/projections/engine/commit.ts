// One projection transaction: read-model writes of one or more projections and their checkpoints, all or nothing.
import type { Knex } from 'knex';
import type { LogPosition, RecordedEvent } from '../../eventstore/port.ts';
import type { Projection, StagedWrites } from '../projection.ts';

const commitHooks = new WeakMap<Knex.Transaction, ((position: LogPosition, root: Knex) => void)[]>();

/** Runs `fn` once the runner's transaction `trx` has committed, with the position its checkpoints moved to and the runner's knex. */
export function afterCommit(trx: Knex.Transaction, fn: (position: LogPosition, root: Knex) => void): void {
  const hooks = commitHooks.get(trx) ?? [];
  hooks.push(fn);
  commitHooks.set(trx, hooks);
}

// Called by commitParts after `trx` committed.
function committed(trx: Knex.Transaction, position: LogPosition, root: Knex): void {
  for (const fn of commitHooks.get(trx) ?? []) fn(position, root);
  commitHooks.delete(trx);
}

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
    // Holding the locks, see whether another runner moved a checkpoint since it was read, before applying: its rows
    // are in already, and applying them again would fail as the projection's own error (a duplicate key: issue 30's
    // `admin org create` beside a running `project`), not as the move it is. A plain read takes no xid.
    if (parts.some((p) => p.events.length > 0 || p.write)) {
      const expected = parts.map((p) => ({ name: p.projection.name, version: p.projection.version, from_position: p.from }));
      const stale = await trx.raw(
        `select c.name from projection_checkpoints c join jsonb_to_recordset(?::jsonb) as m(name text, version int, from_position text) on c.name = m.name
         where c.version <> m.version or c.position is distinct from m.from_position`,
        [JSON.stringify(expected)],
      );
      const moved = (stale.rows as { name: string }[]).map((r) => r.name);
      if (moved.length) throw new CheckpointMoved(moved);
    }
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

/** What a one-statement commit did: the parts that committed, the projections another runner holds or moved, and those that failed. */
export interface StagedOutcome {
  committed: CommitPart[];
  moved: string[];
  failed: { name: string; err: unknown }[];
}

/** Whether a part can commit in one statement (its projection stages its writes, or it only moves its checkpoint). */
export function canStage(part: CommitPart): boolean {
  const { stage, stages } = part.projection;
  return !part.write && (part.events.length === 0 || (stage !== undefined && (stages?.(part.events) ?? true)));
}

/**
 * Commits parts in ONE autocommit statement: the advisory locks (tried), each checkpoint's
 * compare-and-set, and each projection's writes, every write guarded by its own checkpoint having
 * moved. The reads the writes depend on ran before (stage), outside any transaction: a checkpoint
 * that moved since, or a lock another runner holds, skips that projection's writes, so they never
 * land on rows they were not computed from. The others commit. A statement that fails is retried
 * part by part to find the failing projection.
 */
export async function commitStaged(knex: Knex, parts: CommitPart[], now: Date): Promise<StagedOutcome> {
  const out: StagedOutcome = { committed: [], moved: [], failed: [] };
  if (parts.length === 0) return out;
  const staged: { part: CommitPart; writes: StagedWrites | null }[] = [];
  await Promise.all(
    parts.map(async (part) => {
      try {
        const stage = part.projection.stage;
        staged.push({ part, writes: part.events.length && stage ? await stage(knex, part.events) : null });
      } catch (err) {
        out.failed.push({ name: part.projection.name, err });
      }
    }),
  );
  if (staged.length === 0) return out;
  const ctes: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const names = staged.map((s) => s.part.projection.name);
  const moves = staged.map(({ part: p }) => ({ name: p.projection.name, version: p.projection.version, from_position: p.from, to_position: p.to }));
  // Asynchronous commit, as in commitParts (set_config is local to this statement's transaction).
  ctes.push(`locks as materialized (select n as name, pg_try_advisory_xact_lock(hashtextextended('projection:' || n, 1)) as ok, set_config('synchronous_commit', 'off', true) as sync from unnest(?::text[]) as t(n))`);
  ctes.push(`moved as (update projection_checkpoints c set position = m.to_position, updated_at = ?
     from jsonb_to_recordset(?::jsonb) as m(name text, version int, from_position text, to_position text)
     where c.name = m.name and c.version = m.version and c.position is not distinct from m.from_position
       and exists (select 1 from locks l where l.name = m.name and l.ok)
     returning c.name)`);
  bindings.push(names, now, JSON.stringify(moves));
  staged.forEach(({ part, writes }, i) => {
    if (!writes) return;
    ctes.push(`g${i} as (select 1 from moved where name = ?)`);
    bindings.push(part.projection.name);
    writes.write((sql, args) => {
      const name = `w${ctes.length}`;
      ctes.push(`${name} as (${sql(`exists (select 1 from g${i})`)})`);
      bindings.push(...args);
      return name;
    });
  });
  let done: Set<string>;
  try {
    const res = await knex.raw(`with ${ctes.join(',\n')}\nselect name from moved`, bindings);
    done = new Set((res.rows as { name: string }[]).map((r) => r.name));
  } catch (err) {
    const [only] = staged;
    if (staged.length === 1 && only) {
      out.failed.push({ name: only.part.projection.name, err });
      return out;
    }
    for (const { part } of staged) {
      const one = await commitStaged(knex, [part], now);
      out.committed.push(...one.committed);
      out.moved.push(...one.moved);
      out.failed.push(...one.failed);
    }
    return out;
  }
  for (const { part, writes } of staged) {
    if (!done.has(part.projection.name)) {
      out.moved.push(part.projection.name);
      continue;
    }
    out.committed.push(part);
    if (part.to !== null) writes?.committed?.(part.to, knex);
  }
  return out;
}
