// What a background processor is: one idempotent pass over the read models that may append events.
import type { Services } from '../context.ts';

/** A background processor; `runOnce` is safe to repeat (a pass with nothing to do appends nothing). */
export interface Worker<R = unknown> {
  name: string;
  runOnce(services: Services): Promise<R>;
  /** Its own interval when started, instead of the workers' common one (e.g. lookups that must finish in seconds). */
  everyMs?: number;
}
