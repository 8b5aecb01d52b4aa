// Usage facts (`usage-<uuid of the order id>`): one stream per marketplace order, so the order id is claimed once
// across the whole log. Recording the same order again changes nothing; the same id with other data is refused.
// Staff correct an order with events on its stream (issue 26): void it, or replace its facts (the original stays in
// history). An order already on an invoice is corrected too: the difference is billed by re-rating that invoice
// (billing.invoices.rerate.apply); only its month and currency stay, which the invoice is of (409 usage_invoiced).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { nameId } from '../../ids.ts';
import { billingErrors } from './errors.ts';
import { EventAmount, EventId, EventInstant, EventInt32 } from '../event-fields.ts';

/** The facts of one order as recorded: what rating reads. */
export const UsageOrderSchema = z.object({
  order_id: z.string(),
  subscription_id: EventId,
  seller: EventId,
  buyer: EventId,
  amount: EventAmount,
  currency: z.string(),
  /** RFC 3339 UTC, millisecond precision (the one form stored). */
  occurred_at: EventInstant,
});
/** The facts of one order. */
export type UsageOrder = z.infer<typeof UsageOrderSchema>;

/** Events of an order's usage stream. */
export const usageEvents = eventSchemas({
  UsageRecorded: UsageOrderSchema.extend({ recorded_at: z.string() }),
  /** Staff voided the order: it is not rated or billed; the facts stay in history. */
  UsageVoided: z.object({ order_id: z.string(), subscription_id: EventId, reason: z.string(), voided_at: EventInstant }),
  /** Staff replaced the order's facts with corrected ones (revision 1, 2, ...): the replacement is rated in its place. */
  UsageReplaced: UsageOrderSchema.extend({ revision: EventInt32.min(1), reason: z.string(), replaced_at: EventInstant }),
});

/** A usage event (derived from `usageEvents`). */
export type UsageEvent = EventOf<typeof usageEvents>;

/** How usage events are read. */
export const usageCodec = eventCodec(usageEvents);

/** The facts a replacement may correct (seller and subscription stay: they say whose usage it is). */
export type UsageCorrection = Partial<Pick<UsageOrder, 'buyer' | 'amount' | 'currency' | 'occurred_at'>>;

/**
 * What may be asked of an order's usage stream. `invoice_id` in a replacement is the looked-up fact "this order is on
 * that invoice" (null when it is on none): an invoiced order keeps its month and currency.
 */
export type UsageCommand =
  | { type: 'RecordUsage'; data: UsageOrder & { now: string } }
  | { type: 'VoidUsage'; data: { reason: string; now: string } }
  | { type: 'ReplaceUsage'; data: { facts: UsageCorrection; reason: string; invoice_id: string | null; now: string } };

/** The order as recorded and corrected, or null before it is. */
export interface UsageState {
  /** The current facts (the latest replacement's, else the recording's). */
  order: UsageOrder | null;
  /** The facts first recorded: recording them again is `already_recorded`, whatever corrections followed. */
  original: UsageOrder | null;
  /** 0 as recorded, then 1, 2, ... per replacement. */
  revision: number;
  voided: boolean;
}

/** The stream key of an order id: a name-based UUID, so the id needs no lookup to find its stream. */
export function usageKey(orderId: string): string {
  return nameId('billing-usage-order', orderId);
}

/** The facts that make two recordings of an order the same (recorded_at is when, not what). */
export function sameOrder(a: UsageOrder, b: UsageOrder): boolean {
  return a.order_id === b.order_id && a.subscription_id === b.subscription_id && a.seller === b.seller && a.buyer === b.buyer
    && a.amount === b.amount && a.currency === b.currency && a.occurred_at === b.occurred_at;
}

/** Pure usage decider: first recording wins; an identical one is a no-op; a different one is a conflict. */
export const usageDecider: Decider<UsageCommand, UsageEvent, UsageState> = {
  events: usageCodec,
  initialState: () => ({ order: null, original: null, revision: 0, voided: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'UsageRecorded': {
        const { recorded_at: _recordedAt, ...order } = event.data;
        return { order, original: order, revision: 0, voided: false };
      }
      case 'UsageVoided':
        return { ...state, voided: true };
      case 'UsageReplaced': {
        const { revision, reason: _reason, replaced_at: _at, ...order } = event.data;
        return { ...state, order, original: state.original ?? order, revision };
      }
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordUsage': {
        const { now, ...order } = command.data;
        if (state.order) {
          if (sameOrder(state.order, order) || (state.original && sameOrder(state.original, order))) return [];
          throw usageConflict(state.order, order);
        }
        checkFacts(order);
        return [{ type: 'UsageRecorded', data: { ...order, recorded_at: now } }];
      }
      case 'VoidUsage': {
        const order = recorded(state);
        if (state.voided) return []; // a repeated void
        return [{ type: 'UsageVoided', data: { order_id: order.order_id, subscription_id: order.subscription_id, reason: command.data.reason, voided_at: command.data.now } }];
      }
      case 'ReplaceUsage': {
        const order = recorded(state);
        if (state.voided) throw billingErrors.error('usage_voided', `Order ${order.order_id} is voided; a voided order is not replaced (record the corrected order under a new id).`);
        const next: UsageOrder = { ...order, ...command.data.facts };
        if (sameOrder(next, order)) return [];
        const invoiceId = command.data.invoice_id;
        if (invoiceId !== null && (next.currency !== order.currency || next.occurred_at.slice(0, 7) !== order.occurred_at.slice(0, 7))) {
          throw billingErrors.error('usage_invoiced',
            `Order ${order.order_id} is billed on invoice ${invoiceId} of ${order.occurred_at.slice(0, 7)} in ${order.currency}; its replacement keeps that month and currency (void it and record the order under a new id instead).`,
            { details: { invoice_id: invoiceId } });
        }
        checkFacts(next);
        return [{ type: 'UsageReplaced', data: { ...next, revision: state.revision + 1, reason: command.data.reason, replaced_at: command.data.now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

// The order exists: what a correction needs.
function recorded(state: UsageState): UsageOrder {
  if (!state.order) throw billingErrors.error('usage_not_found', 'No order with this id is recorded.');
  return state.order;
}

function checkFacts(order: UsageOrder): void {
  if (order.seller === order.buyer) throw billingErrors.error('invalid_order', `Order ${order.order_id}: seller and buyer are the same organization.`);
  if (!Number.isSafeInteger(order.amount) || order.amount < 0) throw billingErrors.error('invalid_order', `Order ${order.order_id}: the amount is a non-negative integer in minor units.`);
}

/** The facts in which a later recording of an order differs from the stored one. */
export function differingFields(stored: UsageOrder, given: UsageOrder): string[] {
  return (['subscription_id', 'seller', 'buyer', 'amount', 'currency', 'occurred_at'] as const).filter((k) => stored[k] !== given[k]);
}

// The 409 of an order id recorded earlier with other facts.
function usageConflict(stored: UsageOrder, given: UsageOrder) {
  return billingErrors.error('usage_conflict', `Order ${given.order_id} was recorded earlier with a different ${differingFields(stored, given).join(', ')}; usage facts do not change.`);
}
