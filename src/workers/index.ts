// Background processors: run on an interval by `work` and `start`, or one pass at a time by tests (runOnce).
import { setTimeout as delay } from 'node:timers/promises';
import type { Services } from '../api/context.ts';
import { type OverduePassResult, runOverduePass } from './overdue.ts';

/** What one pass of every worker did. */
export interface WorkersPassResult {
  overdue: OverduePassResult;
}

/** The service's background workers. */
export class Workers {
  private abort: AbortController | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly services: Pick<Services, 'knex' | 'store' | 'clock' | 'config' | 'logger'>) {}

  /** One pass of every worker, now. */
  async runOnce(): Promise<WorkersPassResult> {
    return { overdue: await runOverduePass(this.services) };
  }

  /** Runs a pass every `intervalMs` until stopped; a failed pass is logged and retried on the next tick. */
  start(intervalMs = 60_000): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = (async () => {
      while (!abort.signal.aborted) {
        try {
          await this.runOnce();
        } catch (err) {
          this.services.logger.error({ err }, 'worker pass failed');
        }
        await delay(intervalMs, undefined, { signal: abort.signal }).catch(() => {}); // aborted: stopping
      }
    })();
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = null;
    this.abort = null;
  }
}

