// Waiting for read models: the one place that knows how long a read waits for them (PROJECTION_WAIT_MS, then
// ProjectionLagError, which HTTP answers 503 projection_lag). Read-your-writes waits where the call's own commands
// left the log (`trackWrites`: the pipeline's `ctx.readYourWrites()`, and system callers such as the payment webhook);
// `caughtUp` waits for everything committed before now (reads that must also see other callers' writes).
import type { ReadModelRef, Services } from '../context.ts';
import { type LogPosition, laterPosition } from '../eventstore/port.ts';

type Waiting = Pick<Services, 'runner' | 'config'>;

/** Waits until `readModels` have applied `position` (bounded by PROJECTION_WAIT_MS). */
export function waitForReadModels(services: Waiting, position: LogPosition | null, readModels: readonly ReadModelRef[]): Promise<void> {
  return services.runner.waitFor(position, [...readModels], services.config.projectionWaitMs);
}

/** Waits until `readModels` have applied everything committed before now, whoever wrote it. */
export async function caughtUp(services: Waiting & Pick<Services, 'store'>, readModels: readonly ReadModelRef[]): Promise<void> {
  await waitForReadModels(services, await services.store.lastCommittedPosition(), readModels);
}

/** The log positions one call's commands reached, and the wait for read models to apply them. */
export interface Writes {
  /** Notes a position a command reached (a CommandContext's `reached`). */
  reached(position: LogPosition | null): void;
  /** Waits until `readModels` have applied the latest position noted; nothing noted: returns at once. */
  wait(readModels: readonly ReadModelRef[]): Promise<void>;
}

/** Starts noting the positions of one call's commands. */
export function trackWrites(services: Waiting): Writes {
  let latest: LogPosition | null = null;
  return {
    reached(position) {
      latest = laterPosition(latest, position);
    },
    async wait(readModels) {
      if (latest !== null && readModels.length) await waitForReadModels(services, latest, readModels);
    },
  };
}
