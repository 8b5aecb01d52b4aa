// A projection that cannot apply an event stops there and says so; the others go on. Finds the event (everything
// before it applied), records the failure for every process, leaves out the events an operator skipped, and resumes
// the projection once an operator retried or skipped (here or in another process).
import { pause } from '../../pause.ts';
import { type LogPosition, type RecordedEvent, comparePositions } from '../../eventstore/port.ts';
import { isDatabaseUnavailable } from '../../db-errors.ts';
import type { Projection } from '../projection.ts';
import { forgetDocuments } from '../documents/cache.ts';
import { ProjectionFailed, commitParts } from './commit.ts';
import type { Engine } from './engine.ts';
import { failureOf, skippedIds, storeFailure, storedFailures } from './health.ts';

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

/** How often a runner with a failed projection looks whether an operator retried or skipped it (another process may have). */
const FAILURE_POLL_MS = 1000;
/** Relevant events per transaction while finding the event a projection fails on. */
const ISOLATE_CHUNK = 100;

/** The failure handling of one runner. */
export class Failures {
  /** Events operators chose to leave out, by projection. */
  private readonly skips = new Map<string, Set<string>>();

  constructor(
    private readonly e: Engine,
    /** Sets a projection whose failure was cleared catching up again. */
    private readonly resume: (p: Projection) => void,
  ) {}

  /** Reads the events skipped for `p` (at start, on a rebuild, and when its failure was cleared). */
  async loadSkips(p: Projection): Promise<void> {
    this.skips.set(p.name, await skippedIds(this.e.knex, p.name));
  }

  /** The events of a batch that `p` handles (all of them when it does not say), less those an operator skipped for it. */
  relevant(p: Projection, events: RecordedEvent[]): RecordedEvent[] {
    const handles = p.handles;
    const skipped = this.skips.get(p.name);
    if (!handles && !skipped?.size) return events;
    return events.filter((e) => (!handles || handles(e.type)) && !skipped?.has(e.id));
  }

  /**
   * After a batch of `p` failed: applies the log from its checkpoint in small transactions, then event by
   * event within the chunk that fails, so everything before the failing event is applied and the event is
   * known. Records the failure (state, log line, metrics, the stored row) and throws ProjectionStopped; returns
   * when the log applied cleanly up to where it was read (the failure did not come back).
   */
  async stopAtFailingEvent(p: Projection): Promise<void> {
    const { knex, store, checkpoints } = this.e;
    forgetDocuments(knex, p.tables);
    await checkpoints.reload(p);
    const commit = async (events: RecordedEvent[], to: LogPosition) => {
      await commitParts(knex, [{ projection: p, events, from: checkpoints.storedPosition(p), to }], this.e.clock.now());
      checkpoints.stored(p.name, to);
      this.e.health.applied(p.name, events.length);
    };
    const target = await store.lastCommittedPosition();
    while (comparePositions(checkpoints.of(p.name), target) < 0) {
      const from = checkpoints.of(p.name);
      const events = await store.readAll({ from: from === null ? 'start' : { after: from }, maxCount: this.e.bulkBatchSize });
      const last = events.at(-1);
      if (!last) return;
      const relevant = this.relevant(p, events);
      for (let i = 0; i < relevant.length; i += ISOLATE_CHUNK) {
        const chunk = relevant.slice(i, i + ISOLATE_CHUNK);
        const end = chunk.at(-1);
        if (!end) continue;
        try {
          await commit(chunk, end.position);
          continue;
        } catch (err) {
          if (!(err instanceof ProjectionFailed)) throw err;
          forgetDocuments(knex, p.tables);
        }
        for (const e of chunk) {
          try {
            await commit([e], e.position);
          } catch (err) {
            if (!(err instanceof ProjectionFailed) || isDatabaseUnavailable(err.cause)) throw err;
            forgetDocuments(knex, p.tables);
            await this.fail(p, e, err.cause);
          }
        }
      }
      await commit([], last.position);
      this.e.waits.notify();
    }
  }

  /** Stops `p` at `event`: stores the failure for every process, says so once, releases its waiters with an error. */
  private async fail(p: Projection, event: RecordedEvent, err: unknown): Promise<never> {
    const failure = failureOf(event, err, this.e.clock.now());
    if (this.e.modes.has(p.name)) this.e.modes.set(p.name, 'failed');
    this.e.health.set(p.name, 'failed', failure);
    await storeFailure(this.e.knex, p.name, failure);
    this.e.waits.notify();
    throw new ProjectionStopped(p.name, event, err);
  }

  /** While a projection is failed, looks every FAILURE_POLL_MS whether its stored failure was cleared (retry, skip) and resumes it. */
  async watch(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await pause(FAILURE_POLL_MS, signal);
      if (signal.aborted) return;
      const failed = this.failed();
      if (failed.length === 0) continue;
      try {
        await this.resumeCleared(failed);
      } catch (err) {
        if (!signal.aborted) this.e.logger.warn({ err }, 'could not read projection failures; looking again');
      }
    }
  }

  /** Resumes the failed projections whose stored failure is gone (an operator retried or skipped, here or in another process). */
  async resumeCleared(failed = this.failed()): Promise<string[]> {
    if (failed.length === 0) return [];
    const stored = await storedFailures(this.e.knex);
    const resumed: string[] = [];
    for (const p of failed) {
      if (stored.has(p.name) || this.e.modes.get(p.name) !== 'failed') continue;
      await this.loadSkips(p);
      resumed.push(p.name);
      this.resume(p);
    }
    return resumed;
  }

  // The projections the daemon holds as failed.
  private failed(): Projection[] {
    return this.e.projections.filter((p) => this.e.modes.get(p.name) === 'failed');
  }
}
