// billing.provider-charges.reconcile (internal, issue 26 section 2): one reconciliation pass, as the reconciliation worker invokes it
// as the system. Asks the payment provider for its charges since the last pass and records, as ProviderChargeFound on
// `charge-<ref>`, every succeeded charge the service does not know (a pass that charged and then stopped, a lost answer), so it lands
// in the refunds-due list, never silently. The checkpoint is an event on `reconciliation-<provider>` (durable, moved only forward);
// a rerun over the same charges records nothing twice (the charge stream decides found once).
import { type CommandContext, type Services, systemAuth } from '../../context.ts';
import { operation } from '../../contract/operation.ts';
import { ReconcileRequest, ReconcileResult } from '../../contract/schemas/billing-charges.ts';
import { CHARGE_ATTEMPT_TTL_MS } from '../../domain/billing/charge-attempt.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { ProviderCharge } from '../../payments/port.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingChargesProjection } from '../../projections/billing/charges.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { chargeDoc } from '../../queries/billing/charges.ts';
import { paymentWithReference } from '../../queries/billing/payments.ts';
import { charges, paymentAttempts, reconciliations } from './handlers.ts';
import { paymentAttemptsResume } from './payment-attempts.ts';

/**
 * How old a charge must be before a pass compares it: the time a charge attempt holds its invoice (15 minutes), so a charge whose
 * holder is still recording it (a collection pass, a payment page waiting for its notification) is never taken for an unknown one.
 */
export const RECONCILIATION_SETTLE_MS = CHARGE_ATTEMPT_TTL_MS;

const READ_MODELS = [billingChargesProjection, billingPaymentsProjection];

/** Whether the service has any record of the charge: its row in billing.charges, a payment naming it, or its own stream. */
async function known(services: Services, ctx: CommandContext, c: ProviderCharge): Promise<boolean> {
  if (await chargeDoc(services.knex, c.charge_ref)) return true;
  if (await paymentWithReference(services.knex, c.charge_ref)) return true;
  return (await charges.load(ctx, c.charge_ref)).exists;
}

/** A payment page attempt whose outcome never reached the service: its provider record is applied as the result page would (true when it was). */
async function settledPageAttempt(services: Services, attemptId: string): Promise<boolean> {
  const attempt = await paymentAttempts.load(services, attemptId);
  if (attempt.status !== 'pending' || !attempt.started) return false;
  const causation = await causedBy(services.store, paymentAttempts.stream(attemptId));
  const { body } = await services.invoke(paymentAttemptsResume, { attempt_id: attemptId, visible: false }, { auth: systemAuth('payment-provider', attempt.started.organization_id), causation });
  if (body.applied) await caughtUp(services, READ_MODELS);
  return body.applied;
}

/** billing.provider-charges.reconcile */
export const providerChargesReconcile = operation({
  id: 'billing.provider-charges.reconcile',
  surface: 'internal',
  tags: ['Billing'],
  summary: "Compares the payment provider's charges since the last pass with the service's records and records each one the service does not know.",
  description:
    'Internal: invoked by the reconciliation worker as the system (job `reconciliation-worker`). Compares charges made since the checkpoint and at least 15 minutes ago; '
    + 'an unknown succeeded charge becomes ProviderChargeFound (listed by billing.refunds-due.list as `unknown_at_service`). Repeating a pass records nothing twice.',
  request: ReconcileRequest,
  response: ReconcileResult,
  error: 'billing.ReconcileError',
  errors: billingErrors.list('concurrency_conflict'),
  access: 'system',
  write: true,
  async handle(ctx) {
    const { services, now } = ctx;
    const provider = services.payments;
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
      if (c.owner?.attempt_id && (await settledPageAttempt(services, c.owner.attempt_id)) && (await known(services, ctx, c))) continue;
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
    if (found.length) ctx.logger.warn({ provider: provider.name, found }, 'reconciliation found charges the service never recorded: they are listed as refunds due');
    return { listed: listed.length, found, until: until.toISOString() };
  },
});

/** Billing's internal operations of reconciliation. */
export const billingReconciliationCommands = [providerChargesReconcile];
