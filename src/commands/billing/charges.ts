// billing.refunds-due.refund and .apply (issue 26, section 2): billing staff resolve a charge due back once, by a refund through the
// provider or by applying it to another open invoice of the same customer. The resolution holds the charge first
// (ChargeResolutionStarted on `charge-<ref>`, with the stream's expected revision) and only then moves money, under a key derived
// from the resolution (the provider refund's idempotency key, or the payment id on the invoice), so a retry, a second tab or a
// request that finishes a resolution left in flight makes it happen once.
import { isoDate } from '../../clock.ts';
import { operation } from '../../contract/operation.ts';
import type { CommandContext, RequestContext } from '../../context.ts';
import { RefundDue, RefundDueApplyRequest, RefundDueRefundRequest } from '../../contract/schemas/billing-charges.ts';
import { type PendingResolution, type ResolutionKind, refundDue } from '../../domain/billing/charge.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { amountRemaining } from '../../domain/billing/invoice-events.ts';
import { DomainError } from '../../domain/errors.ts';
import { nameId } from '../../ids.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingChargesProjection } from '../../projections/billing/charges.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { refundDueItem, visibleCharge } from '../../queries/billing/charges.ts';
import { charges, invoices } from './handlers.ts';
import { exampleRefundDue } from '../../contract/examples/billing.ts';

/** What a resolution's money movement came to: done, or refused (the charge stays due). */
type Performed = { ok: true } | { ok: false; error: DomainError };

/**
 * Moves the money of a resolution in flight and records its outcome on the charge: a refund through the provider (its idempotency key
 * is the resolution's, so asking again refunds once), or a payment on the target invoice (its id is the resolution's, so recording it
 * again is `payment_exists`, which is done).
 */
async function perform(ctx: RequestContext, p: PendingResolution): Promise<Performed> {
  const opts = { orgId: p.organization_id, reason: p.reason };
  let outcome: { status: 'refunded'; refund_ref: string } | { status: 'applied'; payment_id: string } | { status: 'failed'; code: string; message: string };
  let error: DomainError | null = null;
  if (p.kind === 'refund') {
    const r = await ctx.services.payments.refund({ charge_ref: p.charge_ref, amount: p.amount, currency: p.currency, idempotency_key: p.key, reason: p.reason });
    if (r.status === 'succeeded') outcome = { status: 'refunded', refund_ref: r.refund_ref };
    else {
      outcome = { status: 'failed', code: r.code, message: r.message };
      error = billingErrors.error('refund_failed', `The provider did not refund charge ${p.charge_ref}: ${r.message}`, { details: { provider_code: r.code } });
    }
  } else {
    const invoiceId = p.target_invoice_id;
    if (invoiceId === null) throw new Error('invariant broken: applying a charge names its invoice');
    outcome = { status: 'applied', payment_id: p.key };
    try {
      await invoices.run(ctx, invoiceId, {
        type: 'RecordPayment',
        data: { payment_id: p.key, amount: p.amount, currency: p.currency, method: 'other', reference: p.charge_ref, received_on: isoDate(ctx.now) },
      }, opts);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      if (err.code !== 'payment_exists') {
        outcome = { status: 'failed', code: err.code, message: err.message };
        error = err;
      }
    }
  }
  await charges.run(ctx, p.charge_ref, { type: 'CompleteResolution', data: { resolution_id: p.resolution_id, outcome } }, opts);
  return error ? { ok: false, error } : { ok: true };
}

/** What a late recording of a charge may do with it (holdListedCharge). */
export type LateChargeHold = { apply: true; done(applied: number): Promise<void> } | { apply: false };

/** A charge without a resolution of this recording to finish: applied as before, nothing to say after. */
const NOTHING_HELD: LateChargeHold = { apply: true, done: async () => {} };

/**
 * A charge recorded late (a collection pass that resumes a charge made before it stopped, a page payment whose outcome comes late)
 * may have been listed for billing staff meanwhile: reconciliation records a charge it cannot match once it is 15 minutes old, and
 * staff may refund it or apply it elsewhere. Applying it to its own invoice as well would pay the invoice with money given back. So
 * when the charge has a stream of its own, its payment on its invoice is held there first, as a resolution applying it to that
 * invoice (with the stream's expected revision, like staff's): whichever starts first wins, and the other moves no money.
 * `apply: false`: staff resolved or are resolving it, so record it as not applied; else record the payment, then `done(applied)`.
 */
export async function holdListedCharge(
  ctx: CommandContext,
  c: { charge_ref: string; invoice_id: string; payment_id: string; amount: number; currency: string; organization_id: string; customer_id: string | null; reason: string },
): Promise<LateChargeHold> {
  const s = (await charges.read(ctx, c.charge_ref, { fresh: true })).state;
  if (!s.exists) return NOTHING_HELD;
  // Derived from the payment, so a rerun of the same recording finds its own resolution.
  const resolutionId = nameId('billing-charge-recorded-late', c.payment_id);
  if (s.resolved) return s.resolved.resolution_id === resolutionId ? NOTHING_HELD : { apply: false };
  if (s.pending && s.pending.resolution_id !== resolutionId) return { apply: false };
  const opts = { orgId: c.organization_id, reason: c.reason };
  if (!s.pending) {
    try {
      await charges.run(ctx, c.charge_ref, {
        type: 'StartResolution',
        data: {
          charge_ref: c.charge_ref, resolution_id: resolutionId, kind: 'apply', target_invoice_id: c.invoice_id, key: c.payment_id, reason: c.reason,
          due: { amount: c.amount, currency: c.currency, organization_id: c.organization_id, customer_id: c.customer_id },
        },
      }, opts);
    } catch (err) {
      if (err instanceof DomainError && (err.code === 'charge_resolution_in_progress' || err.code === 'charge_not_due')) return { apply: false };
      throw err;
    }
  }
  return {
    apply: true,
    async done(applied) {
      // Applied in part (the invoice owed less by then): the rest stays due back, for staff.
      const outcome = applied >= c.amount
        ? { status: 'applied' as const, payment_id: c.payment_id }
        : { status: 'failed' as const, code: applied > 0 ? 'partly_applied' : 'not_applied', message: `${applied} of the ${c.amount} ${c.currency} charged went onto invoice ${c.invoice_id}: the rest is due back.` };
      await charges.run(ctx, c.charge_ref, { type: 'CompleteResolution', data: { resolution_id: resolutionId, outcome } }, opts);
    },
  };
}

/** The checks of an apply before anything is held: the invoice is the customer's, in the charge's currency, open and owing enough. */
async function checkTarget(ctx: RequestContext, invoiceId: string, due: { amount: number; currency: string; customer_id: string | null }): Promise<void> {
  if (due.customer_id === null) throw billingErrors.error('charge_customer_unknown', 'The provider named no customer for this charge: it can only be refunded.');
  const s = (await invoices.read(ctx, invoiceId, { fresh: true })).state;
  if (!s.exists || !s.ref) throw billingErrors.error('invoice_not_found', `No invoice ${invoiceId}.`);
  if (s.ref.customer_id !== due.customer_id) throw billingErrors.error('invoice_customer_mismatch', `Invoice ${invoiceId} belongs to another customer: a charge is applied only to its own customer's invoices.`);
  if (s.ref.currency !== due.currency) throw billingErrors.error('currency_mismatch', `The invoice is in ${s.ref.currency}, the charge in ${due.currency}.`);
  if (s.status !== 'open' && s.status !== 'uncollectible') throw billingErrors.error('invoice_not_payable', `A payment cannot be recorded: the invoice is ${s.status}.`);
  const remaining = amountRemaining(s);
  if (due.amount > remaining) {
    throw billingErrors.error('amount_exceeds_remaining', `The ${due.amount} ${due.currency} due back is more than the ${remaining} ${due.currency} the invoice still owes.`, {
      details: { amount_due: due.amount, amount_remaining: remaining },
    });
  }
}

/** Resolves the charge one way: finishes a resolution left in flight, checks, holds the charge, moves the money, answers the row. */
async function resolve(ctx: RequestContext, chargeRef: string, kind: ResolutionKind, reason: string, targetInvoiceId: string | null) {
  await caughtUp(ctx.services, [billingChargesProjection]);
  const doc = await visibleCharge(ctx, chargeRef);
  // A resolution left in flight (its request stopped, or another tab's is under way) is finished first, under its own key: once.
  const pending = (await charges.read(ctx, chargeRef, { fresh: true })).state.pending;
  if (pending) await perform(ctx, pending);
  const due = refundDue(doc);
  if (!due || doc.currency === null) throw billingErrors.error('charge_not_due', `Nothing is due back on charge ${chargeRef}.`);
  const currency = doc.currency;
  if (targetInvoiceId !== null) await checkTarget(ctx, targetInvoiceId, { amount: due.amount, currency, customer_id: doc.customer_id });
  const resolutionId = ctx.ids.next();
  const key = kind === 'refund' ? `refund-${resolutionId}` : nameId('billing-charge-applied', resolutionId);
  const held = await charges.run(ctx, chargeRef, {
    type: 'StartResolution',
    data: {
      charge_ref: chargeRef, resolution_id: resolutionId, kind, target_invoice_id: targetInvoiceId, key, reason,
      due: { amount: due.amount, currency, organization_id: doc.organization_id, customer_id: doc.customer_id },
    },
  }, { orgId: doc.organization_id, reason });
  const mine = held.state.pending;
  if (!mine || mine.resolution_id !== resolutionId) throw new Error(`invariant broken: charge ${chargeRef} held without this resolution`);
  const done = await perform(ctx, mine);
  await ctx.readYourWrites();
  if (!done.ok) throw done.error;
  return refundDueItem(ctx, await visibleCharge(ctx, chargeRef));
}

/** billing.refunds-due.refund */
export const refundsDueRefund = operation({
  id: 'billing.refunds-due.refund',
  examples: {
    request: { charge_ref: exampleRefundDue.charge_ref, reason: 'Customer paid twice; card charge returned' },
    response: {
      ...exampleRefundDue, amount_due: 0, why: null, status: 'refunded',
      resolution: { kind: 'refund', amount: 12000, reason: 'Customer paid twice; card charge returned', at: '2026-02-04T10:00:00.000Z', refund_ref: 're_sandbox_9Qp4Zx', invoice_id: null, payment_id: null },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Refunds what is due back on a charge through the payment provider, with a reason; the charge leaves the refunds-due list.',
  description:
    'One resolution per charge: a second request (a retry, another tab) finds it refunded (409 charge_not_due) or being resolved (409 charge_resolution_in_progress) and refunds nothing more. '
    + 'A refund the provider refuses is 409 refund_failed and leaves the charge due.',
  request: RefundDueRefundRequest,
  response: RefundDue,
  error: 'billing.RefundDueRefundError',
  errors: billingErrors.list('invalid_request', 'charge_not_found', 'charge_not_due', 'charge_resolution_in_progress', 'refund_failed', 'concurrency_conflict'),
  access: 'billing_staff',
  write: true,
  readModels: [billingChargesProjection, billingInvoicesProjection, billingPaymentsProjection],
  handle: (ctx, req) => resolve(ctx, req.charge_ref, 'refund', req.reason, null),
});

/** The customer's February invoice, in the apply example. */
const nextInvoiceId = '0193c4e4-6d1a-7b2f-9c3e-4a5b6c7d8e9f';

/** billing.refunds-due.apply */
export const refundsDueApply = operation({
  id: 'billing.refunds-due.apply',
  examples: {
    // Kept as a payment of the customer's next open invoice instead of refunded.
    request: { charge_ref: exampleRefundDue.charge_ref, invoice_id: nextInvoiceId, reason: 'Customer asked to keep it against February' },
    response: {
      ...exampleRefundDue, amount_due: 0, why: null, status: 'applied',
      resolution: { kind: 'apply', amount: 12000, reason: 'Customer asked to keep it against February', at: '2026-02-04T10:00:00.000Z', refund_ref: null, invoice_id: nextInvoiceId, payment_id: '0193c4e5-1b2c-7d3e-8f40-5a6b7c8d9e0f' },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Applies what is due back on a charge to another open invoice of the same customer (a payment on it, method `other`, reference = the charge), with a reason.',
  description:
    'The invoice must be the same customer\'s (409 invoice_customer_mismatch), in the charge\'s currency (400 currency_mismatch), open or uncollectible (409 invoice_not_payable) '
    + 'and owe at least the amount due (409 amount_exceeds_remaining); a charge the provider named no customer for can only be refunded (409 charge_customer_unknown).',
  request: RefundDueApplyRequest,
  response: RefundDue,
  error: 'billing.RefundDueApplyError',
  errors: billingErrors.list(
    'invalid_request', 'charge_not_found', 'charge_not_due', 'charge_resolution_in_progress', 'charge_customer_unknown', 'invoice_not_found', 'invoice_customer_mismatch',
    'currency_mismatch', 'invoice_not_payable', 'amount_exceeds_remaining', 'concurrency_conflict',
  ),
  access: 'billing_staff',
  write: true,
  readModels: [billingChargesProjection, billingInvoicesProjection, billingPaymentsProjection],
  handle: (ctx, req) => resolve(ctx, req.charge_ref, 'apply', req.reason, req.invoice_id),
});

/** Write operations of refunds due. */
export const billingChargeCommands = [refundsDueRefund, refundsDueApply];
