// Price aggregate (`price-<id>`): an amount in integer minor units of a currency for a product. The amount never changes; remove archives.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';

/** Largest unit amount a price may have, in minor units. */
export const MAX_UNIT_AMOUNT = 1e12;

/** How a price is charged. */
export const PriceTypeSchema = z.enum(['one_time', 'recurring', 'per_unit']);
/** How a price is charged. */
export type PriceType = z.infer<typeof PriceTypeSchema>;

/** Billing period of a recurring price. */
export const RecurringSchema = z.object({ interval: z.enum(['day', 'week', 'month', 'year']) });

/** The fields that may change after creation. */
export const PriceChangesSchema = z.object({
  active: z.boolean(),
  nickname: z.string().nullable(),
  lookup_key: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});
/** The fields that may change after creation. */
export type PriceChanges = z.infer<typeof PriceChangesSchema>;

/** The fields fixed at creation. */
export const PriceTermsSchema = z.object({
  product_id: EventId,
  currency: z.string(),
  unit_amount: z.number(),
  type: PriceTypeSchema,
  recurring: RecurringSchema.nullable(),
});
/** The fields fixed at creation. */
export type PriceTerms = z.infer<typeof PriceTermsSchema>;

/** Events of a price stream. */
export const priceEvents = eventSchemas({
  PriceCreated: PriceTermsSchema.extend(PriceChangesSchema.shape).extend({ price_id: z.string(), created_at: EventInstant }),
  PriceUpdated: z.object({ changes: PriceChangesSchema.partial(), updated_at: z.string() }),
  PriceArchived: z.object({ archived_at: z.string() }),
});

/** A price event (derived from `priceEvents`). */
export type PriceEvent = EventOf<typeof priceEvents>;

/** How price events are read. */
export const priceCodec = eventCodec(priceEvents);

/** What may be asked of a price. `product` and `currency_enabled` are what the handler found when it asked. */
export type PriceCommand =
  | { type: 'CreatePrice'; data: PriceTerms & PriceChanges & { price_id: string; product: 'none' | 'active' | 'archived'; currency_enabled: boolean; now: string } }
  | { type: 'UpdatePrice'; data: { changes: Partial<PriceChanges>; now: string } }
  | { type: 'RemovePrice'; data: { draft_lines: number; now: string } };

/** What the price decider needs. */
export interface PricePresence {
  exists: boolean;
  fields: PriceChanges | null;
}

/** Pure price decider. */
export const priceDecider: Decider<PriceCommand, PriceEvent, PricePresence> = {
  events: priceCodec,
  initialState: () => ({ exists: false, fields: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'PriceCreated': {
        const { active, nickname, lookup_key, metadata } = event.data;
        return { exists: true, fields: { active, nickname, lookup_key, metadata } };
      }
      case 'PriceUpdated':
        return { ...state, fields: state.fields && { ...state.fields, ...event.data.changes } };
      case 'PriceArchived':
        return { ...state, fields: state.fields && { ...state.fields, active: false } };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreatePrice': {
        const d = command.data;
        if (state.exists) throw billingErrors.error('price_exists', 'This price already exists.');
        if (d.product === 'none') throw billingErrors.error('product_not_found', `No product ${d.product_id}.`);
        if (d.product === 'archived') throw billingErrors.error('product_archived', `Product ${d.product_id} is archived; it takes no new prices.`);
        if (!d.currency_enabled) throw billingErrors.error('currency_not_enabled', `${d.currency} is not enabled for billing.`);
        checkAmount(d.type, d.unit_amount);
        if ((d.type === 'recurring') !== (d.recurring !== null)) throw billingErrors.error('invalid_price', 'A recurring price needs `recurring.interval`; other prices take none.');
        return [{
          type: 'PriceCreated',
          data: {
            price_id: d.price_id, product_id: d.product_id, currency: d.currency, unit_amount: d.unit_amount, type: d.type, recurring: d.recurring,
            active: d.active, nickname: d.nickname, lookup_key: d.lookup_key, metadata: d.metadata, created_at: d.now,
          },
        }];
      }
      case 'UpdatePrice': {
        const current = requirePrice(state);
        const changes = Object.fromEntries(
          Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof PriceChanges])),
        );
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'PriceUpdated', data: { changes: PriceChangesSchema.partial().parse(changes), updated_at: command.data.now } }];
      }
      case 'RemovePrice': {
        const current = requirePrice(state);
        if (command.data.draft_lines > 0) throw billingErrors.error('price_in_use', `The price is on ${command.data.draft_lines} draft invoice line(s).`);
        if (!current.active) return [];
        return [{ type: 'PriceArchived', data: { archived_at: command.data.now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/** Whole minor units; zero only for recurring prices (a free plan still grants its product's entitlements). */
function checkAmount(type: PriceType, amount: number): void {
  const least = type === 'recurring' ? 0 : 1;
  if (!Number.isSafeInteger(amount) || amount < least || amount > MAX_UNIT_AMOUNT)
    throw billingErrors.error('invalid_amount', `unit_amount must be a whole number of minor units from ${least} to ${MAX_UNIT_AMOUNT} for a ${type} price.`);
}

function requirePrice(state: PricePresence): PriceChanges {
  if (!state.fields) throw billingErrors.error('price_not_found', 'No such price.');
  return state.fields;
}
