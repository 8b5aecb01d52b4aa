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

  /** One pass of every worker, now. */
  async runOnce(): Promise<WorkersPassResult> {
    return this.pass(this.workers);
  }

  private async pass(workers: Worker[]): Promise<WorkersPassResult> {
    const result: WorkersPassResult = {};
    for (const w of workers) result[w.name] = await w.runOnce(this.services);
    return result;
  }

  /** Runs a pass every `intervalMs` until stopped; a failed pass is logged and retried on the next tick. */
  start(intervalMs = 60_000): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    // Workers with their own interval loop apart; the rest share one loop.
    const groups = [{ workers: this.workers.filter((w) => w.everyMs === undefined), ms: intervalMs }, ...this.workers.flatMap((w) => (w.everyMs === undefined ? [] : [{ workers: [w], ms: w.everyMs }]))];
    this.loop = Promise.all(
      groups.map(async ({ workers, ms }) => {
        while (!abort.signal.aborted) {
          try {
            await this.pass(workers);
          } catch (err) {
            this.services.logger.error({ err }, 'worker pass failed');
          }
          await delay(ms, undefined, { signal: abort.signal }).catch(() => {}); // aborted: stopping
        }
      }),
    ).then(() => {});
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = null;
    this.abort = null;
  }
}

