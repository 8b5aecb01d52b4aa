// Reads whose numbers must agree with invoices.get right after a write (statements, overdue status) first let their read models catch up.
import type { ReadModelRef, RequestContext } from '../../context.ts';

/**
 * Waits until `readModels` have applied everything committed before this request (bounded by
 * PROJECTION_WAIT_MS, then 503 projection_lag). Writes of other areas wait only for their own read
 * models, so without this a statement read just after a payment could miss it.
 */
export async function caughtUp(ctx: RequestContext, readModels: ReadModelRef[]): Promise<void> {
  await ctx.waitFor(await ctx.services.store.lastCommittedPosition(), readModels);
}
