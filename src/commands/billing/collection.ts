// billing.invoices.collect (internal): automatic collection of one open invoice, as the collection worker invokes it for each open
// invoice of a customer with auto_collection. Each charge holds its invoice first (a charge attempt on the invoice stream: one
// charge in flight per invoice, issue 26); a success records a payment on the invoice stream (like a manual one); each attempt's
// outcome is also an event on `collection-<invoice id>`.
import { isoDate } from '../../clock.ts';
import type { CommandContext, Services } from '../../context.ts';
import { operation } from '../../contract/operation.ts';
import { InvoiceCollectRequest, InvoiceCollectResult } from '../../contract/schemas/billing-system.ts';
import { chargeDue, chargeToApply, collectable } from '../../domain/billing/collection.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { ChargeAttemptState, InvoiceCommand, InvoiceState } from '../../domain/billing/invoice-events.ts';
import { DomainError } from '../../domain/errors.ts';
import { nameId, newId } from '../../ids.ts';
import type { LoadedAggregate } from '../run.ts';
import { holdInvoiceForCharge } from './charge-attempts.ts';
import { holdListedCharge } from './charges.ts';
import { collections, invoices } from './handlers.ts';
import { settlePageAttempt } from './payment-attempts.ts';
import { layeredGet } from '../../domain/layered.ts';

/** billing.invoices.collect */
export const invoicesCollect = operation({
  id: 'billing.invoices.collect',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Charges an open invoice of an auto-collected customer to its default method when its charge is due (automatic collection).',
  description: 'Internal: the collection worker invokes it for each open invoice of a customer with automatic collection, as the system (job `collection-worker`), caused by the invoice\'s last event.',
  request: InvoiceCollectRequest,
  response: InvoiceCollectResult,
  error: 'billing.InvoiceCollectError',
  errors: billingErrors.list('invoice_not_payable', 'payment_in_progress', 'amount_exceeds_remaining', 'payment_exists'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { services, now } = ctx;
    const orgId = ctx.auth.organizationId ?? '';
    const opts = { orgId, reason: 'automatic collection' };
    const invoiceId = req.invoice_id;
    const state = await collections.load(ctx, invoiceId);
    if (!chargeDue(state, now)) return { outcome: 'not_due' as const };
    // The read model may be behind the invoice's stream (a payment just recorded): charge what the stream says is owed.
    const current = (await invoices.read(ctx, invoiceId, { fresh: true })).state;
    if (collectable(current) === 0) return { outcome: 'not_due' as const };
    const attempt = state.attempts + 1;
    // The first attempt's key is the invoice id; a retry is a new charge with its own key.
    const key = attempt === 1 ? invoiceId : `${invoiceId}:${attempt}`;
    const held = await hold(services, ctx, invoiceId, key, opts);
    if (held === 'in_progress') return { outcome: 'in_progress' as const };
    // Nothing owed any more: paid (or voided) since the read above.
    if (held === null) return { outcome: 'not_due' as const };
    // The owner travels as the provider's metadata, so reconciliation can name the invoice of a charge this call never recorded.
    const owner = { invoice_id: invoiceId, customer_id: current.ref?.customer_id ?? '', organization_id: orgId, attempt_id: held.attempt_id };
    const charge = await services.payments.charge({ method_ref: req.method.provider_ref, amount: held.amount, currency: req.currency, idempotency_key: key, owner });
    let applied = 0;
    if (charge.status === 'succeeded') {
      const payment = { payment_id: nameId('billing-auto-collection', key), currency: req.currency, method: req.method.type, reference: charge.charge_ref, received_on: isoDate(now) };
      const read = await invoices.read(ctx, invoiceId, { fresh: true });
      applied = await applyCharge(ctx, invoiceId, charge.amount, { ...payment, charge_attempt: { attempt_id: held.attempt_id, charged: charge.amount } }, { orgId, customerId: current.ref?.customer_id ?? null }, read);
      if (applied < charge.amount) {
        ctx.logger.warn({ invoice_id: invoiceId, charge_ref: charge.charge_ref, charged: charge.amount, applied, refund_due: charge.amount - applied }, 'automatic collection charged more than the invoice still owed: the rest is listed as a refund due');
      }
    }
    // A payment that ended the attempt already makes this decide nothing.
    const outcome = charge.status === 'succeeded' ? { status: 'succeeded' as const, charge_ref: charge.charge_ref, charged: charge.amount, applied } : { status: 'failed' as const, charge_ref: charge.charge_ref, code: charge.code };
    await invoices.run(ctx, invoiceId, { type: 'EndChargeAttempt', data: { attempt_id: held.attempt_id, outcome } }, opts);
    await collections.run(ctx, invoiceId, {
      type: 'RecordCharge',
      data: {
        invoice_id: invoiceId, attempt, payment_method_id: req.method.id, charge_ref: charge.charge_ref, amount: charge.status === 'succeeded' ? charge.amount : held.amount,
        outcome: charge.status === 'succeeded' ? { status: 'succeeded', applied } : { status: 'failed', code: charge.code },
      },
    }, { orgId });
    return { outcome: charge.status === 'succeeded' ? ('charged' as const) : ('declined' as const) };
  },
});

/**
 * Holds the invoice for this charge under `key`: the attempt to charge (new, or the open one of a pass that stopped
 * mid-charge), 'in_progress' when another charge is in flight (a payment page attempt the provider has not finished), or null when
 * nothing is to be charged (the invoice owes nothing now).
 */
async function hold(services: Services, ctx: CommandContext, invoiceId: string, key: string, opts: { orgId: string; reason: string }): Promise<ChargeAttemptState | 'in_progress' | null> {
  try {
    const held = await holdInvoiceForCharge(ctx, invoiceId, { attempt_id: newId(), provider_key: key, started_by: 'automatic_collection' }, opts, (open) => settlePageAttempt(services, open));
    // A fresh attempt id is never an ended one; the check keeps an ended attempt from ever reaching the provider again.
    return held.status === 'open' ? held : null;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'payment_in_progress') return 'in_progress';
    if (err instanceof DomainError && err.code === 'invoice_not_payable') return null;
    throw err;
  }
}

/** Refusals that mean the invoice changed since it was read: a payment or credit landed, or it was voided. */
const CHANGED_SINCE = new Set(['amount_exceeds_remaining', 'invoice_not_payable', 'payment_exists']);

/**
 * Records a successful charge as a payment of what the invoice still owes of it (normally all of it) and
 * returns the amount applied; 0 when it owes nothing any more. Decided on the invoice's stream as it is
 * at the append (`read`, from before the charge, is re-read after a refusal), so a payment that lands
 * between the charge and its recording is never paid twice over. A charge listed for staff meanwhile (a
 * pass that resumes a charge made before it stopped) is held on its own stream first (holdListedCharge):
 * one staff resolved or are resolving is not applied.
 */
async function applyCharge(
  ctx: CommandContext,
  invoiceId: string,
  charged: number,
  payment: Omit<Extract<InvoiceCommand, { type: 'RecordPayment' }>['data'], 'amount' | 'now'> & { reference: string },
  owner: { orgId: string; customerId: string | null },
  read: LoadedAggregate<InvoiceState>,
): Promise<number> {
  const { orgId } = owner;
  const hold = await holdListedCharge(ctx, {
    charge_ref: payment.reference, invoice_id: invoiceId, payment_id: payment.payment_id, amount: charged, currency: payment.currency,
    organization_id: orgId, customer_id: owner.customerId, reason: 'automatic collection recorded its charge after reconciliation had listed it',
  });
  let loaded = read;
  for (let round = 1; ; round++) {
    // Recorded by an earlier pass that stopped before the attempt event (and, if it held the charge, before saying so).
    const recorded = layeredGet(loaded.state.payments, payment.payment_id);
    if (recorded) {
      if (hold.apply) await hold.done(recorded.amount);
      return recorded.amount;
    }
    if (!hold.apply) return 0;
    const amount = chargeToApply(charged, loaded.state);
    if (amount === 0) {
      await hold.done(0);
      return 0;
    }
    try {
      // A stale `loaded` loses the append race and is decided again on the stream (the same amount).
      // The payment ends the charge attempt in the same append.
      await invoices.run(ctx, invoiceId, { type: 'RecordPayment', data: { ...payment, amount } }, { orgId, reason: 'automatic collection', loaded });
      await hold.done(amount);
      return amount;
    } catch (err) {
      if (!(err instanceof DomainError && CHANGED_SINCE.has(err.code)) || round >= 5) throw err;
      loaded = await invoices.read(ctx, invoiceId, { fresh: true });
    }
  }
}

/** Billing's internal operation of automatic collection. */
export const billingCollectionCommands = [invoicesCollect];
