// Usage facts (`usage-<uuid of the order id>`): one stream per marketplace order, so the order id is claimed once
// across the whole log. Recording the same order again changes nothing; the same id with other data is refused.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { nameId } from '../../ids.ts';
import { billingErrors } from './errors.ts';
import { EventAmount, EventId, EventInstant } from '../event-fields.ts';

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
});

/** A usage event (derived from `usageEvents`). */
export type UsageEvent = EventOf<typeof usageEvents>;

/** How usage events are read. */
export const usageCodec = eventCodec(usageEvents);

/** What may be asked of an order's usage stream. */
export type UsageCommand = { type: 'RecordUsage'; data: UsageOrder & { now: string } };

/** The order as recorded, or null before it is. */
export interface UsageState {
  order: UsageOrder | null;
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
  initialState: () => ({ order: null }),
  evolve(_state, event) {
    switch (event.type) {
      case 'UsageRecorded': {
        const { recorded_at: _recordedAt, ...order } = event.data;
        return { order };
      }
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordUsage': {
        const { now, ...order } = command.data;
        if (state.order) {
          if (sameOrder(state.order, order)) return [];
          throw usageConflict(state.order, order);
        }
        if (order.seller === order.buyer) throw billingErrors.error('invalid_order', `Order ${order.order_id}: seller and buyer are the same organization.`);
        if (!Number.isSafeInteger(order.amount) || order.amount < 0) throw billingErrors.error('invalid_order', `Order ${order.order_id}: the amount is a non-negative integer in minor units.`);
        return [{ type: 'UsageRecorded', data: { ...order, recorded_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};

/** The facts in which a later recording of an order differs from the stored one. */
export function differingFields(stored: UsageOrder, given: UsageOrder): string[] {
  return (['subscription_id', 'seller', 'buyer', 'amount', 'currency', 'occurred_at'] as const).filter((k) => stored[k] !== given[k]);
}

// The 409 of an order id recorded earlier with other facts.
function usageConflict(stored: UsageOrder, given: UsageOrder) {
  return billingErrors.error('usage_conflict', `Order ${given.order_id} was recorded earlier with a different ${differingFields(stored, given).join(', ')}; usage facts do not change.`);
}
