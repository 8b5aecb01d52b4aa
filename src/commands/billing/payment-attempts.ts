// Payments made on the payment page: an attempt is started by a member (holding its invoice first: one charge in flight per
// invoice), charged by the provider, and its outcome (a verified notification) records the payment on the invoice stream exactly
// as automatic collection does, ending the invoice's charge attempt.
import { isoDate } from '../../clock.ts';
import type { CommandContext, ReadModelRef, Services } from '../../context.ts';
import type { PaymentAttemptState } from '../../domain/billing/payment-attempt.ts';
import type { ChargeAttemptState } from '../../domain/billing/invoice-events.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { DomainError } from '../../domain/errors.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { nameId } from '../../ids.ts';
import { NotificationRejected, type ProviderPayment } from '../../payments/port.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { invoices, paymentAttempts } from './handlers.ts';
import { providerContext } from './payment-methods.ts';
import { holdInvoiceForCharge, holdsInvoice } from './charge-attempts.ts';

/** The payment recorded on the invoice for an attempt: derived from the attempt, so a repeated notification cannot record it twice. */
export function attemptPaymentId(attemptId: string): string {
  return nameId('billing-payment-page', attemptId);
}

/** What a member asks to pay; the amount is decided on the invoice's stream (what it owes when the attempt starts). */
export interface AttemptStart {
  attempt_id: string;
  invoice_id: string;
  customer_id: string;
  organization_id: string;
  currency: string;
  payment_method_id: string | null;
  method_type: 'card' | 'bank_debit';
}

/**
 * Holds the invoice for the attempt (its id is the provider's idempotency key), then starts (or, for the same form sent again,
 * finds) the attempt; answers its state. Another charge in flight is `payment_in_progress` (409), unless the provider's record
 * says that charge is over (a page attempt whose notification was lost): its outcome is applied first and the start decided again.
 */
export async function startPaymentAttempt(services: Services, ctx: CommandContext, start: AttemptStart): Promise<PaymentAttemptState> {
  const opts = { orgId: start.organization_id, reason: 'payment page' };
  const held = await holdInvoiceForCharge(ctx, start.invoice_id, { attempt_id: start.attempt_id, provider_key: start.attempt_id, started_by: 'payment_page' }, opts, (open) => settlePageAttempt(services, open));
  const res = await paymentAttempts.run(ctx, start.attempt_id, { type: 'StartPaymentAttempt', data: { ...start, amount: held.amount } }, opts);
  return res.state;
}

/**
 * The provider's payment for a started attempt. Only the attempt that holds its invoice may create one, so a form sent again after
 * its attempt ended or expired moves no money: it gets the provider's existing payment for the attempt, or null when there is none.
 */
export async function attemptPayment(services: Services, started: NonNullable<PaymentAttemptState['started']>, method_ref: string | null, return_url: string): Promise<{ payment: ProviderPayment | null; holds: boolean }> {
  const provider = services.payments;
  if (!(await holdsInvoice(services, started.invoice_id, started.attempt_id))) return { payment: await provider.findPayment(started.attempt_id), holds: false };
  const { attempt_id, invoice_id, customer_id, organization_id, amount, currency } = started;
  const payment = await provider.createPayment({ owner: { attempt_id, invoice_id, customer_id, organization_id }, amount, currency, method_ref, return_url, idempotency_key: attempt_id });
  return { payment, holds: true };
}

/**
 * Ends a page attempt in flight whose provider record is final (its notification lost, its payer gone) by applying that record;
 * true when it did. Another starter's attempt, or one the provider has not finished, is left to its holder or its time.
 */
export async function settlePageAttempt(services: Services, open: ChargeAttemptState): Promise<boolean> {
  if (open.started_by !== 'payment_page') return false;
  try {
    return await resumeProviderPayment(services, await paymentAttempts.load(services, open.attempt_id));
  } catch (err) {
    if (err instanceof NotificationRejected) return false;
    throw err;
  }
}

/** Applies a provider's final word on a payment: a success records the payment on the invoice, then the outcome on the attempt; a repeat appends nothing. */
export async function applyProviderPayment(ctx: CommandContext, payment: ProviderPayment, notificationId: string | null): Promise<LogPosition | null> {
  const attemptId = payment.owner.attempt_id;
  const state = await paymentAttempts.load(ctx, attemptId);
  const started = state.started;
  if (!started || started.invoice_id !== payment.owner.invoice_id) throw billingErrors.error('payment_attempt_not_found', 'No such payment attempt.');
  if (state.status !== 'pending' || (payment.status !== 'succeeded' && payment.status !== 'failed')) return null;
  if (payment.amount !== started.amount || payment.currency !== started.currency) throw new NotificationRejected('the payment does not match its attempt');
  let position: LogPosition | null = null;
  const opts = { orgId: started.organization_id, reason: 'paid on the payment page' };
  // The invoice's charge attempt ends first, then the attempt's own stream: a stop in between is finished by the next delivery or resume.
  if (payment.status === 'failed') {
    const failure = payment.failure ?? { code: 'payment_failed', message: 'The payment failed.' };
    const end = await invoices.run(ctx, started.invoice_id, { type: 'EndChargeAttempt', data: { attempt_id: attemptId, outcome: { status: 'failed', charge_ref: payment.charge_ref, code: failure.code } } }, opts);
    const res = await paymentAttempts.run(ctx, attemptId, { type: 'RecordPaymentOutcome', data: { provider_ref: payment.ref, notification_id: notificationId, outcome: { status: 'failed', ...failure } } }, opts);
    return res.position ?? end.position;
  }
  const paymentId = attemptPaymentId(attemptId);
  const chargeRef = payment.charge_ref ?? payment.ref;
  let applied = true;
  try {
    const rec = await invoices.run(ctx, started.invoice_id, {
      type: 'RecordPayment',
      data: {
        payment_id: paymentId, amount: started.amount, currency: started.currency, method: started.method_type, reference: chargeRef, received_on: isoDate(ctx.now),
        charge_attempt: { attempt_id: attemptId, charged: payment.amount },
      },
    }, opts);
    position = rec.position;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // Recorded by an earlier delivery that stopped before the attempt's outcome: done. Paid meanwhile by other means: the money is
    // the customer's, kept on the attempt as not applied (listed as a refund due: billing.refunds-due.list).
    if (err.code !== 'payment_exists') applied = false;
    const end = await invoices.run(ctx, started.invoice_id, {
      type: 'EndChargeAttempt',
      data: { attempt_id: attemptId, outcome: { status: 'succeeded', charge_ref: chargeRef, charged: payment.amount, applied: applied ? started.amount : 0 } },
    }, opts);
    position = end.position;
  }
  const res = await paymentAttempts.run(ctx, attemptId, {
    type: 'RecordPaymentOutcome',
    data: { provider_ref: payment.ref, notification_id: notificationId, outcome: { status: 'succeeded', charge_ref: chargeRef, payment_id: paymentId, applied } },
  }, opts);
  return res.position ?? position;
}

/** What a payment's outcome changes: who applies one waits for these before answering the payer. */
export const paymentOutcomeReadModels = [billingInvoicesProjection, billingPaymentsProjection, billingStatementsProjection];

/**
 * Asks the provider about an attempt still pending, whose notification may be lost, and applies a final answer as the
 * notification would have (notification id null); repeating it appends nothing. True when it applied one, then once
 * `readModels` show it.
 */
export async function resumeProviderPayment(services: Services, attempt: PaymentAttemptState, readModels: readonly ReadModelRef[] = []): Promise<boolean> {
  const started = attempt.started;
  if (attempt.status !== 'pending' || !started) return false;
  const seen = await services.payments.findPayment(started.attempt_id);
  if (!seen || seen.owner.attempt_id !== started.attempt_id || (seen.status !== 'succeeded' && seen.status !== 'failed')) return false;
  const ctx = providerContext(services, started.organization_id, readModels);
  const position = await applyProviderPayment(ctx, seen, null);
  await ctx.readYourWrites();
  return position !== null;
}
