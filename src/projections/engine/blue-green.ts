// Blue/green rebuilds: a projection's new version (or an operator's rebuild) is built beside the tables that serve
// reads (shadow.ts), from the log, while the live version goes on serving and following the log; once the new one has
// caught up, one transaction swaps it in and drops the old tables. Queries keep their table names and never see a
// half-built table; read-your-writes keeps waiting on the live version, the one reads see.
import { setTimeout as delay } from 'node:timers/promises';
import { pause } from '../../pause.ts';
import type { Knex } from 'knex';
import { type LogPosition, type RecordedEvent, comparePositions } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { forgetDocuments, tablesReplaced } from '../documents/cache.ts';
import { CheckpointMoved, type CommitPart, commitParts } from './commit.ts';
import { BULK_COMMIT_MS, bulkFull } from './catch-up.ts';
import type { Engine } from './engine.ts';
import { createShadow, indexShadow, liveSchema, nextName, shadowProjection, swapShadow, writeShadow } from './shadow.ts';

/** How far a build is: events applied, the share done (by log position, against the head when it started) and the time left at its pace. */
export interface BuildProgress {
  projection: string;
  events: number;
  done: number;
  /** Seconds left at the pace so far; null until there is a pace. */
  etaSeconds: number | null;
}

/** The builds beside the live tables of one runner. */
export class BlueGreen {
  private readonly builds = new Map<string, Promise<void>>();
  /**
   * The shadow's commits go through a handle of their own: documents are remembered per handle (cache.ts) for the
   * live version's staging and answers, and the shadow's are of another version.
   */
  private readonly root: Knex;

  constructor(
    private readonly e: Engine,
    /** The events of a batch `p` applies (its handled types, less the events skipped for it). */
    private readonly relevant: (p: Projection, events: RecordedEvent[]) => RecordedEvent[],
    /** Takes `p` away from this process's daemon until the returned release is called. */
    private readonly hold: (p: Projection) => Promise<() => void>,
    /** One connection for everything (embedded PGlite): a transaction cannot read the log meanwhile. */
    private readonly oneConnection: boolean,
  ) {
    this.root = new Proxy(e.knex, {});
  }

  /** Starts a build of `p` from the start of the log beside its live tables (an unfinished one is replaced). */
  async begin(p: Projection): Promise<void> {
    await this.e.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 1))', [`projection:${nextName(p.name)}`]);
      await createShadow(trx, p, await liveSchema(trx), this.e.clock.now());
    });
  }

  /** The projections of `among` whose build (of their current version) is unfinished. */
  async pending(among: Projection[]): Promise<Projection[]> {
    const rows = (await this.e.knex('projection_checkpoints').whereIn('name', among.map((p) => nextName(p.name))).select('name', 'version')) as { name: string; version: number }[];
    return among.filter((p) => rows.some((r) => r.name === nextName(p.name) && r.version === p.version));
  }

  /** The build of `p` under way in this process, if any. */
  underWay(p: Projection): Promise<void> | undefined {
    return this.builds.get(p.name);
  }

  /** Waits for the builds under way in this process. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.builds.values());
  }

  /** Builds `p` in the background while the daemon runs, retrying after a failure (logged), until swapped in or the daemon stops. */
  run(p: Projection, swapped: () => void): void {
    if (this.builds.has(p.name)) return;
    const signal = this.e.signal();
    const run = (async () => {
      let backoff = 1000;
      while (!signal.aborted) {
        try {
          if (await this.build(p, { signal })) swapped();
          return;
        } catch (err) {
          if (signal.aborted) return;
          this.e.health.buildFailed(p.name);
          this.e.logger.error({ err, projection: p.name }, `building ${p.name} version ${p.version} beside the live one failed (the live one keeps serving); retrying in ${backoff / 1000} s`);
          await pause(backoff, signal);
          backoff = Math.min(60_000, backoff * 2);
        }
      }
    })().finally(() => this.builds.delete(p.name));
    this.builds.set(p.name, run);
  }

  /**
   * Builds `p` beside its live tables up to the head of the log and swaps it in. A build begun earlier goes on
   * where its checkpoint is; one another process swapped in meanwhile ends this one. Returns false when stopped.
   */
  async build(p: Projection, opts: { signal?: AbortSignal; onProgress?: (progress: BuildProgress) => void } = {}): Promise<boolean> {
    const live = await liveSchema(this.e.knex);
    const shadow = shadowProjection(p, live);
    const started = Date.now();
    let position = await this.position(p);
    if (position === undefined) return true;
    const from = position;
    const head = await this.e.store.lastCommittedPosition();
    let events = 0;
    const step = (at: LogPosition | null, n: number) => {
      events += n;
      const done = Math.min(1, Math.max(0, (ordinal(at) - ordinal(from)) / Math.max(1, ordinal(head) - ordinal(from))));
      const elapsed = (Date.now() - started) / 1000;
      this.e.health.building(p.name, done);
      opts.onProgress?.({ projection: p.name, events, done, etaSeconds: done > 0 ? (elapsed * (1 - done)) / done : null });
    };
    this.e.logger.info({ projection: p.name, version: p.version }, `building ${p.name} version ${p.version} beside the live one`);
    try {
      for (;;) {
        try {
          position = await this.drain(p, shadow, position, step, opts.signal);
          if (opts.signal?.aborted) return false;
          // Caught up: the indexes createShadow left out are built over every row, while the live one still serves;
          // then the live one stops here for the little the log grew meanwhile and the swap.
          await this.e.knex.transaction((trx) => indexShadow(trx, p, live));
          const release = await this.hold(p);
          try {
            position = await this.drain(p, shadow, position, step);
            const at = await this.swap(p, shadow, live, position);
            forgetDocuments(this.e.knex, p.tables);
            tablesReplaced(p.tables);
            this.e.checkpoints.stored(p.name, at);
            if (this.e.health.state(p.name) === 'failed') this.e.health.set(p.name, 'catching_up');
            this.e.waits.notify();
          } finally {
            release();
          }
          this.e.logger.info({ projection: p.name, version: p.version, events, seconds: (Date.now() - started) / 1000 }, `${p.name} version ${p.version} swapped in; the old tables are dropped`);
          return true;
        } catch (err) {
          if (!(err instanceof CheckpointMoved)) throw err;
          // Another process builds it too (or the live one moved past it): follow where the build is.
          await delay(20);
          position = await this.position(p);
          if (position === undefined) return true; // swapped in by the other
        }
      }
    } finally {
      this.e.health.building(p.name, null);
    }
  }

  /** The stored checkpoint of `p`'s build; undefined when there is none. */
  private async position(p: Projection): Promise<LogPosition | null | undefined> {
    const row = (await this.e.knex('projection_checkpoints').where({ name: nextName(p.name) }).first('position')) as { position: string | null } | undefined;
    return row ? row.position : undefined;
  }

  /**
   * Applies the log after `from` to the shadow tables until a read comes back short (then empty). With bulk replay
   * (the projection offers it) batches are folded in memory and written, with the build's checkpoint, every
   * time they fill memory (bulkFull), every BULK_COMMIT_MS and at the end, as a solo catch-up does (catch-up.ts); the
   * first write into the tables the build began empty is a plain load. The next batch is read while one is applied.
   */
  private async drain(p: Projection, shadow: Projection, from: LogPosition | null, step: (at: LogPosition | null, n: number) => void, signal?: AbortSignal): Promise<LogPosition | null> {
    const read = (after: LogPosition | null) => this.e.store.readAll({ from: after === null ? 'start' : { after }, maxCount: this.e.bulkBatchSize });
    const bulk = shadow.bulk?.(this.root, from === null);
    let position = from; // where the build's stored checkpoint is
    let folded: LogPosition | null = null; // end of what the bulk applier holds unwritten
    let writtenAt = Date.now();
    const write = async (to: LogPosition, part: Pick<CommitPart, 'events' | 'write'>) => {
      await commitParts(this.root, [{ projection: shadow, from: position, to, ...part }], this.e.clock.now());
      position = to;
      folded = null;
      writtenAt = Date.now();
    };
    let next: Promise<RecordedEvent[]> | null = read(position);
    while (next) {
      const events: RecordedEvent[] = await next;
      next = null;
      const last = events.at(-1);
      if (!last) break;
      const more = events.length >= this.e.bulkBatchSize && !signal?.aborted;
      if (more) {
        next = read(last.position);
        next.catch(() => {}); // awaited on the next turn unless this batch fails
      }
      const relevant = this.relevant(p, events);
      if (bulk) {
        await bulk.fold(relevant);
        folded = last.position;
        if (bulkFull(bulk) || !more || Date.now() - writtenAt >= BULK_COMMIT_MS) await write(last.position, { events: [], write: (trx) => bulk.write(trx) });
      } else {
        await write(last.position, { events: relevant });
      }
      step(last.position, events.length);
    }
    if (bulk && folded !== null) await write(folded, { events: [], write: (trx) => bulk.write(trx) });
    return position;
  }

  /**
   * Swaps the shadow tables in, in one transaction holding both projections' locks (no runner commits either
   * meanwhile). Returns the position the live checkpoint moves to; CheckpointMoved when something moved first.
   */
  private async swap(p: Projection, shadow: Projection, live: string, from: LogPosition | null): Promise<LogPosition | null> {
    return this.e.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 1)), pg_advisory_xact_lock(hashtextextended(?, 1))', [`projection:${p.name}`, `projection:${shadow.name}`]);
      const row = (await trx('projection_checkpoints').where({ name: shadow.name }).first('position')) as { position: string | null } | undefined;
      if (!row || row.position !== from) throw new CheckpointMoved([shadow.name]);
      let at = from;
      if (!this.oneConnection) {
        // A runner of another process may be committing the live tables from rows it read before the swap: the
        // shadow takes everything committed so far, so that commit's compare-and-set fails and it reads again.
        await writeShadow(trx, p.name, live);
        for (;;) {
          const events = await this.e.store.readAll({ from: at === null ? 'start' : { after: at }, maxCount: this.e.bulkBatchSize });
          const last = events.at(-1);
          if (!last) break;
          const relevant = this.relevant(p, events);
          if (relevant.length) await p.apply(trx, relevant);
          at = last.position;
        }
      }
      const current = (await trx('projection_checkpoints').where({ name: p.name }).first('position')) as { position: string | null } | undefined;
      if (comparePositions(current?.position ?? null, at) > 0) throw new CheckpointMoved([p.name]);
      await swapShadow(trx, p, live, at, this.e.clock.now());
      return at;
    });
  }
}

// A position's place in the log as a number, for the share of a build done (the second part of the token).
function ordinal(position: LogPosition | null): number {
  const m = position === null ? null : /:(\d+)$/.exec(position);
  return m?.[1] ? Number(m[1]) : 0;
}
