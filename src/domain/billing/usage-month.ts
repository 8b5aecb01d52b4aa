// One subscription's usage month (`usagemonth-<uuid of subscription/month>`, issue 26): the orders staff held out of its
// invoices because they could not be rated, and why the usage invoice worker could not invoice it (kept until it can).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { nameId } from '../../ids.ts';
import { EventId, EventInstant, EventInt32 } from '../event-fields.ts';

/** The id of the usage invoice of a subscription and month: one per pair, so generating again finds it. */
export function usageInvoiceId(subscriptionId: string, period: string): string {
  return nameId('billing-usage-invoice', `${subscriptionId}/${period}`);
}

/** The id of the `seq`-th supplementary invoice (1, 2, ...) of a subscription's month: late or fixed orders billed after its invoice. */
export function supplementId(subscriptionId: string, period: string, seq: number): string {
  return nameId('billing-usage-supplement', `${subscriptionId}/${period}/${seq}`);
}

/** An order left out of the month's invoices, at the revision of its facts that could not be rated, and why. */
export const HeldOrderSchema = z.object({ order_id: z.string(), revision: EventInt32.min(0), reasons: z.string() });
/** A held order. */
export type HeldOrder = z.infer<typeof HeldOrderSchema>;

const MonthRef = { subscription_id: EventId, period: z.string().regex(/^\d{4}-\d{2}$/) };

/** Events of a usage month. */
export const usageMonthEvents = eventSchemas({
  /** Staff invoiced the month without these unrateable orders; they are billed once fixed (voided or replaced), like late usage. */
  UsageOrdersHeld: z.object({ ...MonthRef, orders: z.array(HeldOrderSchema), held_at: EventInstant }),
  /** The usage invoice worker could not invoice the month (a new or different reason than the last one recorded). */
  UsageMonthRefused: z.object({ ...MonthRef, code: z.string(), message: z.string(), issues: z.array(z.object({ path: z.string(), message: z.string() })), refused_at: EventInstant }),
  /** The month was invoiced after a refusal. */
  UsageMonthRefusalCleared: z.object({ ...MonthRef, cleared_at: EventInstant }),
});

/** A usage month event. */
export type UsageMonthEvent = EventOf<typeof usageMonthEvents>;

/** How usage month events are read. */
export const usageMonthCodec = eventCodec(usageMonthEvents);

type Ref = { subscription_id: string; period: string };

/** What may be asked of a usage month. */
export type UsageMonthCommand =
  | { type: 'HoldOrders'; data: Ref & { orders: HeldOrder[]; now: string } }
  | { type: 'RecordRefusal'; data: Ref & { code: string; message: string; issues: { path: string; message: string }[]; now: string } }
  | { type: 'ClearRefusal'; data: Ref & { now: string } };

/** Held orders (by id, at which revision) and the refusal in force. */
export interface UsageMonthState {
  held: Record<string, number>;
  /** `code` and the issues' paths and messages of the refusal recorded last, or null. */
  refusal: string | null;
}

/** The stream key of a subscription's month. */
export function usageMonthKey(subscriptionId: string, period: string): string {
  return nameId('billing-usage-month', `${subscriptionId}/${period}`);
}

function fingerprint(code: string, issues: { path: string; message: string }[]): string {
  return JSON.stringify([code, issues.map((i) => [i.path, i.message])]);
}

/** Pure usage month decider: holding an order again at the same revision, or recording the same refusal again, appends nothing. */
export const usageMonthDecider: Decider<UsageMonthCommand, UsageMonthEvent, UsageMonthState> = {
  events: usageMonthCodec,
  initialState: () => ({ held: {}, refusal: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'UsageOrdersHeld':
        return { ...s, held: { ...s.held, ...Object.fromEntries(e.data.orders.map((o) => [o.order_id, o.revision])) } };
      case 'UsageMonthRefused':
        return { ...s, refusal: fingerprint(e.data.code, e.data.issues) };
      case 'UsageMonthRefusalCleared':
        return { ...s, refusal: null };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'HoldOrders': {
        const { now, orders, ...ref } = c.data;
        const fresh = orders.filter((o) => s.held[o.order_id] !== o.revision);
        return fresh.length ? [{ type: 'UsageOrdersHeld', data: { ...ref, orders: fresh, held_at: now } }] : [];
      }
      case 'RecordRefusal': {
        const { now, ...data } = c.data;
        if (s.refusal === fingerprint(data.code, data.issues)) return [];
        return [{ type: 'UsageMonthRefused', data: { ...data, refused_at: now } }];
      }
      case 'ClearRefusal': {
        const { now, ...ref } = c.data;
        return s.refusal === null ? [] : [{ type: 'UsageMonthRefusalCleared', data: { ...ref, cleared_at: now } }];
      }
      default:
        return assertNever(c);
    }
  },
};
