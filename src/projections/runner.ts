// Runs projections: batched catch-up from a checkpoint, checkpoint committed with the read-model writes.
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type EventStore, type LogPosition, type RecordedEvent, comparePositions } from '../eventstore/port.ts';
import type { Clock } from '../clock.ts';
import type { Metrics } from '../metrics.ts';
import type { Projection } from './projection.ts';
import { laggingProjections } from './readiness.ts';
import { ProjectionLagError, type ReadModelProgress, type ReadModelRef } from '../context.ts';

class CheckpointMoved extends Error {}

/** Drives every projection of the service. One runner may be active per projection across processes. */
export class ProjectionRunner implements ReadModelProgress {
  private readonly checkpoints = new Map<string, LogPosition | null>();
  /** The checkpoint as stored in projection_checkpoints; behind `checkpoints` after batches with nothing to apply. */
  private readonly persisted = new Map<string, { position: LogPosition | null; at: number }>();
  private readonly advanced = new EventEmitter();
  /** Reads of $all in flight, by start position: projections woken by one append share one query. */
  private readonly reads = new Map<string, Promise<RecordedEvent[]>>();
  private abort = new AbortController();
  private loops: Promise<void>[] = [];
  private running = false;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    readonly projections: Projection[],
    private readonly opts: { logger: Logger; metrics?: Metrics; clock: Clock; batchSize?: number },
  ) {
    this.advanced.setMaxListeners(0);
    const names = new Set<string>();
    for (const p of projections) {
      if (names.has(p.name)) throw new Error(`duplicate projection name ${p.name}`);
      names.add(p.name);
    }
  }

  /** Makes sure every projection has a checkpoint row; a changed version empties its tables for a replay. */
  async prepare(): Promise<void> {
    for (const p of this.projections) {
      await this.knex.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 1))', [`projection:${p.name}`]);
        const row = (await trx('projection_checkpoints').where({ name: p.name }).first()) as { version: number; position: string | null } | undefined;
        if (!row) {
          await trx('projection_checkpoints').insert({ name: p.name, version: p.version, position: null });
          await truncate(trx, p.tables);
          this.setCheckpoint(p.name, null, true);
        } else if (row.version !== p.version) {
          this.opts.logger.info({ projection: p.name, from: row.version, to: p.version }, 'projection version changed: rebuilding');
          await truncate(trx, p.tables);
          await trx('projection_checkpoints').where({ name: p.name }).update({ version: p.version, position: null, updated_at: this.opts.clock.now() });
          this.setCheckpoint(p.name, null, true);
        } else {
          this.setCheckpoint(p.name, row.position, true);
        }
      });
    }
  }

  /** Starts one loop per projection that follows the log live. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.loops = this.projections.map((p) => this.loop(p, this.abort.signal));
  }

  /** Stops the loops after their current batch. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort();
    await Promise.allSettled(this.loops);
    this.loops = [];
    // Best effort: store checkpoints that only moved in memory, so a restart re-reads less.
    for (const p of this.projections) await this.flush(p).catch(() => {});
  }

  /** Processes everything committed so far, for `rebuild` and tests. */
  async catchUp(onProgress?: (name: string, events: number) => void, only: Projection[] = this.projections): Promise<void> {
    for (const p of only) {
      let total = 0;
      for (;;) {
        let n: number;
        try {
          n = await this.runBatch(p, true);
        } catch (err) {
          // Another runner (a `project` process, or this process's live loop) moved the checkpoint: follow it.
          if (!(err instanceof CheckpointMoved)) throw err;
          await this.reloadCheckpoint(p);
          await delay(10);
          continue;
        }
        if (n === 0) break;
        total += n;
        onProgress?.(p.name, total);
      }
    }
  }

  /** Drops the named read models (all when none named) and replays them from the log. */
  async rebuild(names: string[] = [], onProgress?: (name: string, events: number) => void): Promise<void> {
    const chosen = names.length ? this.projections.filter((p) => names.includes(p.name)) : this.projections;
    const unknown = names.filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}; known: ${this.projections.map((p) => p.name).join(', ')}`);
    for (const p of chosen) {
      await this.knex.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 1))', [`projection:${p.name}`]);
        await truncate(trx, p.tables);
        await trx('projection_checkpoints').where({ name: p.name }).update({ position: null, version: p.version, updated_at: this.opts.clock.now() });
      });
      this.setCheckpoint(p.name, null, true);
    }
    await this.catchUp(onProgress, chosen);
  }

  /** Waits until every named projection has processed `position` (read-your-writes). */
  async waitFor(position: LogPosition | null, readModels: ReadModelRef[], timeoutMs: number): Promise<void> {
    const names = readModels.map((m) => m.name);
    if (position === null) return;
    const pending = () => names.filter((n) => comparePositions(this.checkpoints.get(n) ?? null, position) < 0);
    if (pending().length === 0) return;
    if (!this.running) {
      await this.pollCheckpoints(position, names, timeoutMs);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pending().length === 0) finish();
      };
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.advanced.off('advanced', check);
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(() => finish(new ProjectionLagError(pending())), timeoutMs);
      this.advanced.on('advanced', check);
    });
  }

  /** Projections whose oldest unapplied event is older than the readiness bound. */
  lagging(): Promise<string[]> {
    return laggingProjections(this.knex, this.store, this.projections, this.positions(), this.opts.clock.now());
  }

  /** Another process runs the projections: read their checkpoints from the table. */
  private async pollCheckpoints(position: LogPosition, names: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = (await this.knex('projection_checkpoints').whereIn('name', names).select('name', 'position')) as { name: string; position: string | null }[];
      const behind = names.filter((n) => comparePositions(rows.find((r) => r.name === n)?.position ?? null, position) < 0);
      if (behind.length === 0) return;
      if (Date.now() > deadline) throw new ProjectionLagError(behind);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The checkpoint of each projection as this process last saw it. */
  positions(): Record<string, LogPosition | null> {
    return Object.fromEntries(this.checkpoints);
  }

  private async loop(p: Projection, signal: AbortSignal): Promise<void> {
    let backoff = 0;
    while (!signal.aborted) {
      const token = this.store.changeToken();
      try {
        const n = await this.runBatch(p);
        backoff = 0;
        // A full batch means more is waiting. After a partial one, read again only when something was
        // appended since `token` or a known commit is not yet readable (waitForChange decides).
        if (n >= (this.opts.batchSize ?? 1000)) continue;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof CheckpointMoved) {
          await this.reloadCheckpoint(p);
        } else {
          this.opts.logger.error({ err, projection: p.name }, 'projection batch failed; retrying');
        }
        backoff = Math.min(5000, backoff ? backoff * 2 : 100);
        await delay(backoff, undefined, { signal }).catch(() => {}); // aborted: stop() is under way
        continue;
      }
      await this.store.waitForChange(this.checkpoints.get(p.name) ?? null, token, signal);
    }
  }

  private async reloadCheckpoint(p: Projection): Promise<void> {
    const row = (await this.knex('projection_checkpoints').where({ name: p.name }).first()) as { position: string | null } | undefined;
    this.setCheckpoint(p.name, row?.position ?? null, true);
  }

  private setCheckpoint(name: string, position: LogPosition | null, stored: boolean): void {
    this.checkpoints.set(name, position);
    if (stored) this.persisted.set(name, { position, at: Date.now() });
  }

  /** Milliseconds since the checkpoint row was last written or read. */
  private storedAgo(p: Projection): number {
    return Date.now() - (this.persisted.get(p.name)?.at ?? 0);
  }

  /** Stores a checkpoint that moved only in memory (see runBatch); a no-op when the row is current. */
  private async flush(p: Projection): Promise<void> {
    const position = this.checkpoints.get(p.name) ?? null;
    if (position !== (this.persisted.get(p.name)?.position ?? null)) await this.commit(p, [], position);
  }

  /** Reads one batch after the checkpoint and applies it with a compare-and-set on the checkpoint. */
  private async runBatch(p: Projection, eagerFlush = false): Promise<number> {
    const from = this.checkpoints.get(p.name) ?? null;
    const events = await this.read(from);
    if (events.length === 0) {
      // Caught up: store a checkpoint that moved only in memory, at once for catchUp (the CLI exits
      // after it), else once it is a second old (readiness reads the table; its bound is 30 s).
      if (eagerFlush || this.storedAgo(p) >= 1000) await this.flush(p);
      this.opts.metrics?.projectionLag.set({ projection: p.name }, 0);
      return 0;
    }
    const last = events.at(-1);
    if (!last) return 0;
    // A batch with nothing this projection handles changes no row: move the checkpoint in memory
    // only and store it with the next write, or once it is a second old. With ten projections, this
    // spares nine transactions per append. The compare-and-set always compares with the stored
    // value, so another runner's progress is still detected; in-process read-your-writes waits read
    // the in-memory checkpoint.
    const handles = p.handles;
    if (handles && !events.some((e) => handles(e.type)) && this.storedAgo(p) < 1000) {
      this.checkpoints.set(p.name, last.position);
    } else {
      await this.commit(p, events, last.position);
    }
    this.opts.metrics?.projectionLag.set({ projection: p.name }, Math.max(0, (this.opts.clock.now().getTime() - last.createdAt.getTime()) / 1000));
    this.advanced.emit('advanced');
    return events.length;
  }

  /**
   * One batch of $all after `from`, shared with any projection reading from the same position at the
   * same time (the array is shared: projections must not modify it). Only in-flight reads are shared,
   * so a later read still sees commits that became readable since.
   */
  private read(from: LogPosition | null): Promise<RecordedEvent[]> {
    const key = from ?? 'start';
    let pending = this.reads.get(key);
    if (!pending) {
      pending = this.store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.opts.batchSize ?? 1000 }).finally(() => this.reads.delete(key));
      this.reads.set(key, pending);
    }
    return pending;
  }

  /** Applies `events` and moves the stored checkpoint to `position` in one transaction (compare-and-set). */
  private async commit(p: Projection, events: RecordedEvent[], position: LogPosition | null): Promise<void> {
    const from = this.persisted.get(p.name)?.position ?? null;
    await this.knex.transaction(async (trx) => {
      // Asynchronous commit: read models are derived from the durable log and the checkpoint commits
      // with their rows, so a crash can only lose both together, and the runner replays from the
      // older checkpoint. Waiting for a WAL flush per batch would only add latency.
      const lock = await trx.raw(`select pg_try_advisory_xact_lock(hashtextextended(?, 1)) as ok, set_config('synchronous_commit', 'off', true)`, [`projection:${p.name}`]);
      if (!lock.rows[0].ok) throw new CheckpointMoved();
      if (events.length) await p.apply(trx, events);
      // The compare-and-set comes last: the first write gives the transaction an xid, and while it is
      // open no reader of $all sees a later commit (the xid8 rule), so writes are kept short.
      const q = trx('projection_checkpoints').where({ name: p.name, version: p.version });
      if (from === null) q.whereNull('position');
      else q.where('position', from);
      const updated = await q.update({ position, updated_at: this.opts.clock.now() });
      if (updated !== 1) throw new CheckpointMoved();
    });
    this.setCheckpoint(p.name, position, true);
  }
}

async function truncate(trx: Knex.Transaction, tables: string[]): Promise<void> {
  if (tables.length) await trx.raw(`truncate ${tables.map((t) => `"${t}"`).join(', ')}`);
}

