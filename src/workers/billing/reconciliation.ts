// Reconciliation worker (issue 26, section 2): each pass invokes billing.provider-charges.reconcile (src/commands/billing/reconciliation.ts)
// as the system (job `reconciliation-worker`), caused by the provider's last reconciliation event: the provider's charges since the last
// pass are compared with the service's records, and every charge only the provider knew lands in the refunds-due list.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { providerChargesReconcile } from '../../commands/billing/reconciliation.ts';
import { reconciliations } from '../../commands/billing/handlers.ts';
import { causedBy } from '../../pipeline/causation.ts';

export { RECONCILIATION_SETTLE_MS } from '../../commands/billing/reconciliation.ts';

/** What one pass did. */
export interface ReconciliationPassResult {
  /** The provider's charges compared (made in [since, until)). */
  listed: number;
  /** Charges recorded as found only at the provider. */
  found: string[];
  /** The checkpoint after the pass: the next one lists from here. */
  until: string | null;
}

/** One pass over the provider's charges made since the checkpoint and at least RECONCILIATION_SETTLE_MS ago. */
export async function runReconciliationPass(services: Services): Promise<ReconciliationPassResult> {
  const causation = await causedBy(services.store, reconciliations.stream(services.payments.name));
  const { body } = await services.invoke(providerChargesReconcile, {}, { auth: systemAuth('reconciliation-worker'), causation });
  return body;
}

/** The reconciliation worker as the composition root runs it. */
export const reconciliationWorker: Worker<ReconciliationPassResult> = { name: 'reconciliation', runOnce: runReconciliationPass };
