// Payments made on the payment page: an attempt is started by a member (holding its invoice first: one charge in flight per
// invoice), charged by the provider, and its outcome (a verified notification) records the payment on the invoice stream exactly
// as automatic collection does, ending the invoice's charge attempt.
import { isoDate } from '../../clock.ts';
import { type CommandContext, type Services, systemAuth } from '../../context.ts';
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
import { holdInvoiceForCharge, holdsInvoice } from './charge-attempts.ts';
import { holdListedCharge } from './charges.ts';
import { operation } from '../../contract/operation.ts';
import { PaymentAttemptResumeRequest, PaymentAttemptResumed } from '../../contract/schemas/billing-system.ts';
import { causedBy } from '../../pipeline/causation.ts';

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
 * true when it did. Another starter's attempt, or one the provider has not finished, is left to its holder or its time. The
 * provider's record is applied by billing.payment-attempts.resume, invoked as the payment provider, caused by the attempt's last event.
 */
export async function settlePageAttempt(services: Services, open: ChargeAttemptState): Promise<boolean> {
  if (open.started_by !== 'payment_page') return false;
  const started = (await paymentAttempts.load(services, open.attempt_id)).started;
  if (!started) return false;
  try {
    const causation = await causedBy(services.store, paymentAttempts.stream(open.attempt_id));
    const { body } = await services.invoke(paymentAttemptsResume, { attempt_id: open.attempt_id, visible: false }, { auth: systemAuth('payment-provider', started.organization_id), causation });
    return body.applied;
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
  const hold = await holdListedCharge(ctx, {
    charge_ref: chargeRef, invoice_id: started.invoice_id, payment_id: paymentId, amount: payment.amount, currency: started.currency,
    organization_id: started.organization_id, customer_id: started.customer_id, reason: "the payment page's outcome came after reconciliation had listed its charge",
  });
  // Listed for staff meanwhile and refunded or applied elsewhere by them: kept on the attempt as not applied.
  let applied = false;
  let ended = false;
  if (hold.apply) {
    try {
      const rec = await invoices.run(ctx, started.invoice_id, {
        type: 'RecordPayment',
        data: {
          payment_id: paymentId, amount: started.amount, currency: started.currency, method: started.method_type, reference: chargeRef, received_on: isoDate(ctx.now),
          charge_attempt: { attempt_id: attemptId, charged: payment.amount },
        },
      }, opts);
      position = rec.position;
      applied = ended = true;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // Recorded by an earlier delivery that stopped before the attempt's outcome: done. Paid meanwhile by other means: the money is
      // the customer's, kept on the attempt as not applied (listed as a refund due: billing.refunds-due.list).
      applied = err.code === 'payment_exists';
    }
    await hold.done(applied ? started.amount : 0);
  }
  if (!ended) {
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

/** billing.payment-attempts.resume */
export const paymentAttemptsResume = operation({
  id: 'billing.payment-attempts.resume',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Asks the provider about a pending payment-page attempt, whose notification may be lost, and applies a final answer.',
  description:
    'Internal: invoked as the payment provider (job `payment-provider`) by the payment page\'s result page and by a charge that finds a page attempt in flight. '
    + 'Applies the provider\'s final record as the notification would have (notification id null); repeating it appends nothing. '
    + '`applied` is true when it applied one; with `visible` it answers once the invoice, payment and statement read models show it.',
  request: PaymentAttemptResumeRequest,
  response: PaymentAttemptResumed,
  error: 'billing.PaymentAttemptResumeError',
  errors: billingErrors.list('payment_attempt_not_found', 'invalid_notification'),
  access: 'system',
  write: true,
  readModels: paymentOutcomeReadModels,
  async handle(ctx, req) {
    const attempt = await paymentAttempts.load(ctx, req.attempt_id);
    const started = attempt.started;
    if (attempt.status !== 'pending' || !started) return { applied: false };
    if (ctx.auth.organizationId !== null && ctx.auth.organizationId !== started.organization_id) throw ctx.errors.error('payment_attempt_not_found', 'No such payment attempt.');
    const seen = await ctx.services.payments.findPayment(started.attempt_id);
    if (!seen || seen.owner.attempt_id !== started.attempt_id || (seen.status !== 'succeeded' && seen.status !== 'failed')) return { applied: false };
    const position = await applyProviderPayment(ctx, seen, null);
    if (req.visible) await ctx.readYourWrites();
    return { applied: position !== null };
  },
});

/** Billing's internal operations of payment-page attempts. */
export const billingPaymentAttemptCommands = [paymentAttemptsResume];
