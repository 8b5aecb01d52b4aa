// Background processors: run on an interval by `work` and `start`, or one pass at a time by tests (runOnce).
import { setTimeout as delay } from 'node:timers/promises';
import type { Services } from '../context.ts';
import type { Worker } from './worker.ts';

/** What one pass of every worker did, by worker name. */
export type WorkersPassResult = Record<string, unknown>;

/** The service's background workers. */
export class Workers {
  private abort: AbortController | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly services: Services,
    private readonly workers: Worker[],
  ) {}

  /** One pass of every worker (or of the one named), now. */
  async runOnce(only?: string): Promise<WorkersPassResult> {
    return this.pass(only === undefined ? this.workers : this.workers.filter((w) => w.name === only));
  }

  private async pass(workers: Worker[]): Promise<WorkersPassResult> {
    const result: WorkersPassResult = {};
    for (const w of workers) result[w.name] = await w.runOnce(this.services);
    return result;
  }

  /** Runs a pass every `intervalMs` until stopped (a worker with its own interval on its own loop); a failed pass is logged and retried on the next tick. */
  start(intervalMs = 60_000): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    const common = this.workers.filter((w) => w.intervalMs === undefined);
    const loops = [this.every(intervalMs, common, abort.signal), ...this.workers.filter((w) => w.intervalMs !== undefined).map((w) => this.every(w.intervalMs ?? intervalMs, [w], abort.signal))];
    this.loop = Promise.all(loops).then(() => undefined);
  }

  private async every(intervalMs: number, workers: Worker[], signal: AbortSignal): Promise<void> {
    while (!signal.aborted && workers.length > 0) {
      for (const w of workers) {
        try {
          await w.runOnce(this.services);
        } catch (err) {
          this.services.logger.error({ err, worker: w.name }, 'worker pass failed');
        }
      }
      await delay(intervalMs, undefined, { signal }).catch(() => {}); // aborted: stopping
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

