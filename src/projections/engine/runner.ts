// The projection daemon: one tail reader per process feeds every caught-up projection; the others catch up alone.
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type EventStore, type LogPosition, type RecordedEvent, comparePositions } from '../../eventstore/port.ts';
import type { Clock } from '../../clock.ts';
import type { Metrics } from '../../metrics.ts';
import type { BulkApplier, Projection } from '../projection.ts';
import { forgetDocuments } from '../documents/cache.ts';
import { CheckpointMoved, type CommitPart, ProjectionFailed, canStage, commitParts, commitStaged } from './commit.ts';
import { projectionStatuses } from './readiness.ts';
import type { ProjectionStatus } from '../../read-model-status.ts';
import { ProjectionHealth, failureOf, skippedIds, storeFailure, storedFailures } from './health.ts';
import { RemoteProgress } from './remote-progress.ts';
import type { DbChannel } from '../../db-channel.ts';
import { ProjectionLagError, ReadModelFailedError, type ReadModelProgress, type ReadModelRef } from '../../context.ts';
import { isDatabaseUnavailable } from '../../db-errors.ts';

/** Options of a runner. */
export interface RunnerOptions {
  logger: Logger;
  metrics?: Metrics;
  clock: Clock;
  /** Events per read of the shared tail (live). */
  batchSize?: number;
  /** Events per read of a projection catching up alone (rebuild, new version, fallen behind). */
  bulkBatchSize?: number;
  /** Where runners say that stored checkpoints moved, and processes that do not run the projections hear it. */
  progressChannel?: DbChannel;
}

// joined: fed by the tail. solo: catching up on its own. ready: caught up, joins at the tail's next batch.
// held: rebuild or catchUp drives it. failed: stopped at an event until retried, skipped or rebuilt.
type Mode = 'joined' | 'solo' | 'ready' | 'held' | 'failed';

/** A projection stopped at an event it cannot apply (catchUp and rebuild throw it; the daemon records it and goes on with the others). */
export class ProjectionStopped extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    override readonly cause: unknown,
  ) {
    super(`projection ${projection} stopped at event ${event.id} (${event.type}, ${event.streamId} #${event.revision}): ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Stored checkpoints older than this are written with the next transaction (or by themselves when idle). */
const FLUSH_MS = 1000;
/** Bulk replay writes once this many rows changed in memory... */
const MAX_PENDING_ROWS = 200_000;
/** ...or once its last write is this old, so a long replay still shows progress and restarts near where it stopped. */
const BULK_COMMIT_MS = 30_000;

/** Drives every projection of the service. One runner may be active per projection across processes. */
/** How long catchUp waits for committed events hidden behind an open older transaction. */
const CATCH_UP_WAIT_MS = 30_000;
/** How often a runner with a failed projection looks whether an operator retried or skipped it (another process may have). */
const FAILURE_POLL_MS = 1000;
/** Relevant events per transaction while finding the event a projection fails on. */
const ISOLATE_CHUNK = 100;

export class ProjectionRunner implements ReadModelProgress {
  private readonly checkpoints = new Map<string, LogPosition | null>();
  /** The checkpoint as stored in projection_checkpoints; behind `checkpoints` after batches with nothing to apply. */
  private readonly persisted = new Map<string, { position: LogPosition | null; at: number }>();
  private readonly advanced = new EventEmitter();
  private readonly mode = new Map<string, Mode>();
  private readonly solos = new Map<string, Promise<void>>();
  /** Position of the shared tail: every joined projection has applied the log up to here. */
  private tail: LogPosition | null = null;
  /** The tail's current step: rebuild waits for it before taking a projection out. */
  private tailBusy: Promise<void> = Promise.resolve();
  private tailLoop: Promise<void> = Promise.resolve();
  /** The tail's next batch, read while the current one commits. */
  private prefetch: { from: LogPosition | null; events: Promise<RecordedEvent[]> } | null = null;
  private woken = false;
  private wake?: () => void;
  private abort = new AbortController();
  private running = false;
  private readonly batchSize: number;
  private readonly bulkBatchSize: number;
  /** Read-your-writes while another process runs the projections (made on a first wait there). */
  private remote?: RemoteProgress;
  /** Each projection's state as operators see it (logs, metrics). */
  readonly health: ProjectionHealth;
  /** Events operators chose to leave out, by projection. */
  private readonly skips = new Map<string, Set<string>>();
  private failureWatch: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    readonly projections: Projection[],
    private readonly opts: RunnerOptions,
  ) {
    this.advanced.setMaxListeners(0);
    this.batchSize = opts.batchSize ?? 1000;
    this.bulkBatchSize = opts.bulkBatchSize ?? Math.max(this.batchSize, 5000);
    this.health = new ProjectionHealth(opts.logger, opts.metrics);
    const names = new Set<string>();
    for (const p of projections) {
      if (names.has(p.name)) throw new Error(`duplicate projection name ${p.name}`);
      names.add(p.name);
    }
  }

  /** Makes sure every projection has a checkpoint row; a changed version empties its tables for a replay. */
  async prepare(): Promise<void> {
    for (const p of this.projections) {
      forgetDocuments(this.knex, p.tables);
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
          await trx('projection_checkpoints').where({ name: p.name }).update({ version: p.version, position: null, failure: null, updated_at: this.opts.clock.now() });
          this.setCheckpoint(p.name, null, true);
        } else {
          this.setCheckpoint(p.name, row.position, true);
        }
      });
      this.skips.set(p.name, await skippedIds(this.knex, p.name));
    }
    // A failure stays until an operator retries, skips or rebuilds: a restart does not hide it.
    const failures = await storedFailures(this.knex);
    for (const p of this.projections) {
      const failure = failures.get(p.name);
      if (failure) this.health.set(p.name, 'failed', failure);
      else this.health.set(p.name, comparePositions(this.checkpoints.get(p.name) ?? null, await this.store.lastCommittedPosition()) < 0 ? 'catching_up' : 'running');
    }
  }

  /** Starts the daemon: the projections at the newest checkpoint share the tail, the others catch up first. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    for (const p of this.projections) this.mode.set(p.name, this.health.state(p.name) === 'failed' ? 'failed' : 'ready');
    this.tailLoop = this.runTail(this.abort.signal);
    this.failureWatch = this.watchFailures(this.abort.signal);
  }

  /** Stops the daemon after its current batch. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort();
    this.wake?.();
    await Promise.allSettled([this.tailLoop, this.failureWatch, ...this.solos.values()]);
    this.solos.clear();
    this.mode.clear();
    // Best effort: store checkpoints that only moved in memory, so a restart re-reads less.
    for (const p of this.projections) await this.flush(p).catch(() => {});
  }

  /** Processes everything committed so far, for the CLI and tests. */
  async catchUp(onProgress?: (name: string, events: number) => void, only: Projection[] = this.projections): Promise<void> {
    if (this.running) {
      // The daemon is at work: wait for it rather than race it, then store what moved only in memory.
      await this.waitFor(await this.store.headPosition(), only, 600_000);
      for (const p of only) await this.flush(p);
      return;
    }
    await this.drainToHead(only, onProgress);
  }

  /**
   * Drains each projection alone up to everything committed before the call. A read may not see all of it yet:
   * events committed after an older transaction that is still open (elsewhere in the cluster) lie past the
   * reading horizon, and a drain stops at its first short read.
   */
  private async drainToHead(projections: Projection[], onProgress?: (name: string, events: number) => void): Promise<void> {
    const target = await this.store.lastCommittedPosition();
    const deadline = Date.now() + CATCH_UP_WAIT_MS;
    const behind = (p: Projection) => this.health.state(p.name) !== 'failed' && comparePositions(this.checkpoints.get(p.name) ?? null, target) < 0;
    // One projection stopped at an event does not keep the others from catching up; the first stop is thrown at the end.
    const stopped: ProjectionStopped[] = [];
    for (const p of projections) {
      try {
        await this.drainAlone(p, onProgress);
        while (behind(p) && Date.now() < deadline) {
          await delay(5);
          await this.drainAlone(p, onProgress);
        }
      } catch (err) {
        if (!(err instanceof ProjectionStopped)) throw err;
        stopped.push(err);
        continue;
      }
      if (behind(p)) this.opts.logger.warn({ projection: p.name, target }, 'catch-up stopped short of the log head: an older transaction stayed open');
    }
    if (stopped[0]) throw stopped[0];
  }

  /** Drops the named read models (all when none named) and replays them from the log. */
  async rebuild(names: string[] = [], onProgress?: (name: string, events: number) => void): Promise<void> {
    const chosen = names.length ? this.projections.filter((p) => names.includes(p.name)) : this.projections;
    const unknown = names.filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}; known: ${this.projections.map((p) => p.name).join(', ')}`);
    // Take them away from the daemon: after the tail's current step, nothing else writes their tables here.
    for (const p of chosen) this.mode.set(p.name, 'held');
    await this.tailBusy;
    await Promise.allSettled(chosen.map((p) => this.solos.get(p.name)));
    try {
      for (const p of chosen) {
        await this.knex.transaction(async (trx) => {
          await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 1))', [`projection:${p.name}`]);
          await truncate(trx, p.tables);
          await trx('projection_checkpoints').where({ name: p.name }).update({ position: null, version: p.version, failure: null, updated_at: this.opts.clock.now() });
        });
        forgetDocuments(this.knex, p.tables);
        this.setCheckpoint(p.name, null, true);
        this.skips.set(p.name, await skippedIds(this.knex, p.name));
        this.health.set(p.name, 'catching_up');
      }
      await this.drainToHead(chosen, onProgress);
    } finally {
      if (this.running) {
        for (const p of chosen) this.mode.set(p.name, this.health.state(p.name) === 'failed' ? 'failed' : 'ready');
        this.poke();
      } else {
        for (const p of chosen) this.mode.delete(p.name);
      }
    }
  }

  /** Waits until every given read model has processed `position` (read-your-writes). */
  async waitFor(position: LogPosition | null, readModels: ReadModelRef[], timeoutMs: number): Promise<void> {
    const names = readModels.map((m) => m.name);
    if (position === null) return;
    const pending = () => names.filter((n) => comparePositions(this.checkpoints.get(n) ?? null, position) < 0);
    const failed = () => pending().filter((n) => this.health.state(n) === 'failed');
    if (pending().length === 0) return;
    if (this.running && failed().length) throw new ReadModelFailedError(failed());
    if (!this.running) {
      this.remote ??= new RemoteProgress(this.knex, this.opts.progressChannel);
      await this.remote.waitFor(position, names, timeoutMs);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pending().length === 0) finish();
        else if (failed().length) finish(new ReadModelFailedError(failed()));
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

  /** The checkpoint of each projection as this process last saw it. */
  positions(): Record<string, LogPosition | null> {
    return Object.fromEntries(this.checkpoints);
  }

  /** Every projection's checkpoint, lag and stored failure (this process's positions count where they are ahead). */
  statuses(): Promise<ProjectionStatus[]> {
    return projectionStatuses(this.knex, this.store, this.projections, this.positions(), this.opts.clock.now(), this.running ? (n) => this.health.state(n) : undefined);
  }

  /** The names of the projections. */
  names(): string[] {
    return this.projections.map((p) => p.name);
  }

  /** Resumes the failed projections whose failure was cleared, if the daemon runs here. */
  async resume(): Promise<string[]> {
    return this.running ? this.resumeCleared() : [];
  }

  /** Lag per projection, for /metrics. */
  async lags(): Promise<Map<string, number>> {
    return new Map((await this.statuses()).map((s) => [s.name, s.lag_seconds]));
  }

  // ---- the shared tail ----

  private async runTail(signal: AbortSignal): Promise<void> {
    let backoff = 0;
    while (!signal.aborted) {
      const token = this.store.changeToken();
      let full = false;
      const step = this.tailStep();
      this.tailBusy = step.then(() => {}, () => {});
      try {
        // After a non-empty batch there may be more at once (a full batch's successor is already being read): go on without waiting.
        full = (await step) > 0;
        if (backoff) this.opts.logger.info('projection tail reads and commits again');
        backoff = 0;
      } catch (err) {
        if (signal.aborted) return;
        // One line when a streak of failures starts (the database went away, say), one when it ends.
        if (!backoff) this.opts.logger.error({ err }, 'projection tail batch failed; retrying with backoff');
        backoff = Math.min(5000, backoff ? backoff * 2 : 100);
        await delay(backoff, undefined, { signal }).catch(() => {}); // aborted: stop() is under way
        continue;
      }
      // After an empty read, read again only when something was appended since `token`, a known
      // commit is not yet readable, or a projection asks to join.
      if (!full) await this.idle(token, signal);
    }
  }

  private async idle(token: number, signal: AbortSignal): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    const waiting = new AbortController();
    const stop = () => waiting.abort();
    signal.addEventListener('abort', stop, { once: true });
    this.wake = stop;
    try {
      await this.store.waitForChange(this.tail, token, waiting.signal);
    } finally {
      this.wake = undefined;
      this.woken = false;
      signal.removeEventListener('abort', stop);
    }
  }

  /** Wakes the tail (a projection is ready to join). */
  private poke(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Lets ready projections join: those at or past the tail; the others catch up alone again. */
  private admit(): void {
    const ready = this.projections.filter((p) => this.mode.get(p.name) === 'ready');
    if (ready.length === 0) return;
    if (!this.projections.some((p) => this.mode.get(p.name) === 'joined')) {
      this.tail = ready.map((p) => this.checkpoints.get(p.name) ?? null).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
    }
    for (const p of ready) {
      if (comparePositions(this.checkpoints.get(p.name) ?? null, this.tail) >= 0) {
        this.mode.set(p.name, 'joined');
        this.health.set(p.name, 'running');
      } else this.goSolo(p, { reload: false, delayMs: 0 });
    }
  }

  /** One batch of the tail, read once and handed to every joined projection. Returns the events read. */
  private async tailStep(): Promise<number> {
    this.admit();
    if (!this.projections.some((p) => this.mode.get(p.name) === 'joined')) return 0;
    const from = this.tail;
    const ahead = this.prefetch;
    this.prefetch = null;
    // A batch read during the previous commit (catching up) is as good as a new read (a cursor read never
    // skips): the tail applies it at once and reads the next one during this commit, so a cycle costs the
    // longer of a read and a commit, not both. Only an empty one is read again.
    let events = ahead && ahead.from === from ? await ahead.events : [];
    if (events.length === 0) events = await this.store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.batchSize });
    const members = this.projections.filter((p) => this.mode.get(p.name) === 'joined');
    const last = events.at(-1);
    if (!last) {
      // Caught up: store checkpoints that moved only in memory once they are a second old (readiness reads the table).
      await this.commitShared(members.filter((p) => this.needsFlush(p)).map((p) => this.flushPart(p)));
      return 0;
    }
    // Catching up (a full batch): read the next batch while this one commits, so the commit's round trips and the
    // read overlap. Live (a partial batch), the next read waits for the commit: a read made during it misses what
    // commits meanwhile, and commands waiting for those appends would wait a whole extra cycle.
    if (events.length >= this.batchSize) {
      const next = this.store.readAll({ from: { after: last.position }, maxCount: this.batchSize });
      next.catch(() => {}); // a failed prefetch is read again by the next step
      this.prefetch = { from: last.position, events: next.catch(() => []) };
    }
    const parts: CommitPart[] = [];
    const quiet: Projection[] = [];
    for (const p of members) {
      const cp = this.checkpoints.get(p.name) ?? null;
      if (comparePositions(cp, last.position) >= 0) continue; // joined ahead of the tail (it caught up past it alone)
      const mine = comparePositions(cp, from) > 0 ? events.filter((e) => comparePositions(e.position, cp) > 0) : events;
      const relevant = this.relevantEvents(p, mine);
      // A batch with nothing this projection handles changes no row: its checkpoint moves in memory and
      // is stored with its next write, or once it is a second old.
      if (relevant.length || this.storedAgo(p) >= FLUSH_MS) parts.push({ projection: p, events: relevant, from: this.storedPosition(p), to: last.position });
      else quiet.push(p);
    }
    await this.commitShared(parts);
    for (const p of quiet) if (this.mode.get(p.name) === 'joined') this.checkpoints.set(p.name, last.position);
    this.tail = last.position;
    this.advanced.emit('advanced');
    return events.length;
  }

  /**
   * Commits the tail's parts together: the staged ones in one statement, the others in one transaction.
   * A projection whose checkpoint moved or whose apply failed leaves the tail to catch up alone; the
   * others are retried without it, so one broken projection never holds the rest back. Returns those that committed.
   */
  private async commitShared(parts: CommitPart[]): Promise<Projection[]> {
    const done: Projection[] = [];
    const now = this.opts.clock.now();
    const release = (list: CommitPart[]) => {
      for (const part of list) {
        this.setCheckpoint(part.projection.name, part.to, true);
        done.push(part.projection);
      }
      if (list.length) this.advanced.emit('advanced');
    };
    // Projections that stage their writes commit in one statement (commitStaged); the others in a transaction.
    const staged = parts.filter(canStage);
    const others = parts.filter((p) => !canStage(p));
    const oneStatement = async (list: CommitPart[]) => {
      const out = await commitStaged(this.knex, list, now);
      release(out.committed);
      if (out.moved.length) this.leaveTail(new CheckpointMoved(out.moved), out.moved);
      for (const f of out.failed) this.leaveTail(new ProjectionFailed(f.name, f.err), [f.name]);
    };
    await Promise.all([staged.length ? oneStatement(staged) : null, this.commitTogether(others, now, release)]);
    return done;
  }

  /** The transaction path: one transaction for every part, retried without a projection that failed or moved. */
  private async commitTogether(parts: CommitPart[], now: Date, release: (list: CommitPart[]) => void): Promise<void> {
    let left = parts;
    while (left.length) {
      try {
        await commitParts(this.knex, left, now);
      } catch (err) {
        const out = err instanceof CheckpointMoved ? err.names : err instanceof ProjectionFailed ? [err.projection] : null;
        if (!out) throw err;
        this.leaveTail(err, out);
        left = left.filter((part) => !out.includes(part.projection.name));
        continue;
      }
      release(left);
      return;
    }
  }

  private leaveTail(err: unknown, names: string[]): void {
    const moved = err instanceof CheckpointMoved;
    for (const p of this.projections.filter((x) => names.includes(x.name))) forgetDocuments(this.knex, p.tables);
    if (!moved) this.opts.logger.error({ err, projections: names }, 'projection batch failed; it catches up alone');
    for (const p of this.projections.filter((x) => names.includes(x.name))) this.goSolo(p, { reload: moved, delayMs: moved ? 10 : 100 });
  }

  // ---- catching up alone ----

  /** Catches a projection up on its own (large batches), then asks the tail to take it. */
  private goSolo(p: Projection, start: { reload: boolean; delayMs: number }): void {
    if (!this.running) return;
    this.mode.set(p.name, 'solo');
    this.health.set(p.name, 'catching_up');
    const signal = this.abort.signal;
    const run = (async () => {
      let backoff = start.delayMs;
      let reload = start.reload;
      let unavailable = false;
      while (!signal.aborted && this.mode.get(p.name) === 'solo') {
        if (backoff) await delay(backoff, undefined, { signal }).catch(() => {});
        if (signal.aborted || this.mode.get(p.name) !== 'solo') return;
        try {
          if (reload) await this.reloadCheckpoint(p);
          reload = false;
          try {
            await this.drain(p, { eager: false, stop: () => signal.aborted || this.mode.get(p.name) !== 'solo' });
          } catch (err) {
            if (err instanceof CheckpointMoved || isDatabaseUnavailable(err)) throw err;
            // Find the event it fails on, applying everything before it; a failure that does not come back was not the event's.
            await this.stopAtFailingEvent(p);
          }
          if (this.mode.get(p.name) === 'solo') {
            this.mode.set(p.name, 'ready');
            this.poke();
          }
          return;
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof ProjectionStopped) return;
          if (err instanceof CheckpointMoved) {
            reload = true;
            backoff = 10;
          } else {
            if (!unavailable) this.opts.logger.error({ err, projection: p.name }, 'projection batch failed (the database is unavailable?); retrying with backoff');
            unavailable = true;
            reload = true;
            backoff = Math.min(5000, backoff ? backoff * 2 : 100);
          }
        }
      }
    })();
    this.solos.set(p.name, run);
  }

  /** Catches up alone until the log is exhausted, following another runner that moves the checkpoint. */
  private async drainAlone(p: Projection, onProgress?: (name: string, events: number) => void): Promise<void> {
    let total = 0;
    for (;;) {
      try {
        try {
          await this.drain(p, { eager: true, stop: () => false, onProgress: (n) => onProgress?.(p.name, (total += n)) });
        } catch (err) {
          if (err instanceof CheckpointMoved || isDatabaseUnavailable(err)) throw err;
          await this.stopAtFailingEvent(p);
          continue;
        }
        return;
      } catch (err) {
        // Another runner (a `project` process, say) moved the checkpoint: follow it.
        if (!(err instanceof CheckpointMoved)) throw err;
        await this.reloadCheckpoint(p);
        await delay(10);
      }
    }
  }

  /**
   * Applies the log after the projection's checkpoint in large batches until a read comes back short.
   * The next batch is read while the current one is applied (a read needs only the previous batch's end).
   */
  private async drain(p: Projection, opts: { eager: boolean; stop: () => boolean; onProgress?: (events: number) => void }): Promise<void> {
    const read = (from: LogPosition | null) => this.store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.bulkBatchSize });
    const start = this.checkpoints.get(p.name) ?? null;
    // Alone, rows are written by bulk writes or follow another runner: remembered documents may be older.
    forgetDocuments(this.knex, p.tables);
    // Bulk replay: batches are folded in memory and written together every MAX_PENDING_ROWS changed rows.
    const bulk = p.bulk?.(this.knex, start === null);
    let next: Promise<RecordedEvent[]> | null = read(start);
    let folded: LogPosition | null = null; // end of what the bulk applier holds unwritten
    while (next) {
      const events: RecordedEvent[] = await next;
      next = null;
      const last = events.at(-1);
      if (!last) break;
      // A full batch may be the last one: the empty read after it then writes what is folded.
      const more = events.length >= this.bulkBatchSize && !opts.stop();
      if (more) {
        next = read(last.position);
        next.catch(() => {}); // awaited below unless this batch fails
      }
      const relevant = this.relevantEvents(p, events);
      const to = last.position;
      if (bulk) {
        await bulk.fold(relevant);
        folded = to;
        if (bulk.pending() >= MAX_PENDING_ROWS || !more || this.storedAgo(p) >= BULK_COMMIT_MS) {
          await this.writeBulk(p, bulk, to);
          folded = null;
        }
      } else if (relevant.length || this.storedAgo(p) >= FLUSH_MS) {
        await commitParts(this.knex, [{ projection: p, events: relevant, from: this.storedPosition(p), to }], this.opts.clock.now());
        this.setCheckpoint(p.name, to, true);
      } else {
        this.checkpoints.set(p.name, to);
      }
      // A bulk replay's rows are visible only once written: its in-memory checkpoint moves with the write.
      this.advanced.emit('advanced');
      opts.onProgress?.(events.length);
    }
    if (bulk && folded !== null) await this.writeBulk(p, bulk, folded);
    forgetDocuments(this.knex, p.tables);
    // At the head: the CLI exits after catchUp, so it stores the checkpoint at once; the daemon within a second.
    if (opts.eager || this.storedAgo(p) >= FLUSH_MS) await this.flush(p);
  }

  /**
   * After a batch of `p` failed: applies the log from its checkpoint in small transactions, then event by
   * event within the chunk that fails, so everything before the failing event is applied and the event is
   * known. Records the failure (state, log line, metrics, the stored row) and throws ProjectionStopped; returns
   * when the log applied cleanly up to where it was read (the failure did not come back).
   */
  private async stopAtFailingEvent(p: Projection): Promise<void> {
    forgetDocuments(this.knex, p.tables);
    await this.reloadCheckpoint(p);
    const commit = async (events: RecordedEvent[], to: LogPosition) => {
      await commitParts(this.knex, [{ projection: p, events, from: this.storedPosition(p), to }], this.opts.clock.now());
      this.setCheckpoint(p.name, to, true);
    };
    const target = await this.store.lastCommittedPosition();
    while (comparePositions(this.checkpoints.get(p.name) ?? null, target) < 0) {
      const from = this.checkpoints.get(p.name) ?? null;
      const events = await this.store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.bulkBatchSize });
      const last = events.at(-1);
      if (!last) return;
      const relevant = this.relevantEvents(p, events);
      for (let i = 0; i < relevant.length; i += ISOLATE_CHUNK) {
        const chunk = relevant.slice(i, i + ISOLATE_CHUNK);
        const end = chunk.at(-1);
        if (!end) continue;
        try {
          await commit(chunk, end.position);
          continue;
        } catch (err) {
          if (!(err instanceof ProjectionFailed)) throw err;
          forgetDocuments(this.knex, p.tables);
        }
        for (const e of chunk) {
          try {
            await commit([e], e.position);
          } catch (err) {
            if (!(err instanceof ProjectionFailed) || isDatabaseUnavailable(err.cause)) throw err;
            forgetDocuments(this.knex, p.tables);
            await this.fail(p, e, err.cause);
          }
        }
      }
      await commit([], last.position);
      this.advanced.emit('advanced');
    }
  }

  /** Stops `p` at `event`: stores the failure for every process, says so once, releases its waiters with an error. */
  private async fail(p: Projection, event: RecordedEvent, err: unknown): Promise<never> {
    const failure = failureOf(event, err, this.opts.clock.now());
    if (this.mode.has(p.name)) this.mode.set(p.name, 'failed');
    this.health.set(p.name, 'failed', failure);
    await storeFailure(this.knex, p.name, failure);
    this.advanced.emit('advanced');
    throw new ProjectionStopped(p.name, event, err);
  }

  /** While a projection is failed, looks every FAILURE_POLL_MS whether its stored failure was cleared (retry, skip) and resumes it. */
  private async watchFailures(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await delay(FAILURE_POLL_MS, undefined, { signal }).catch(() => {});
      if (signal.aborted) return;
      const failed = this.projections.filter((p) => this.mode.get(p.name) === 'failed');
      if (failed.length === 0) continue;
      try {
        await this.resumeCleared(failed);
      } catch (err) {
        if (!signal.aborted) this.opts.logger.warn({ err }, 'could not read projection failures; looking again');
      }
    }
  }

  /** Resumes the failed projections whose stored failure is gone (an operator retried or skipped, here or in another process). */
  async resumeCleared(failed = this.projections.filter((p) => this.mode.get(p.name) === 'failed')): Promise<string[]> {
    if (failed.length === 0) return [];
    const stored = await storedFailures(this.knex);
    const resumed: string[] = [];
    for (const p of failed) {
      if (stored.has(p.name) || this.mode.get(p.name) !== 'failed') continue;
      this.skips.set(p.name, await skippedIds(this.knex, p.name));
      resumed.push(p.name);
      this.goSolo(p, { reload: true, delayMs: 0 });
    }
    return resumed;
  }

  /** The events of a batch that `p` handles (all of them when it does not say), less those an operator skipped for it. */
  private relevantEvents(p: Projection, events: RecordedEvent[]): RecordedEvent[] {
    const handles = p.handles;
    const skipped = this.skips.get(p.name);
    if (!handles && !skipped?.size) return events;
    return events.filter((e) => (!handles || handles(e.type)) && !skipped?.has(e.id));
  }

  /** Writes a bulk applier's folded rows and moves the checkpoint to `to`, in one transaction. */
  private async writeBulk(p: Projection, bulk: BulkApplier, to: LogPosition): Promise<void> {
    await commitParts(this.knex, [{ projection: p, events: [], from: this.storedPosition(p), to, write: (trx) => bulk.write(trx) }], this.opts.clock.now());
    this.setCheckpoint(p.name, to, true);
  }

  // ---- checkpoints ----

  private async reloadCheckpoint(p: Projection): Promise<void> {
    const row = (await this.knex('projection_checkpoints').where({ name: p.name }).first()) as { position: string | null } | undefined;
    this.setCheckpoint(p.name, row?.position ?? null, true);
  }

  private setCheckpoint(name: string, position: LogPosition | null, stored: boolean): void {
    this.checkpoints.set(name, position);
    if (!stored) return;
    this.persisted.set(name, { position, at: Date.now() });
    if (this.running) this.opts.progressChannel?.notify(() => 'moved'); // a `serve` process waiting for it reads it now
  }

  private storedPosition(p: Projection): LogPosition | null {
    return this.persisted.get(p.name)?.position ?? null;
  }

  /** Milliseconds since the checkpoint row was last written or read. */
  private storedAgo(p: Projection): number {
    return Date.now() - (this.persisted.get(p.name)?.at ?? 0);
  }

  private needsFlush(p: Projection): boolean {
    return (this.checkpoints.get(p.name) ?? null) !== this.storedPosition(p) && this.storedAgo(p) >= FLUSH_MS;
  }

  private flushPart(p: Projection): CommitPart {
    return { projection: p, events: [], from: this.storedPosition(p), to: this.checkpoints.get(p.name) ?? null };
  }

  /** Stores a checkpoint that moved only in memory; a no-op when the row is current. */
  private async flush(p: Projection): Promise<void> {
    const part = this.flushPart(p);
    if (part.to === part.from) return;
    await commitParts(this.knex, [part], this.opts.clock.now());
    this.setCheckpoint(p.name, part.to, true);
  }
}

async function truncate(trx: Knex.Transaction, tables: string[]): Promise<void> {
  if (tables.length) await trx.raw(`truncate ${tables.map((t) => `"${t}"`).join(', ')}`);
}
