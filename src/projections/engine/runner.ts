// The projection daemon: one tail reader per process feeds every caught-up projection; the others catch up alone.
// This file wires the parts and keeps the runner's modes (daemon, catchUp, rebuild); each part has its own file:
// tail.ts, catch-up.ts, checkpoints.ts, failures.ts, waits.ts, commit.ts, health.ts.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type EventStore, type LogPosition, comparePositions } from '../../eventstore/port.ts';
import type { Clock } from '../../clock.ts';
import type { Metrics } from '../../metrics.ts';
import type { DbChannel } from '../../db-channel.ts';
import type { ReadModelProgress, ReadModelRef } from '../../context.ts';
import type { ProjectionStatus } from '../../read-model-status.ts';
import type { Projection } from '../projection.ts';
import { forgetDocuments } from '../documents/cache.ts';
import { type BuildProgress, BlueGreen } from './blue-green.ts';
import { CatchUp } from './catch-up.ts';
import { Checkpoints } from './checkpoints.ts';
import { checkpointNews } from './remote-progress.ts';
import type { Engine, Mode } from './engine.ts';
import { Failures } from './failures.ts';
import { ProjectionHealth, storedFailures } from './health.ts';
import { eventsBehind, projectionStatuses } from './readiness.ts';
import { Tail } from './tail.ts';
import { Waits } from './waits.ts';

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
  /** The database is one connection (embedded PGlite): a transaction cannot read the log meanwhile. */
  oneConnection?: boolean;
}

/** Drives every projection of the service. One runner may be active per projection across processes. */
export class ProjectionRunner implements ReadModelProgress {
  /** Each projection's state as operators see it (logs, metrics). */
  readonly health: ProjectionHealth;
  private readonly engine: Engine;
  private readonly checkpoints: Checkpoints;
  private readonly modes = new Map<string, Mode>();
  private readonly waits: Waits;
  private readonly failures: Failures;
  private readonly catchUps: CatchUp;
  private readonly tail: Tail;
  private readonly blueGreen: BlueGreen;
  /** Projections whose new version is being built beside the live one (prepare found them), built while the daemon runs. */
  private building: Projection[] = [];
  private abort = new AbortController();
  private running = false;
  private failureWatch: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    readonly projections: Projection[],
    private readonly opts: RunnerOptions,
  ) {
    const names = new Set<string>();
    for (const p of projections) {
      if (names.has(p.name)) throw new Error(`duplicate projection name ${p.name}`);
      names.add(p.name);
    }
    const batchSize = opts.batchSize ?? 1000;
    this.health = new ProjectionHealth(opts.logger, opts.metrics);
    // A `serve` process waiting for a stored checkpoint learns it from the daemon's NOTIFY, taken when it is sent.
    this.checkpoints = new Checkpoints(knex, opts.clock, () => {
      if (this.running) opts.progressChannel?.notify(() => checkpointNews(this.checkpoints.allStored()));
    });
    this.waits = new Waits(knex, { position: (n) => this.checkpoints.of(n), state: (n) => this.health.state(n), running: () => this.running }, opts.progressChannel);
    this.engine = {
      knex,
      store,
      projections,
      logger: opts.logger,
      clock: opts.clock,
      batchSize,
      bulkBatchSize: opts.bulkBatchSize ?? Math.max(batchSize, 5000),
      checkpoints: this.checkpoints,
      health: this.health,
      waits: this.waits,
      modes: this.modes,
      running: () => this.running,
      signal: () => this.abort.signal,
    };
    this.failures = new Failures(this.engine, (p) => this.catchUps.goSolo(p, { reload: true, delayMs: 0 }));
    this.catchUps = new CatchUp(this.engine, this.failures, () => this.tail.poke());
    this.tail = new Tail(this.engine, (p, events) => this.failures.relevant(p, events), (p, start) => this.catchUps.goSolo(p, start));
    this.blueGreen = new BlueGreen(this.engine, (p, events) => this.failures.relevant(p, events), (p) => this.hold([p]), opts.oneConnection ?? oneConnectionPool(knex));
  }

  /** Makes sure every projection has a checkpoint row; a changed version empties its tables for a replay. */
  async prepare(): Promise<void> {
    for (const p of this.projections) forgetDocuments(this.knex, p.tables);
    await this.checkpoints.prepare(this.projections, this.opts.logger);
    await this.failures.loadSkips(this.projections);
    this.building = await this.blueGreen.pending(this.projections);
    // A failure stays until an operator retries, skips or rebuilds: a restart does not hide it.
    const failures = await storedFailures(this.knex);
    const head = await this.store.lastCommittedPosition();
    for (const p of this.projections) {
      const failure = failures.get(p.name);
      if (failure) this.health.set(p.name, 'failed', failure);
      else this.health.set(p.name, comparePositions(this.checkpoints.of(p.name), head) < 0 ? 'catching_up' : 'running');
    }
  }

  /** Starts the daemon: the projections at the newest checkpoint share the tail, the others catch up first. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    for (const p of this.projections) this.modes.set(p.name, this.health.state(p.name) === 'failed' ? 'failed' : 'ready');
    this.tail.start(this.abort.signal);
    this.failureWatch = this.failures.watch(this.abort.signal);
    for (const p of this.building) this.blueGreen.run(p, () => (this.building = this.building.filter((b) => b !== p)));
  }

  /** Stops the daemon after its current batch. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort();
    await Promise.allSettled([this.tail.stopped(), this.failureWatch, this.catchUps.settled(), this.blueGreen.settled()]);
    this.modes.clear();
    // Best effort: store checkpoints that only moved in memory, so a restart re-reads less. A failure costs only a re-read
    // (the rows are idempotent to apply again), but it is said: a test or an operator then sees why a checkpoint lags.
    for (const p of this.projections) {
      await this.checkpoints.flush(p).catch((err: unknown) => this.opts.logger.warn({ projection: p.name, err }, 'checkpoint moved only in memory was not stored at stop'));
    }
  }

  /** Processes everything committed so far, for the CLI and tests. */
  async catchUp(onProgress?: (name: string, events: number) => void, only: Projection[] = this.projections): Promise<void> {
    if (this.running) {
      // The daemon is at work: wait for it rather than race it, then store what moved only in memory.
      await this.waitFor(await this.store.headPosition(), only, 600_000);
      for (const p of only) await this.checkpoints.flush(p);
      return;
    }
    await this.catchUps.drainToHead(only, onProgress);
  }

  /**
   * Rebuilds the named read models (all when none named) from the log beside the live ones, which keep serving
   * and following the log, and swaps each in once caught up (blue-green.ts).
   */
  async rebuild(names: string[] = [], onProgress?: (progress: BuildProgress) => void): Promise<void> {
    const chosen = names.length ? this.projections.filter((p) => names.includes(p.name)) : this.projections;
    const unknown = names.filter((n) => !this.projections.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projection(s): ${unknown.join(', ')}; known: ${this.projections.map((p) => p.name).join(', ')}`);
    for (const p of chosen) {
      // A build the daemon runs here (a new version) is a rebuild from the start of the log already.
      const underWay = this.blueGreen.underWay(p);
      if (underWay) {
        await underWay;
        continue;
      }
      await this.failures.loadSkips([p]);
      await this.blueGreen.begin(p);
      await this.blueGreen.build(p, { onProgress });
    }
  }

  /** Waits until the new versions being built beside live ones in this process are swapped in (or the daemon stops). */
  async builds(): Promise<void> {
    await this.blueGreen.settled();
  }

  /** Takes projections away from the daemon (after the tail's current step nothing here writes their tables) until the returned release is called. */
  private async hold(chosen: Projection[]): Promise<() => void> {
    if (!this.running) return () => {};
    for (const p of chosen) this.modes.set(p.name, 'held');
    await this.tail.idleStep();
    await this.catchUps.settled(chosen);
    return () => {
      if (this.running) {
        for (const p of chosen) this.modes.set(p.name, this.health.state(p.name) === 'failed' ? 'failed' : 'ready');
        this.tail.poke();
      } else {
        for (const p of chosen) this.modes.delete(p.name);
      }
    };
  }

  /** Waits until every given read model has processed `position` (read-your-writes). */
  waitFor(position: LogPosition | null, readModels: ReadModelRef[], timeoutMs: number): Promise<void> {
    return this.waits.waitFor(position, readModels, timeoutMs);
  }

  /** The checkpoint of each projection as this process last saw it. */
  positions(): Record<string, LogPosition | null> {
    return this.checkpoints.all();
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
    return this.running ? this.failures.resumeCleared() : [];
  }

  /** Lag per projection, for /metrics. */
  async lags(): Promise<Map<string, number>> {
    return new Map((await this.statuses()).map((s) => [s.name, s.lag_seconds]));
  }

  /** Events each projection has yet to apply, counted up to `cap` (for /metrics). */
  async lagEvents(cap: number): Promise<Map<string, number>> {
    return eventsBehind(this.store, new Map((await this.statuses()).map((s) => [s.name, s.position])), cap);
  }
}

// Unless told, a pool of one connection (embedded PGlite) is found from the pool itself: a build must not hold the only connection while it reads the log.
function oneConnectionPool(knex: Knex): boolean {
  return (knex.client as { pool?: { max?: number } }).pool?.max === 1;
}
