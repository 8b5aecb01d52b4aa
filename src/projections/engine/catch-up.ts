// Catching a projection up on its own, in large batches (a new projection, a new version, a rebuild, one that fell
// behind or left the tail): the daemon's solo runs, and the drains of catchUp and rebuild. A projection that can
// replay in bulk folds many batches in memory between writes.
import { setTimeout as delay } from 'node:timers/promises';
import { pause } from '../../pause.ts';
import { type LogPosition, type RecordedEvent, comparePositions } from '../../eventstore/port.ts';
import { isDatabaseUnavailable } from '../../db-errors.ts';
import type { BulkApplier, Projection } from '../projection.ts';
import { forgetDocuments } from '../documents/cache.ts';
import { REPLAY_DOCUMENTS, replayMemoryFull } from '../replay-memory.ts';
import { CheckpointMoved, commitParts } from './commit.ts';
import { FLUSH_MS } from './checkpoints.ts';
import type { Engine } from './engine.ts';
import { type Failures, ProjectionStopped } from './failures.ts';

/** Bulk replay writes once its changed rows are as many as the documents it may hold (replay-memory.ts) or the heap is full... */
export function bulkFull(bulk: BulkApplier): boolean {
  return bulk.pending() >= REPLAY_DOCUMENTS || replayMemoryFull();
}
/** ...or once its last write is this old, so a long replay still shows progress and restarts near where it stopped. */
export const BULK_COMMIT_MS = 30_000;

/** How long catchUp waits for committed events hidden behind an open older transaction. */
const CATCH_UP_WAIT_MS = 30_000;

/** How a solo run starts: reading the stored checkpoint first (another runner moved it), after a pause. */
export interface SoloStart {
  reload: boolean;
  delayMs: number;
}

/** The catching up alone of one runner's projections. */
export class CatchUp {
  private readonly solos = new Map<string, Promise<void>>();

  constructor(
    private readonly e: Engine,
    private readonly failures: Failures,
    /** Asks the tail to take the projections that are ready. */
    private readonly poke: () => void,
  ) {}

  /** Catches a projection up on its own (large batches), then asks the tail to take it. */
  goSolo(p: Projection, start: SoloStart): void {
    const e = this.e;
    if (!e.running()) return;
    e.modes.set(p.name, 'solo');
    e.health.set(p.name, 'catching_up');
    const signal = e.signal();
    const run = (async () => {
      let backoff = start.delayMs;
      let reload = start.reload;
      let unavailable = false;
      while (!signal.aborted && e.modes.get(p.name) === 'solo') {
        if (backoff) await pause(backoff, signal);
        if (signal.aborted || e.modes.get(p.name) !== 'solo') return;
        try {
          if (reload) {
            await e.checkpoints.reload(p);
            // Another runner moved it, maybe past a position someone waits for: nothing may be left to apply here.
            e.waits.notify();
          }
          reload = false;
          try {
            await this.drain(p, { eager: false, stop: () => signal.aborted || e.modes.get(p.name) !== 'solo' });
          } catch (err) {
            if (err instanceof CheckpointMoved || isDatabaseUnavailable(err)) throw err;
            // Find the event it fails on, applying everything before it; a failure that does not come back was not the event's.
            await this.failures.stopAtFailingEvent(p);
          }
          if (e.modes.get(p.name) === 'solo') {
            e.modes.set(p.name, 'ready');
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
            if (!unavailable) e.logger.error({ err, projection: p.name }, 'projection batch failed (the database is unavailable?); retrying with backoff');
            unavailable = true;
            reload = true;
            backoff = Math.min(5000, backoff ? backoff * 2 : 100);
          }
        }
      }
    })();
    this.solos.set(p.name, run);
  }

  /** Waits until the solo runs of `projections` (all when none given) have ended, and forgets them. */
  async settled(projections?: Projection[]): Promise<void> {
    if (projections) {
      await Promise.allSettled(projections.map((p) => this.solos.get(p.name)));
      return;
    }
    await Promise.allSettled(this.solos.values());
    this.solos.clear();
  }

  /**
   * Drains each projection alone up to everything committed before the call. A read may not see all of it yet:
   * events committed after an older transaction that is still open (elsewhere in the cluster) lie past the
   * reading horizon, and a drain stops at its first short read.
   */
  async drainToHead(projections: Projection[], onProgress?: (name: string, events: number) => void): Promise<void> {
    const e = this.e;
    const target = await e.store.lastCommittedPosition();
    const deadline = Date.now() + CATCH_UP_WAIT_MS;
    const behind = (p: Projection) => e.health.state(p.name) !== 'failed' && comparePositions(e.checkpoints.of(p.name), target) < 0;
    // One projection stopped at an event does not keep the others from catching up; the first stop is thrown at the end.
    const stopped: ProjectionStopped[] = [];
    for (const p of projections) {
      // Already at the head: no read of the log (a CLI command on a caught-up database reads it once, not per projection).
      if (e.health.state(p.name) !== 'failed' && !behind(p)) continue;
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
      if (behind(p)) e.logger.warn({ projection: p.name, target }, 'catch-up stopped short of the log head: an older transaction stayed open');
    }
    if (stopped[0]) throw stopped[0];
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
          await this.failures.stopAtFailingEvent(p);
          continue;
        }
        return;
      } catch (err) {
        // Another runner (a `project` process, say) moved the checkpoint: follow it.
        if (!(err instanceof CheckpointMoved)) throw err;
        await this.e.checkpoints.reload(p);
        this.e.waits.notify();
        await delay(10);
      }
    }
  }

  /**
   * Applies the log after the projection's checkpoint in large batches until a read comes back short.
   * The next batch is read while the current one is applied (a read needs only the previous batch's end).
   */
  private async drain(p: Projection, opts: { eager: boolean; stop: () => boolean; onProgress?: (events: number) => void }): Promise<void> {
    const { knex, store, checkpoints } = this.e;
    const read = (from: LogPosition | null) => store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.e.bulkBatchSize });
    const start = checkpoints.of(p.name);
    // Alone, rows are written by bulk writes or follow another runner: remembered documents may be older.
    forgetDocuments(knex, p.tables);
    // Bulk replay: batches are folded in memory and written together when memory is full (bulkFull).
    const bulk = p.bulk?.(knex, start === null);
    let next: Promise<RecordedEvent[]> | null = read(start);
    let folded: LogPosition | null = null; // end of what the bulk applier holds unwritten
    while (next) {
      const events: RecordedEvent[] = await next;
      next = null;
      const last = events.at(-1);
      if (!last) break;
      // A full batch may be the last one: the empty read after it then writes what is folded.
      const more = events.length >= this.e.bulkBatchSize && !opts.stop();
      if (more) {
        next = read(last.position);
        next.catch(() => {}); // awaited below unless this batch fails
      }
      const relevant = this.failures.relevant(p, events);
      const to = last.position;
      if (bulk) {
        await bulk.fold(relevant);
        this.e.health.applied(p.name, relevant.length);
        folded = to;
        if (bulkFull(bulk) || !more || checkpoints.storedAgo(p) >= BULK_COMMIT_MS) {
          await this.writeBulk(p, bulk, to);
          folded = null;
        }
      } else if (relevant.length || checkpoints.storedAgo(p) >= FLUSH_MS) {
        await commitParts(knex, [{ projection: p, events: relevant, from: checkpoints.storedPosition(p), to }], this.e.clock.now());
        checkpoints.stored(p.name, to);
        this.e.health.applied(p.name, relevant.length);
      } else {
        checkpoints.advance(p.name, to);
      }
      // A bulk replay's rows are visible only once written: its in-memory checkpoint moves with the write.
      this.e.waits.notify();
      opts.onProgress?.(events.length);
    }
    if (bulk && folded !== null) await this.writeBulk(p, bulk, folded);
    forgetDocuments(knex, p.tables);
    // At the head: the CLI exits after catchUp, so it stores the checkpoint at once; the daemon within a second.
    if (opts.eager || checkpoints.storedAgo(p) >= FLUSH_MS) await checkpoints.flush(p);
  }

  /** Writes a bulk applier's folded rows and moves the checkpoint to `to`, in one transaction. */
  private async writeBulk(p: Projection, bulk: BulkApplier, to: LogPosition): Promise<void> {
    const { checkpoints } = this.e;
    await commitParts(this.e.knex, [{ projection: p, events: [], from: checkpoints.storedPosition(p), to, write: (trx) => bulk.write(trx) }], this.e.clock.now());
    checkpoints.stored(p.name, to);
  }
}
