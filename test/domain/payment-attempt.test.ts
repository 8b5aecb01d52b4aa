// Payment attempt decider (payment page): started once per form, finished once by the provider's word.
import { type PaymentAttemptCommand, type PaymentAttemptEvent, paymentAttemptDecider } from '../../src/domain/billing/payment-attempt.ts';
import { given } from './given.ts';

const now = '2026-03-01T10:00:00.000Z';
const start = { attempt_id: 'att-1', invoice_id: 'inv-1', customer_id: 'cus-1', organization_id: 'org-1', amount: 1500, currency: 'GBP', payment_method_id: null, method_type: 'card' as const };
const started: PaymentAttemptEvent = { type: 'PaymentAttemptStarted', data: { ...start, started_at: now } };
const outcome = (o: Extract<PaymentAttemptCommand, { type: 'RecordPaymentOutcome' }>['data']['outcome'], id = 'evt-1'): PaymentAttemptCommand => ({
  type: 'RecordPaymentOutcome', data: { provider_ref: 'pi-1', notification_id: id, outcome: o, now },
});
const succeeded: PaymentAttemptEvent = { type: 'PaymentAttemptSucceeded', data: { provider_ref: 'pi-1', charge_ref: 'ch-1', payment_id: 'pay-1', applied: true, notification_id: 'evt-1', at: now } };

describe('payment attempt decider', () => {
  it('starts once; the same form again is nothing; the same attempt for another invoice is refused', () => {
    given(paymentAttemptDecider, []).when({ type: 'StartPaymentAttempt', data: { ...start, now } }).then([started]);
    given(paymentAttemptDecider, [started]).when({ type: 'StartPaymentAttempt', data: { ...start, now } }).thenNothing();
    given(paymentAttemptDecider, [started]).when({ type: 'StartPaymentAttempt', data: { ...start, invoice_id: 'inv-2', now } }).thenError('payment_attempt_exists');
  });

  it('records the first outcome only; an outcome for an attempt never started is refused', () => {
    given(paymentAttemptDecider, [started]).when(outcome({ status: 'succeeded', charge_ref: 'ch-1', payment_id: 'pay-1', applied: true })).then([succeeded]);
    given(paymentAttemptDecider, [started]).when(outcome({ status: 'failed', code: 'card_declined', message: 'The card was declined.' })).then([
      { type: 'PaymentAttemptFailed', data: { provider_ref: 'pi-1', code: 'card_declined', message: 'The card was declined.', notification_id: 'evt-1', at: now } },
    ]);
    given(paymentAttemptDecider, [started, succeeded]).when(outcome({ status: 'failed', code: 'card_declined', message: 'late' }, 'evt-2')).thenNothing();
    given(paymentAttemptDecider, [started, succeeded]).when(outcome({ status: 'succeeded', charge_ref: 'ch-2', payment_id: 'pay-1', applied: true }, 'evt-3')).thenNothing();
    given(paymentAttemptDecider, []).when(outcome({ status: 'succeeded', charge_ref: 'ch-1', payment_id: 'pay-1', applied: true })).thenError('payment_attempt_not_found');
  });
});
