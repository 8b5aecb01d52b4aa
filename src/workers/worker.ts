// What a background processor is: one idempotent pass over the read models that may append events.
import type { Services } from '../context.ts';

/** A background processor; `runOnce` is safe to repeat (a pass with nothing to do appends nothing). */
export interface Worker<R = unknown> {
  name: string;
  runOnce(services: Services): Promise<R>;
  /** Its own pass interval in ms (a worker whose work users wait for); without one it runs with the others on the common interval. */
  intervalMs?: number;
  /** Ends what it left running in the background for these services (the service is closing). */
  stop?(services: Services): Promise<void>;
}
