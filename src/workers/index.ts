// Background processors: run on an interval by `work` and `start`, or one pass at a time by tests (runOnce).
// Every pass is measured (/metrics), its last outcome kept (/readyz) and one line logged with what it did.
import { pause } from '../pause.ts';
import type { Services } from '../context.ts';
import type { Worker } from './worker.ts';

/** What one pass of every worker did, by worker name. */
export type WorkersPassResult = Record<string, unknown>;

/** How a worker's last pass went, as /readyz shows it. */
export interface WorkerStatus {
  name: string;
  /** When it last finished a pass without failing (null: not yet in this process). */
  last_success: string | null;
  /** The error of its last pass, when that pass failed. */
  failing: string | null;
}

/** The service's background workers. */
export class Workers {
  private abort: AbortController | null = null;
  private loop: Promise<void> | null = null;
  private readonly statuses = new Map<string, WorkerStatus>();

  constructor(
    private readonly services: Services,
    private readonly workers: Worker[],
  ) {}

  /** One pass of every worker (or of the one named), now (a failure is thrown, after it was counted). */
  async runOnce(only?: string): Promise<WorkersPassResult> {
    const result: WorkersPassResult = {};
    for (const w of this.workers) if (only === undefined || w.name === only) result[w.name] = await this.runOne(w);
    return result;
  }

  /** The workers' names. */
  names(): string[] {
    return this.workers.map((w) => w.name);
  }

  /** The last outcome of every worker that ran in this process. */
  status(): WorkerStatus[] {
    return [...this.statuses.values()];
  }

  /** Runs a pass every `intervalMs` until stopped (a worker with its own interval on its own loop); a failed pass is logged and retried on the next tick. */
  start(intervalMs = 60_000): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    const common = this.workers.filter((w) => w.intervalMs === undefined);
    const loops = [this.every(intervalMs, common, abort.signal, true), ...this.workers.filter((w) => w.intervalMs !== undefined).map((w) => this.every(w.intervalMs ?? intervalMs, [w], abort.signal, false))];
    this.loop = Promise.all(loops).then(() => undefined);
  }

  // `always`: the common pass logs a line every time; a worker on its own (second-long) interval only when it did something.
  private async every(intervalMs: number, workers: Worker[], signal: AbortSignal, always: boolean): Promise<void> {
    while (!signal.aborted && workers.length > 0) {
      const started = Date.now();
      const did: Record<string, number> = {};
      const failed: string[] = [];
      for (const w of workers) {
        try {
          did[w.name] = countItems(await this.runOne(w));
        } catch (err) {
          failed.push(w.name);
          this.services.logger.error({ err, worker: w.name }, 'worker pass failed');
        }
      }
      const busy = failed.length > 0 || Object.values(did).some((n) => n > 0);
      if (always || busy) this.services.logger.info({ items: did, failed, ms: Date.now() - started }, 'worker pass');
      await pause(intervalMs, signal); // aborted: stopping
    }
  }

  // One measured pass of one worker.
  private async runOne(w: Worker): Promise<unknown> {
    const { metrics, clock } = this.services;
    const end = metrics.workerPassDuration.startTimer({ worker: w.name });
    try {
      const result = await w.runOnce(this.services);
      metrics.workerPasses.inc({ worker: w.name, result: 'ok' });
      metrics.workerItems.inc({ worker: w.name }, countItems(result));
      metrics.workerLastSuccess.set({ worker: w.name }, clock.now().getTime() / 1000);
      this.statuses.set(w.name, { name: w.name, last_success: clock.now().toISOString(), failing: null });
      return result;
    } catch (err) {
      metrics.workerPasses.inc({ worker: w.name, result: 'failed' });
      metrics.workerFailures.inc({ worker: w.name });
      const before = this.statuses.get(w.name);
      this.statuses.set(w.name, { name: w.name, last_success: before?.last_success ?? null, failing: err instanceof Error ? err.message.slice(0, 300) : String(err) });
      throw err;
    } finally {
      end();
    }
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = null;
    this.abort = null;
    for (const w of this.workers) await w.stop?.(this.services);
  }
}

/** What a pass did, as one number: a count it returned, or the lengths and counts in its result (invoiced ids, purged rows...). */
function countItems(result: unknown): number {
  if (typeof result === 'number') return Number.isFinite(result) && result > 0 ? result : 0;
  if (Array.isArray(result)) return result.length;
  if (result && typeof result === 'object') return Object.values(result).reduce<number>((n, v) => n + (typeof v === 'number' || Array.isArray(v) ? countItems(v) : 0), 0);
  return 0;
}
