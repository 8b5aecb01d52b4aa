// Reconciliation worker (issue 26, section 2): asks the payment provider for its charges since the last pass and records, as
// ProviderChargeFound on `charge-<ref>`, every succeeded charge the service does not know (a pass that charged and then stopped, a
// lost answer), so it lands in the refunds-due list, never silently. Its checkpoint is an event on `reconciliation-<provider>`
// (durable, moved only forward); a rerun over the same charges records nothing twice (the charge stream decides found once).
import type { CommandContext, Services } from '../../context.ts';
import type { ProviderCharge } from '../../payments/port.ts';
import type { Worker } from '../worker.ts';
import { CHARGE_ATTEMPT_TTL_MS } from '../../domain/billing/charge-attempt.ts';
import { charges, paymentAttempts, reconciliations } from '../../commands/billing/handlers.ts';
import { resumeProviderPayment } from '../../commands/billing/payment-attempts.ts';
import { IdSource } from '../../ids.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';
import { billingChargesProjection } from '../../projections/billing/charges.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { chargeDoc } from '../../queries/billing/charges.ts';
import { paymentWithReference } from '../../queries/billing/payments.ts';

/**
 * How old a charge must be before a pass compares it: the time a charge attempt holds its invoice (15 minutes), so a charge whose
 * holder is still recording it (a collection pass, a payment page waiting for its notification) is never taken for an unknown one.
 */
export const RECONCILIATION_SETTLE_MS = CHARGE_ATTEMPT_TTL_MS;

/** What one pass did. */
export interface ReconciliationPassResult {
  /** The provider's charges compared (made in [since, until)). */
  listed: number;
  /** Charges recorded as found only at the provider. */
  found: string[];
  /** The checkpoint after the pass: the next one lists from here. */
  until: string | null;
}

const READ_MODELS = [billingChargesProjection, billingPaymentsProjection];

/** Whether the service has any record of the charge: its row in billing.charges, a payment naming it, or its own stream. */
async function known(services: Services, ctx: CommandContext, c: ProviderCharge): Promise<boolean> {
  if (await chargeDoc(services.knex, c.charge_ref)) return true;
  if (await paymentWithReference(services.knex, c.charge_ref)) return true;
  return (await charges.load(ctx, c.charge_ref)).exists;
}

/** One pass over the provider's charges made since the checkpoint and at least RECONCILIATION_SETTLE_MS ago. */
export async function runReconciliationPass(services: Services): Promise<ReconciliationPassResult> {
  const provider = services.payments;
  const now = services.clock.now();
  const ctx: CommandContext = { store: services.store, ids: IdSource.random(now), now, metadata: systemMetadata({ job: 'reconciliation-worker', orgId: null }) };
  const checkpoint = (await reconciliations.load(ctx, provider.name)).until;
  const since = checkpoint === null ? new Date(0) : new Date(checkpoint);
  const until = new Date(now.getTime() - RECONCILIATION_SETTLE_MS);
  if (until.getTime() <= since.getTime()) return { listed: 0, found: [], until: checkpoint };
  await caughtUp(services, READ_MODELS);
  const listed = (await provider.listCharges(since)).filter((c) => Date.parse(c.created_at) < until.getTime());
  const found: string[] = [];
  for (const c of listed) {
    const left = c.amount - c.amount_refunded;
    if (c.status !== 'succeeded' || left <= 0 || (await known(services, ctx, c))) continue;
    // A payment page attempt whose outcome never reached the service: apply the provider's record as the result page would, then look again.
    if (c.owner?.attempt_id) {
      const attempt = await paymentAttempts.load(ctx, c.owner.attempt_id);
      if (attempt.status === 'pending' && (await resumeProviderPayment(services, attempt, READ_MODELS)) && (await known(services, ctx, c))) continue;
    }
    const owner = c.owner;
    const res = await charges.run(ctx, c.charge_ref, {
      type: 'RecordProviderCharge',
      data: {
        charge_ref: c.charge_ref, provider: provider.name, amount: left, currency: c.currency, charged_at: c.created_at,
        organization_id: owner?.organization_id ?? null, customer_id: owner?.customer_id ?? null, invoice_id: owner?.invoice_id ?? null,
      },
    }, { orgId: owner?.organization_id ?? null, reason: 'reconciliation: charged at the provider, unknown at the service' });
    if (res.events.length > 0) found.push(c.charge_ref);
  }
  await reconciliations.run(ctx, provider.name, {
    type: 'RecordReconciliation',
    data: { provider: provider.name, since: checkpoint, until: until.toISOString(), listed: listed.length, found: found.length },
  }, { orgId: null });
  if (found.length) services.logger.warn({ provider: provider.name, found }, 'reconciliation found charges the service never recorded: they are listed as refunds due');
  return { listed: listed.length, found, until: until.toISOString() };
}

/** The reconciliation worker as the composition root runs it. */
export const reconciliationWorker: Worker<ReconciliationPassResult> = { name: 'reconciliation', runOnce: runReconciliationPass };
