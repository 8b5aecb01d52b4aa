// Automatic collection aggregate (`collection-<invoice id>`): charge attempts of one invoice and when the next one is due.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { type InvoiceState, amountRemaining } from './invoice-events.ts';

/** Days after a declined attempt until the next one (after the last, collection stops and the overdue policy takes over). */
export const RETRY_DAYS = [3, 5, 7];

/** Events of a collection stream. */
export const collectionEvents = eventSchemas({
  /** `amount` was charged; `applied` of it was recorded as a payment on the invoice, and the rest is owed back to the customer (a refund). */
  ChargeSucceeded: z.object({ invoice_id: z.string(), attempt: z.number(), payment_method_id: z.string(), charge_ref: z.string(), amount: z.number(), applied: z.number(), at: z.string() }),
  ChargeFailed: z.object({ invoice_id: z.string(), attempt: z.number(), payment_method_id: z.string(), charge_ref: z.string(), code: z.string(), next_attempt_at: z.string().nullable(), at: z.string() }),
});
/** A collection event. */
export type CollectionEvent = EventOf<typeof collectionEvents>;
/** How collection events are read. */
export const collectionCodec = eventCodec(collectionEvents, {
  upcasters: {
    // Recorded before `applied` was: the whole charge was applied (a charge that did not fit failed the pass).
    ChargeSucceeded: (data) => (data !== null && typeof data === 'object' && !('applied' in data) ? { ...data, applied: (data as { amount?: unknown }).amount } : data),
  },
});

/** The outcome of one charge, to record. */
export type CollectionCommand = {
  type: 'RecordCharge';
  data: { invoice_id: string; attempt: number; payment_method_id: string; charge_ref: string; amount: number; outcome: { status: 'succeeded'; applied: number } | { status: 'failed'; code: string }; now: string };
};

/** Where collection of an invoice stands. */
export interface CollectionState {
  attempts: number;
  succeeded: boolean;
  nextAttemptAt: string | null;
}

/** Whether a charge is due now: nothing succeeded, attempts left, and the retry date reached. */
export function chargeDue(s: CollectionState, now: Date): boolean {
  if (s.succeeded || s.attempts > RETRY_DAYS.length) return false;
  return s.nextAttemptAt === null || new Date(s.nextAttemptAt).getTime() <= now.getTime();
}

type InvoiceAmounts = Pick<InvoiceState, 'status' | 'total' | 'amount_paid' | 'amount_credited' | 'credited_to_balance'>;

/** What automatic collection may charge on an invoice now: what it still owes while it takes payments, else 0. */
export function collectable(invoice: InvoiceAmounts): number {
  return invoice.status === 'open' || invoice.status === 'uncollectible' ? Math.max(0, amountRemaining(invoice)) : 0;
}

/**
 * How much of a successful charge of `charged` goes onto the invoice as a payment: what it still owes, at
 * most the charge. Less than the charge when a payment or credit landed between the charge and its
 * recording (or after a pass that charged and stopped): the rest is to be refunded.
 */
export function chargeToApply(charged: number, invoice: InvoiceAmounts): number {
  return Math.min(charged, collectable(invoice));
}

/** Pure collection decider; a repeated attempt number decides nothing. */
export const collectionDecider: Decider<CollectionCommand, CollectionEvent, CollectionState> = {
  events: collectionCodec,
  initialState: () => ({ attempts: 0, succeeded: false, nextAttemptAt: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'ChargeSucceeded':
        return { attempts: event.data.attempt, succeeded: true, nextAttemptAt: null };
      case 'ChargeFailed':
        return { attempts: event.data.attempt, succeeded: false, nextAttemptAt: event.data.next_attempt_at };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    const { outcome, now, ...d } = command.data;
    if (d.attempt <= state.attempts || state.succeeded) return [];
    if (outcome.status === 'succeeded') return [{ type: 'ChargeSucceeded', data: { ...d, applied: outcome.applied, at: now } }];
    const days = RETRY_DAYS[d.attempt - 1];
    const next = days === undefined ? null : new Date(new Date(now).getTime() + days * 86_400_000).toISOString();
    return [{ type: 'ChargeFailed', data: { invoice_id: d.invoice_id, attempt: d.attempt, payment_method_id: d.payment_method_id, charge_ref: d.charge_ref, code: outcome.code, next_attempt_at: next, at: now } }];
  },
};
