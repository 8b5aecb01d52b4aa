// Schemas of usage facts (billing.usage.insert, extension), named in the spec's style.
import { z } from 'zod';
import { Money, PageRequest, RequestInstant, RequestMonth, Uuid, page } from './common.ts';

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
    occurred_at: RequestInstant.describe('When the order was placed (RFC 3339, years 1900-9999; stored in UTC to the millisecond); rating uses the configuration in force at this instant. Not in the future.'),
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

/** billing.invoices.generate request. */
export const InvoiceGenerateRequest = z
  .strictObject({
    subscription: Uuid.describe('The subscription whose usage is invoiced.'),
    period: RequestMonth.describe('The calendar month (UTC) whose orders are invoiced; it must have ended.'),
  })
  .meta({ id: 'billing.InvoiceGenerateRequest' });

/** How one order behind a metered line was rated. */
export const InvoiceOrderDetail = z
  .object({
    order_id: z.string().describe('The order id.'),
    line_index: z.int().describe("Index (0-based) of the metered line in the invoice's lines."),
    seller: Uuid.describe('Seller organization.'),
    buyer: Uuid.describe('Buyer organization.'),
    amount: Money.describe('Order value.'),
    occurred_at: z.string().describe('When the order was placed (RFC 3339, UTC).'),
    classification: z.enum(['platform_introduced', 'pre_existing']).describe('How the order was classified.'),
    relationship_id: Uuid.nullable().describe('The seller/buyer relationship that classified it, or null (no relationship: platform_introduced).'),
    rate_bps: z.int().describe('Rate applied, basis points.'),
    exempt_amount: z.int().describe('Part of the amount exempt under the baseline, minor units.'),
    chargeable_amount: z.int().describe('Part of the amount charged, minor units.'),
    fee: Money.describe('The fee of this order (rounded half-even per order); a line\'s amount is the sum of its orders\' fees.'),
    pricing_revision_id: Uuid.describe('The pricing revision that rated it.'),
    baseline_revision_id: Uuid.nullable().describe('The baseline revision that exempted part of it, or null.'),
  })
  .meta({ id: 'billing.InvoiceOrderDetail' });

/** billing.invoices.orders.list request. */
export const InvoiceOrderDetailListRequest = z
  .strictObject({
    invoice_id: Uuid.describe('The invoice.'),
    line_index: z.int().min(0).max(499).optional().describe('Only the orders of this metered line.'),
    ...PageRequest,
  })
  .meta({ id: 'billing.InvoiceOrderDetailListRequest' });

/** billing.invoices.orders.list response. */
export const InvoiceOrderDetailPage = page(InvoiceOrderDetail, 'billing.InvoiceOrderDetailPage', 'Orders by line, then in rating order (occurred_at, order_id).');

/** billing.invoices.rerate.preview request. */
export const InvoiceReratePreviewRequest = z.strictObject({ invoice_id: Uuid.describe('An invoice generated from usage.') }).meta({ id: 'billing.InvoiceReratePreviewRequest' });

/** What rated an order (in a re-rating diff). */
const Rating = z
  .object({
    classification: z.enum(['platform_introduced', 'pre_existing']),
    relationship_id: Uuid.nullable(),
    rate_bps: z.int(),
    exempt_amount: z.int(),
    fee: z.int().describe('Minor units.'),
    pricing_revision_id: Uuid,
    baseline_revision_id: Uuid.nullable(),
  })
  .meta({ id: 'billing.OrderRating' });

/** One order whose fee or rating revisions differ now. */
export const RerateOrderDiff = z
  .object({
    order_id: z.string(),
    line_index: z.int().describe('The line the order is on.'),
    old: Rating.describe('As invoiced.'),
    new: Rating.describe('Under the configuration as known now.'),
    changed: z.array(z.string()).describe('The fields that differ (e.g. pricing_revision_id, fee).'),
    difference: z.int().describe('new.fee - old.fee, minor units.'),
  })
  .meta({ id: 'billing.RerateOrderDiff' });

/** billing.invoices.rerate.preview response. */
export const InvoiceRerateDiff = z
  .object({
    invoice_id: Uuid,
    as_of: z.string().describe('The instant whose knowledge of the configuration rated the orders anew (now).'),
    currency: z.string(),
    old_total: z.int().describe('What the metered lines bill: as invoiced, with the corrections issued since.'),
    new_total: z.int().describe('The same orders rated now.'),
    difference: z.int().describe('new_total - old_total.'),
    lines: z
      .array(z.object({ line_index: z.int(), description: z.string(), old_amount: z.int(), new_amount: z.int(), difference: z.int() }).meta({ id: 'billing.RerateLineDiff' }))
      .describe('Every metered line: its orders\' fees then and now.'),
    changed_order_count: z.int().describe('Orders whose fee or rating revisions differ.'),
    orders: z.array(RerateOrderDiff).describe('The differing orders in rating order, at most 1,000.'),
    orders_truncated: z.boolean().describe('True when more than 1,000 orders differ.'),
    diff_hash: z.string().describe('Identifies this diff (the invoice, its corrections so far and every differing order): billing.invoices.rerate.apply issues the correction of exactly this diff.'),
    corrections_applied: z.int().describe('Corrections of the invoice already issued; "old" includes them.'),
  })
  .meta({ id: 'billing.InvoiceRerateDiff' });
