// Where each projection is in the log: in memory (moves with every batch) and as stored in projection_checkpoints
// (moves with the rows it covers, or on its own once the in-memory one is a second ahead), and the stored row's
// set-up and reset.
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { LogPosition } from '../../eventstore/port.ts';
import type { Clock } from '../../clock.ts';
import type { Projection } from '../projection.ts';
import { CheckpointMoved, type CommitPart, commitParts } from './commit.ts';
import { createShadow, liveSchema } from './shadow.ts';

/** Stored checkpoints older than this are written with the next transaction (or by themselves when idle). */
export const FLUSH_MS = 1000;

/** The checkpoints of one runner's projections. */
export class Checkpoints {
  private readonly current = new Map<string, LogPosition | null>();
  /** The checkpoint as stored in projection_checkpoints; behind `current` after batches with nothing to apply. */
  private readonly persisted = new Map<string, { position: LogPosition | null; at: number }>();

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    /** Called whenever a stored checkpoint moved (the runner says so to processes waiting for it). */
    private readonly onStored: () => void,
  ) {}

  /** Where `name` is, as this process last saw it. */
  of(name: string): LogPosition | null {
    return this.current.get(name) ?? null;
  }

  /** Every checkpoint as this process last saw it. */
  all(): Record<string, LogPosition | null> {
    return Object.fromEntries(this.current);
  }

  /** Every checkpoint this runner has stored or read, as stored. */
  allStored(): Record<string, LogPosition | null> {
    return Object.fromEntries([...this.persisted].map(([name, { position }]) => [name, position]));
  }

  /** Moves `name` in memory only: a batch with nothing to apply (stored with the next write, or by flush). */
  advance(name: string, position: LogPosition | null): void {
    this.current.set(name, position);
  }

  /** `name` is stored at `position` (written or read just now). */
  stored(name: string, position: LogPosition | null): void {
    this.current.set(name, position);
    this.persisted.set(name, { position, at: Date.now() });
    this.onStored();
  }

  /** Reads the stored checkpoint of `p` (another runner may have moved it). */
  async reload(p: Projection): Promise<void> {
    const row = (await this.knex('projection_checkpoints').where({ name: p.name }).first()) as { position: string | null } | undefined;
    this.stored(p.name, row?.position ?? null);
  }

  /** The stored checkpoint of `p`, which a commit's compare-and-set expects. */
  storedPosition(p: Projection): LogPosition | null {
    return this.persisted.get(p.name)?.position ?? null;
  }

  /** Milliseconds since the checkpoint row was last written or read. */
  storedAgo(p: Projection): number {
    return Date.now() - (this.persisted.get(p.name)?.at ?? 0);
  }

  /** Whether `p` moved only in memory and its row is old enough to be written now. */
  needsFlush(p: Projection): boolean {
    return this.of(p.name) !== this.storedPosition(p) && this.storedAgo(p) >= FLUSH_MS;
  }

  /** A commit part that only moves the stored checkpoint of `p` to where it is in memory. */
  flushPart(p: Projection): CommitPart {
    return { projection: p, events: [], from: this.storedPosition(p), to: this.of(p.name) };
  }

  /**
   * Stores a checkpoint that moved only in memory; a no-op when the row is current. The running tail may hold the
   * projection's lock for its own commit at that moment (the flush is then refused as "checkpoint moved", which a
   * catch-up beside the daemon threw now and then): it tries again once the tail let go.
   */
  async flush(p: Projection): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const part = this.flushPart(p);
      if (part.to === part.from) return;
      try {
        await commitParts(this.knex, [part], this.clock.now());
        this.stored(p.name, part.to);
        return;
      } catch (err) {
        if (!(err instanceof CheckpointMoved) || attempt >= 40) throw err;
        await delay(5);
      }
    }
  }

  /**
   * Makes sure every projection has a checkpoint row; a new projection empties its tables for a replay, a changed version
   * starts a build beside them (blue-green.ts). One transaction for all of them, their locks taken in the list's order:
   * a first start prepared 36 projections in 36 transactions of four statements each (issue 31).
   */
  async prepare(projections: readonly Projection[], logger: Logger): Promise<void> {
    if (projections.length === 0) return;
    const names = projections.map((p) => p.name);
    await this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(\'projection:\' || n, 1)) from unnest(?::text[]) with ordinality as l(n, i) order by i', [names]);
      const rows = (await trx('projection_checkpoints').whereIn('name', names).select('name', 'version', 'position')) as { name: string; version: number; position: string | null }[];
      const byName = new Map(rows.map((r) => [r.name, r]));
      const fresh = projections.filter((p) => !byName.has(p.name));
      if (fresh.length) {
        await trx('projection_checkpoints').insert(fresh.map((p) => ({ name: p.name, version: p.version, position: null })));
        await truncate(trx, fresh.flatMap((p) => p.tables));
      }
      for (const p of projections) {
        const row = byName.get(p.name);
        if (!row) this.stored(p.name, null);
        else if (row.version !== p.version) {
          // Blue/green: the old tables keep serving (and following the log) while the new version is built beside them.
          logger.info({ projection: p.name, from: row.version, to: p.version }, 'projection version changed: building the new version beside the old one');
          await createShadow(trx, p, await liveSchema(trx), this.clock.now());
          await trx('projection_checkpoints').where({ name: p.name }).update({ version: p.version, updated_at: this.clock.now() });
          this.stored(p.name, row.position);
        } else this.stored(p.name, row.position);
      }
    });
  }
}

// Empties the tables that hold rows (all in one statement); empty ones are left alone: on PGlite a truncate makes new
// files for every table and index, which was most of a first start's set-up of projections.
async function truncate(trx: Knex.Transaction, names: string[]): Promise<void> {
  const tables = [...new Set(names)];
  if (!tables.length) return;
  const probe = tables.map((t, i) => `select ${i} as i where exists (select from "${t}")`).join(' union all ');
  const holding = new Set(((await trx.raw(probe)).rows as { i: number }[]).map((r) => r.i));
  const full = tables.filter((_, i) => holding.has(i));
  if (full.length) await trx.raw(`truncate ${full.map((t) => `"${t}"`).join(', ')}`);
}
