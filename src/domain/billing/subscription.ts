// Subscription aggregate (`subscription-<id>`, extension): an organization's items (prices and quantities), status and current period.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';

/** Most of one price a subscription may hold: as many as an invoice line may count, far below 2^31 - 1. */
export const MAX_SUBSCRIPTION_QUANTITY = 1_000_000;

/** One item: a price and how many. */
export const SubscriptionItemSchema = z.object({ price_id: z.string(), quantity: z.number() });

/** The fields that may change. */
export const SubscriptionFieldsSchema = z.object({
  items: z.array(SubscriptionItemSchema),
  status: z.enum(['active', 'canceled']),
  current_period_start: z.string(),
  current_period_end: z.string(),
});
/** The fields that may change. */
export type SubscriptionFields = z.infer<typeof SubscriptionFieldsSchema>;

/** Events of a subscription stream. */
export const subscriptionEvents = eventSchemas({
  SubscriptionCreated: SubscriptionFieldsSchema.extend({ subscription_id: z.string(), organization_id: EventId, created_at: EventInstant }),
  SubscriptionUpdated: z.object({ changes: SubscriptionFieldsSchema.partial(), updated_at: z.string() }),
});

/** A subscription event (derived from `subscriptionEvents`). */
export type SubscriptionEvent = EventOf<typeof subscriptionEvents>;

/** How subscription events are read. */
export const subscriptionCodec = eventCodec(subscriptionEvents);

/** Whether each price of the items exists and is active, as the handler found them. */
export type PriceStatuses = Record<string, 'none' | 'active' | 'archived'>;

/** What may be asked of a subscription. */
export type SubscriptionCommand =
  | { type: 'CreateSubscription'; data: SubscriptionFields & { subscription_id: string; organization_id: string; organization_exists: boolean; prices: PriceStatuses; now: string } }
  | { type: 'UpdateSubscription'; data: { changes: Partial<SubscriptionFields>; prices: PriceStatuses; now: string } };

/** What the subscription decider needs. */
export interface SubscriptionState {
  fields: SubscriptionFields | null;
}

/** Pure subscription decider: canceled is final. */
export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState> = {
  events: subscriptionCodec,
  initialState: () => ({ fields: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'SubscriptionCreated': {
        const { items, status, current_period_start, current_period_end } = event.data;
        return { fields: { items, status, current_period_start, current_period_end } };
      }
      case 'SubscriptionUpdated':
        return { fields: state.fields && { ...state.fields, ...event.data.changes } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateSubscription': {
        const d = command.data;
        if (state.fields) throw billingErrors.error('subscription_exists', 'This subscription already exists.');
        if (!d.organization_exists) throw billingErrors.error('organization_not_found', `No organization ${d.organization_id}.`);
        const fields: SubscriptionFields = { items: d.items, status: d.status, current_period_start: d.current_period_start, current_period_end: d.current_period_end };
        check(fields, d.prices);
        return [{ type: 'SubscriptionCreated', data: { subscription_id: d.subscription_id, organization_id: d.organization_id, ...fields, created_at: d.now } }];
      }
      case 'UpdateSubscription': {
        const current = state.fields;
        if (!current) throw billingErrors.error('subscription_not_found', 'No such subscription.');
        if (current.status === 'canceled') throw billingErrors.error('subscription_canceled', 'A canceled subscription does not change.');
        const changes = Object.fromEntries(
          Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof SubscriptionFields])),
        );
        if (Object.keys(changes).length === 0) return [];
        const parsed = SubscriptionFieldsSchema.partial().parse(changes);
        check({ ...current, ...parsed }, parsed.items ? command.data.prices : {});
        return [{ type: 'SubscriptionUpdated', data: { changes: parsed, updated_at: command.data.now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/** Items: at least one, each price once, existing and active, whole quantities from 1 to MAX_SUBSCRIPTION_QUANTITY; the period ends after it starts. */
function check(fields: SubscriptionFields, prices: PriceStatuses): void {
  if (fields.items.length === 0) throw billingErrors.error('invalid_subscription', 'A subscription needs at least one item.');
  const ids = fields.items.map((i) => i.price_id);
  if (new Set(ids).size !== ids.length) throw billingErrors.error('invalid_subscription', 'Each price may appear once; raise its quantity instead.');
  for (const item of fields.items) {
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_SUBSCRIPTION_QUANTITY)
      throw billingErrors.error('invalid_quantity', `Quantity of ${item.price_id} must be a whole number from 1 to ${MAX_SUBSCRIPTION_QUANTITY}.`);
  }
  for (const [id, status] of Object.entries(prices)) {
    if (status === 'none') throw billingErrors.error('price_not_found', `No price ${id}.`);
    if (status === 'archived') throw billingErrors.error('price_inactive', `Price ${id} is archived.`);
  }
  if (Date.parse(fields.current_period_end) <= Date.parse(fields.current_period_start)) throw billingErrors.error('invalid_subscription', 'current_period_end must be after current_period_start.');
}
