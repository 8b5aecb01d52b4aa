// Schemas of usage facts (billing.usage.insert, extension), named in the spec's style.
import { z } from 'zod';
import { Money, Uuid } from './common.ts';

/** Most orders in one billing.usage.insert. */
export const MAX_USAGE_BATCH = 1000;

/** An order id: the marketplace's own id, unique across the platform, printable text without surrounding spaces. */
export const OrderId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, 'printable ASCII without leading or trailing spaces')
  .describe('The marketplace order id (1-200 printable ASCII characters); unique across the platform: recording it again changes nothing.');

/** One order of a usage batch. */
export const UsageOrderInput = z
  .strictObject({
    order_id: OrderId,
    seller: Uuid.describe('Organization id of the seller (supplier) charged the fee.'),
    buyer: Uuid.describe('Organization id of the buyer (repairer).'),
    amount: Money.describe('Order value; a non-negative integer amount in minor units.'),
    occurred_at: z.iso.datetime({ offset: true }).describe('When the order was placed (RFC 3339; stored in UTC to the millisecond); rating uses the configuration in force at this instant. Not in the future.'),
  })
  .refine((o) => o.amount.amount >= 0, { message: 'the order amount cannot be negative', path: ['amount', 'amount'] })
  .refine((o) => o.seller !== o.buyer, { message: 'seller and buyer must be different organizations', path: ['buyer'] })
  .meta({ id: 'billing.UsageOrderInput' });

/** billing.usage.insert request. */
export const UsageInsertRequest = z
  .strictObject({
    subscription_id: Uuid.optional().describe(
      "The subscription every order of the batch belongs to (each order's seller must be its organization). When omitted, each order goes to its seller's one active subscription.",
    ),
    orders: z.array(UsageOrderInput).min(1).max(MAX_USAGE_BATCH).describe(`1-${MAX_USAGE_BATCH} orders.`),
  })
  .meta({ id: 'billing.UsageInsertRequest' });

/** What happened to one order of a batch. */
export const UsageInsertItem = z
  .object({
    order_id: z.string().describe('The order id.'),
    subscription_id: Uuid.describe('The subscription the order is recorded under.'),
    status: z.enum(['recorded', 'already_recorded']).describe('`recorded` now, or `already_recorded` with the same facts earlier (nothing changed).'),
  })
  .meta({ id: 'billing.UsageInsertItem' });

/** billing.usage.insert response. */
export const UsageInsertResponse = z
  .object({
    recorded: z.int().describe('Orders recorded by this request.'),
    already_recorded: z.int().describe('Orders that were recorded earlier with the same facts.'),
    items: z.array(UsageInsertItem).describe('One per distinct order id of the request, in request order.'),
  })
  .meta({ id: 'billing.UsageInsertResponse' });
