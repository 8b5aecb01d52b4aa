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

/** Where an order stands in billing. */
export const UsageBillingState = z
  .enum(['unbilled', 'invoiced', 'voided', 'held'])
  .describe('`unbilled`: waits for its month\'s invoice, or (late or fixed) for the next supplementary invoice; `invoiced`: on `invoice_id`; `voided` by staff (not billed; `invoice_id` is the invoice it was on when voided after invoicing, whose re-rating credits it); `held`: left out of its month\'s invoices by staff because it cannot be rated (`held_reasons`), billed once fixed.')
  .meta({ id: 'billing.UsageBillingState' });

/** What happened to one order of a batch. */
export const UsageInsertItem = z
  .object({
    order_id: z.string().describe('The order id.'),
    subscription_id: Uuid.describe('The subscription the order is recorded under.'),
    status: z.enum(['recorded', 'already_recorded']).describe('`recorded` now, or `already_recorded` with the same facts earlier (nothing changed).'),
    month: RequestMonth.describe('The calendar month (UTC) of occurred_at: the month whose usage invoice bills the order.'),
    late: z.boolean().describe("True when the month's usage invoice already exists: the order is billed on the month's next supplementary invoice (the usage invoice worker's next pass, or `billing.invoices.generate`)."),
    billing_state: UsageBillingState,
    invoice_id: Uuid.nullable().describe('The invoice the order is billed on, once it is (null until its invoice is generated).'),
  })
  .meta({ id: 'billing.UsageInsertItem' });

/** billing.usage.insert response. */
export const UsageInsertResponse = z
  .object({
    recorded: z.int().describe('Orders recorded by this request.'),
    already_recorded: z.int().describe('Orders that were recorded earlier with the same facts.'),
    late: z.int().describe("Orders (of `items`) whose month's usage invoice already exists: they go on a supplementary invoice of that month."),
    items: z.array(UsageInsertItem).describe('One per distinct order id of the request, in request order.'),
  })
  .meta({ id: 'billing.UsageInsertResponse' });

/** billing.invoices.generate request. */
export const InvoiceGenerateRequest = z
  .strictObject({
    subscription_id: Uuid.describe('The subscription whose usage is invoiced (named as every other operation names it).'),
    period: RequestMonth.describe('The calendar month (UTC) whose orders are invoiced; it must have ended.'),
    hold_unrateable: z.boolean().optional().describe('Staff decision: invoice the month without the orders that cannot be rated, holding them (listed by `billing.usage.list` with `billing_state: held` and their reasons) until they are fixed. Default false: any unrateable order refuses the invoice.'),
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

/** One recorded order with where it stands in billing (billing.usage.list, void, replace). */
export const UsageOrderDetail = z
  .object({
    order_id: z.string().describe('The order id.'),
    subscription_id: Uuid.describe('The subscription the order is recorded under.'),
    seller: Uuid,
    buyer: Uuid,
    amount: Money.describe('Order value (the current facts: a replacement\'s when replaced).'),
    occurred_at: z.string().describe('When the order was placed (RFC 3339, UTC).'),
    month: z.string().describe('The calendar month (UTC) of occurred_at.'),
    recorded_at: z.string().describe('When the order was first recorded.'),
    revision: z.int().describe('0 as recorded; n after the n-th replacement.'),
    billing_state: UsageBillingState,
    invoice_id: Uuid.nullable().describe('The invoice the order is billed on (regular or supplementary), or null.'),
    held_reasons: z.string().nullable().describe('Why the order could not be rated when it was held (`held` only).'),
    correction: z
      .object({ kind: z.enum(['voided', 'replaced']), reason: z.string(), at: z.string() })
      .nullable()
      .describe('The last correction by staff (the original facts stay in the order\'s history), or null.'),
  })
  .meta({ id: 'billing.UsageOrderDetail' });

/** billing.usage.list request. */
export const UsageListRequest = z
  .strictObject({
    subscription_id: Uuid.optional().describe('Only this subscription\'s orders.'),
    period: RequestMonth.optional().describe('Only orders that occurred in this calendar month (UTC).'),
    order_id: OrderId.optional().describe('Only this order.'),
    billing_state: z.enum(['held', 'voided']).optional().describe('Only held orders (with their reasons) or only voided ones.'),
    ...PageRequest,
  })
  .meta({ id: 'billing.UsageListRequest' });

/** billing.usage.list response. */
export const UsageOrderPage = page(UsageOrderDetail, 'billing.UsageOrderPage', 'Orders by occurred_at.');

const Reason = z.string().trim().min(1).max(500).describe('Why (required; kept in the order\'s history).');

/** billing.usage.void request. */
export const UsageVoidRequest = z.strictObject({ order_id: OrderId, reason: Reason }).meta({ id: 'billing.UsageVoidRequest' });

/** billing.usage.replace request. */
export const UsageReplaceRequest = z
  .strictObject({
    order_id: OrderId,
    reason: Reason,
    buyer: Uuid.optional().describe('The corrected buyer.'),
    amount: Money.optional().describe('The corrected value (amount and currency).'),
    occurred_at: RequestInstant.optional().describe('The corrected instant (not in the future).'),
  })
  .refine((r) => r.buyer !== undefined || r.amount !== undefined || r.occurred_at !== undefined, { message: 'name at least one corrected fact: buyer, amount or occurred_at', path: ['amount'] })
  .refine((r) => r.amount === undefined || r.amount.amount >= 0, { message: 'the order amount cannot be negative', path: ['amount', 'amount'] })
  .meta({ id: 'billing.UsageReplaceRequest' });

/** billing.usage.refusals.list request. */
export const UsageRefusalListRequest = z
  .strictObject({ subscription_id: Uuid.optional().describe('Only this subscription\'s months.'), ...PageRequest })
  .meta({ id: 'billing.UsageRefusalListRequest' });

/** A month the usage invoice worker could not invoice. */
export const UsageRefusal = z
  .object({
    subscription_id: Uuid,
    period: z.string().describe('The calendar month, YYYY-MM.'),
    code: z.string().describe('The refusal\'s error code (usage_unrateable, mixed_currencies, customer_not_found...).'),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).describe('The orders named (`orders.<order id>`) and why, at most 100.'),
    since: z.string().describe('The first refusal of this run of refusals.'),
    refused_at: z.string().describe('When this reason was last recorded (a pass refused for the same reason records nothing new).'),
    held_order_count: z.int().describe('Orders staff have held out of this month\'s invoices so far.'),
  })
  .meta({ id: 'billing.UsageRefusal' });

/** billing.usage.refusals.list response. */
export const UsageRefusalPage = page(UsageRefusal, 'billing.UsageRefusalPage', 'Oldest refusal first.');
