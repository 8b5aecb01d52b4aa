// Payments made on the payment page: an attempt is started by a member, charged by the provider, and its outcome (a verified
// notification) records the payment on the invoice stream exactly as automatic collection does.
import { isoDate } from '../../clock.ts';
import type { CommandContext, Services } from '../../context.ts';
import type { PaymentAttemptState } from '../../domain/billing/payment-attempt.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { DomainError } from '../../domain/errors.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { nameId } from '../../ids.ts';
import { NotificationRejected, type ProviderPayment } from '../../payments/port.ts';
import { paymentProvider } from '../../payments/sandbox.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { invoices, paymentAttempts } from './handlers.ts';
import { providerContext } from './payment-methods.ts';

/** The payment recorded on the invoice for an attempt: derived from the attempt, so a repeated notification cannot record it twice. */
export function attemptPaymentId(attemptId: string): string {
  return nameId('billing-payment-page', attemptId);
}

/** What a member asks to pay. */
export interface AttemptStart {
  attempt_id: string;
  invoice_id: string;
  customer_id: string;
  organization_id: string;
  amount: number;
  currency: string;
  payment_method_id: string | null;
  method_type: 'card' | 'bank_debit';
}

/** Starts (or, for the same form sent again, finds) an attempt; answers its state. */
export async function startPaymentAttempt(ctx: CommandContext, start: AttemptStart): Promise<PaymentAttemptState> {
  const res = await paymentAttempts.run(ctx, start.attempt_id, { type: 'StartPaymentAttempt', data: start }, { orgId: start.organization_id, reason: 'payment page' });
  return res.state;
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
  if (payment.status === 'failed') {
    const failure = payment.failure ?? { code: 'payment_failed', message: 'The payment failed.' };
    const res = await paymentAttempts.run(ctx, attemptId, { type: 'RecordPaymentOutcome', data: { provider_ref: payment.ref, notification_id: notificationId, outcome: { status: 'failed', ...failure } } }, opts);
    return res.position;
  }
  const paymentId = attemptPaymentId(attemptId);
  const chargeRef = payment.charge_ref ?? payment.ref;
  let applied = true;
  try {
    const rec = await invoices.run(ctx, started.invoice_id, {
      type: 'RecordPayment',
      data: { payment_id: paymentId, amount: started.amount, currency: started.currency, method: started.method_type, reference: chargeRef, received_on: isoDate(ctx.now) },
    }, opts);
    position = rec.position;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // Recorded by an earlier delivery that stopped before the attempt's outcome: done. Paid meanwhile by other means: the money is
    // the customer's, kept on the attempt as not applied (refunds are not built yet: billing staff refund by hand).
    if (err.code !== 'payment_exists') applied = false;
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
 * notification would have (notification id null); repeating it appends nothing. The position to wait for, or null.
 */
export async function resumeProviderPayment(services: Services, attempt: PaymentAttemptState): Promise<LogPosition | null> {
  const started = attempt.started;
  if (attempt.status !== 'pending' || !started) return null;
  const seen = await paymentProvider(services).findPayment(started.attempt_id);
  if (!seen || seen.owner.attempt_id !== started.attempt_id || (seen.status !== 'succeeded' && seen.status !== 'failed')) return null;
  return applyProviderPayment(providerContext(services, started.organization_id), seen, null);
}
