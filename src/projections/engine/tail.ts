// The shared tail: one reader of the log per process whose batches feed every caught-up (joined) projection, and
// their commit together. A projection that cannot keep up with it (its checkpoint moved, its apply failed) leaves
// it to catch up alone; the others go on.
import { pause } from '../../pause.ts';
import { type LogPosition, type RecordedEvent, comparePositions } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { forgetDocuments } from '../documents/cache.ts';
import { CheckpointMoved, type CommitPart, ProjectionFailed, canStage, commitParts, commitStaged } from './commit.ts';
import { FLUSH_MS } from './checkpoints.ts';
import type { Engine } from './engine.ts';
import type { SoloStart } from './catch-up.ts';

/** The shared tail of one runner. */
export class Tail {
  /** Position of the shared tail: every joined projection has applied the log up to here. */
  private position: LogPosition | null = null;
  /** The tail's current step: rebuild waits for it before taking a projection out. */
  private step: Promise<void> = Promise.resolve();
  private loop: Promise<void> = Promise.resolve();
  /** The tail's next batch, read while the current one commits. */
  private prefetch: { from: LogPosition | null; events: Promise<RecordedEvent[]> } | null = null;
  private woken = false;
  private wake?: () => void;

  constructor(
    private readonly e: Engine,
    /** The events of a batch a projection applies (its handled types, less skipped events). */
    private readonly relevant: (p: Projection, events: RecordedEvent[]) => RecordedEvent[],
    /** Sends a projection to catch up alone. */
    private readonly goSolo: (p: Projection, start: SoloStart) => void,
  ) {}

  /** Starts reading until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.loop = this.run(signal);
  }

  /** Ends the wait for new events (the daemon stops) and resolves when the loop has ended. */
  stopped(): Promise<void> {
    this.wake?.();
    return this.loop;
  }

  /** Resolves when the step under way (if any) is done: after it, the tail writes no table of a projection taken out of it. */
  idleStep(): Promise<void> {
    return this.step;
  }

  /** Wakes the tail (a projection is ready to join). */
  poke(): void {
    this.woken = true;
    this.wake?.();
  }

  private async run(signal: AbortSignal): Promise<void> {
    let backoff = 0;
    while (!signal.aborted) {
      const token = this.e.store.changeToken();
      let full = false;
      const step = this.batch();
      this.step = step.then(() => {}, () => {});
      try {
        // After a non-empty batch there may be more at once (a full batch's successor is already being read): go on without waiting.
        full = (await step) > 0;
        if (backoff) this.e.logger.info('projection tail reads and commits again');
        backoff = 0;
      } catch (err) {
        if (signal.aborted) return;
        // One line when a streak of failures starts (the database went away, say), one when it ends.
        if (!backoff) this.e.logger.error({ err }, 'projection tail batch failed; retrying with backoff');
        backoff = Math.min(5000, backoff ? backoff * 2 : 100);
        await pause(backoff, signal); // aborted: stop() is under way
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
      await this.e.store.waitForChange(this.position, token, waiting.signal);
    } finally {
      this.wake = undefined;
      this.woken = false;
      signal.removeEventListener('abort', stop);
    }
  }

  /** Lets ready projections join: those at or past the tail; the others catch up alone again. */
  private admit(): void {
    const { projections, modes, checkpoints } = this.e;
    const ready = projections.filter((p) => modes.get(p.name) === 'ready');
    if (ready.length === 0) return;
    if (!projections.some((p) => modes.get(p.name) === 'joined')) {
      this.position = ready.map((p) => checkpoints.of(p.name)).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
    }
    for (const p of ready) {
      if (comparePositions(checkpoints.of(p.name), this.position) >= 0) {
        modes.set(p.name, 'joined');
        this.e.health.set(p.name, 'running');
      } else this.goSolo(p, { reload: false, delayMs: 0 });
    }
  }

  /** One batch of the tail, read once and handed to every joined projection. Returns the events read. */
  private async batch(): Promise<number> {
    const { projections, modes, checkpoints, store, batchSize } = this.e;
    this.admit();
    if (!projections.some((p) => modes.get(p.name) === 'joined')) return 0;
    const from = this.position;
    const ahead = this.prefetch;
    this.prefetch = null;
    // A batch read during the previous commit (catching up) is as good as a new read (a cursor read never
    // skips): the tail applies it at once and reads the next one during this commit, so a cycle costs the
    // longer of a read and a commit, not both. Only an empty one is read again.
    let events = ahead && ahead.from === from ? await ahead.events : [];
    if (events.length === 0) events = await store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: batchSize });
    const members = projections.filter((p) => modes.get(p.name) === 'joined');
    const last = events.at(-1);
    if (!last) {
      // Caught up: store checkpoints that moved only in memory once they are a second old (readiness reads the table).
      await this.commit(members.filter((p) => checkpoints.needsFlush(p)).map((p) => checkpoints.flushPart(p)));
      return 0;
    }
    // Catching up (a full batch): read the next batch while this one commits, so the commit's round trips and the
    // read overlap. Live (a partial batch), the next read waits for the commit: a read made during it misses what
    // commits meanwhile, and commands waiting for those appends would wait a whole extra cycle.
    if (events.length >= batchSize) {
      const next = store.readAll({ from: { after: last.position }, maxCount: batchSize });
      next.catch(() => {}); // a failed prefetch is read again by the next step
      this.prefetch = { from: last.position, events: next.catch(() => []) };
    }
    const parts: CommitPart[] = [];
    const quiet: Projection[] = [];
    for (const p of members) {
      const cp = checkpoints.of(p.name);
      if (comparePositions(cp, last.position) >= 0) continue; // joined ahead of the tail (it caught up past it alone)
      const mine = comparePositions(cp, from) > 0 ? events.filter((e) => comparePositions(e.position, cp) > 0) : events;
      const relevant = this.relevant(p, mine);
      // A batch with nothing this projection handles changes no row: its checkpoint moves in memory and
      // is stored with its next write, or once it is a second old.
      if (relevant.length || checkpoints.storedAgo(p) >= FLUSH_MS) parts.push({ projection: p, events: relevant, from: checkpoints.storedPosition(p), to: last.position });
      else quiet.push(p);
    }
    await this.commit(parts);
    for (const p of quiet) if (modes.get(p.name) === 'joined') checkpoints.advance(p.name, last.position);
    this.position = last.position;
    this.e.waits.notify();
    return events.length;
  }

  /**
   * Commits the tail's parts together: the staged ones in one statement, the others in one transaction.
   * A projection whose checkpoint moved or whose apply failed leaves the tail to catch up alone; the
   * others are retried without it, so one broken projection never holds the rest back.
   */
  private async commit(parts: CommitPart[]): Promise<void> {
    const now = this.e.clock.now();
    const release = (list: CommitPart[]) => {
      for (const part of list) {
        this.e.checkpoints.stored(part.projection.name, part.to);
        this.e.health.applied(part.projection.name, part.events.length);
      }
      if (list.length) this.e.waits.notify();
    };
    // Projections that stage their writes commit in one statement (commitStaged); the others in a transaction.
    const staged = parts.filter(canStage);
    const others = parts.filter((p) => !canStage(p));
    const oneStatement = async (list: CommitPart[]) => {
      const out = await commitStaged(this.e.knex, list, now);
      release(out.committed);
      if (out.moved.length) this.leave(new CheckpointMoved(out.moved), out.moved);
      for (const f of out.failed) this.leave(new ProjectionFailed(f.name, f.err), [f.name]);
    };
    await Promise.all([staged.length ? oneStatement(staged) : null, this.commitTogether(others, now, release)]);
  }

  /** The transaction path: one transaction for every part, retried without a projection that failed or moved. */
  private async commitTogether(parts: CommitPart[], now: Date, release: (list: CommitPart[]) => void): Promise<void> {
    let left = parts;
    while (left.length) {
      try {
        await commitParts(this.e.knex, left, now);
      } catch (err) {
        const out = err instanceof CheckpointMoved ? err.names : err instanceof ProjectionFailed ? [err.projection] : null;
        if (!out) throw err;
        this.leave(err, out);
        left = left.filter((part) => !out.includes(part.projection.name));
        continue;
      }
      release(left);
      return;
    }
  }

  // Sends `names` to catch up alone: another runner moved their checkpoints, or their batch failed (then found event by event).
  private leave(err: unknown, names: string[]): void {
    const moved = err instanceof CheckpointMoved;
    const leaving = this.e.projections.filter((x) => names.includes(x.name));
    for (const p of leaving) forgetDocuments(this.e.knex, p.tables);
    if (!moved) this.e.logger.error({ err, projections: names }, 'projection batch failed; it catches up alone');
    for (const p of leaving) this.goSolo(p, { reload: moved, delayMs: moved ? 10 : 100 });
  }
}
