// Payment attempt aggregate (`paymentattempt-<id>`): one try, on the payment page, to pay what an invoice still owes through the provider.
// Started by a member of the organization; its outcome arrives only as a verified provider notification.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';

/** Events of a payment attempt stream. */
export const paymentAttemptEvents = eventSchemas({
  PaymentAttemptStarted: z.object({
    attempt_id: z.string(),
    invoice_id: z.string(),
    customer_id: z.string(),
    organization_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    /** A saved method of the customer, or null for a card entered on the provider's page. */
    payment_method_id: z.string().nullable(),
    method_type: z.enum(['card', 'bank_debit']),
    started_at: z.string(),
  }),
  /**
   * The provider charged the amount; `applied` is false when the invoice no longer owed it (paid meanwhile: a refund is due).
   * `notification_id` null: learnt by asking the provider (a lost notification), not from a notification.
   */
  PaymentAttemptSucceeded: z.object({ provider_ref: z.string(), charge_ref: z.string(), payment_id: z.string(), applied: z.boolean(), notification_id: z.string().nullable(), at: z.string() }),
  PaymentAttemptFailed: z.object({ provider_ref: z.string(), code: z.string(), message: z.string(), notification_id: z.string().nullable(), at: z.string() }),
});
/** A payment attempt event. */
export type PaymentAttemptEvent = EventOf<typeof paymentAttemptEvents>;
/** How payment attempt events are read. */
export const paymentAttemptCodec = eventCodec(paymentAttemptEvents);

type Started = Omit<(PaymentAttemptEvent & { type: 'PaymentAttemptStarted' })['data'], 'started_at'>;

/** What may be asked of a payment attempt. */
export type PaymentAttemptCommand =
  | { type: 'StartPaymentAttempt'; data: Started & { now: string } }
  | {
      type: 'RecordPaymentOutcome';
      data: {
        provider_ref: string;
        notification_id: string | null;
        outcome: { status: 'succeeded'; charge_ref: string; payment_id: string; applied: boolean } | { status: 'failed'; code: string; message: string };
        now: string;
      };
    };

/** Where an attempt stands. */
export interface PaymentAttemptState {
  status: 'none' | 'pending' | 'succeeded' | 'failed';
  started: Started | null;
  /** When it started: an attempt still pending past its hold (CHARGE_ATTEMPT_TTL_MS) no longer blocks another payment. */
  startedAt: string | null;
  failure: { code: string; message: string } | null;
  applied: boolean;
  chargeRef: string | null;
}

/** Pure payment attempt decider: started once (a repeated start of the same payment decides nothing), finished once by the provider. */
export const paymentAttemptDecider: Decider<PaymentAttemptCommand, PaymentAttemptEvent, PaymentAttemptState> = {
  events: paymentAttemptCodec,
  initialState: () => ({ status: 'none', started: null, startedAt: null, failure: null, applied: false, chargeRef: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'PaymentAttemptStarted': {
        const { started_at, ...started } = event.data;
        return { ...state, status: 'pending', started, startedAt: started_at };
      }
      case 'PaymentAttemptSucceeded':
        return { ...state, status: 'succeeded', applied: event.data.applied, chargeRef: event.data.charge_ref };
      case 'PaymentAttemptFailed':
        return { ...state, status: 'failed', failure: { code: event.data.code, message: event.data.message } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'StartPaymentAttempt': {
        const { now, ...data } = command.data;
        if (state.started) {
          // The same form sent twice (a double click, a reload) is the same attempt: one charge.
          if (state.started.invoice_id === data.invoice_id && state.started.customer_id === data.customer_id) return [];
          throw billingErrors.error('payment_attempt_exists', 'This payment form was already used for another invoice.');
        }
        return [{ type: 'PaymentAttemptStarted', data: { ...data, started_at: now } }];
      }
      case 'RecordPaymentOutcome': {
        const { provider_ref, notification_id, outcome, now } = command.data;
        if (!state.started) throw billingErrors.error('payment_attempt_not_found', 'No such payment attempt.');
        // The first outcome wins; a repeated or late notification changes nothing.
        if (state.status !== 'pending') return [];
        if (outcome.status === 'succeeded')
          return [{ type: 'PaymentAttemptSucceeded', data: { provider_ref, charge_ref: outcome.charge_ref, payment_id: outcome.payment_id, applied: outcome.applied, notification_id, at: now } }];
        return [{ type: 'PaymentAttemptFailed', data: { provider_ref, code: outcome.code, message: outcome.message, notification_id, at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
