// Schemas of re-rating corrections (issue 26 section 5, extensions): billing.invoices.rerate.apply, the corrections of an
// invoice and the orders behind their lines, and the impact preview of a configuration revision before it is saved.
import { z } from 'zod';
import { PageRequest, Uuid, page } from './common.ts';
import { BaselineWriteRequest, PricingWriteRequest } from './billing-configuration.ts';

/** billing.invoices.rerate.apply request. */
export const InvoiceRerateApplyRequest = z
  .strictObject({
    invoice_id: Uuid.describe('The usage invoice whose re-rating diff is applied (finalized: open, paid or uncollectible).'),
    diff_hash: z.string().regex(/^[0-9a-f]{64}$/, 'the diff_hash of a billing.invoices.rerate.preview answer').describe(
      'The `diff_hash` of the re-rating preview the correction is issued from. If the diff is not that one any more (the configuration or the corrections changed since), 409 `rerate_diff_changed`: preview again.',
    ),
    reason: z.string().trim().min(1).max(1000).describe('Why the correction is issued (kept on the correction and in the audit trail).'),
  })
  .meta({ id: 'billing.InvoiceRerateApplyRequest' });

/** What rated a group of orders, on one side of a correction. */
const CorrectionRating = z
  .object({
    classification: z.enum(['platform_introduced', 'pre_existing']),
    rate_bps: z.int(),
    minimum_fee: z.int().describe('Minor units.'),
    pricing_revision_id: Uuid,
    baseline_revision_id: Uuid.nullable(),
  })
  .meta({ id: 'billing.CorrectionRating' });

/** One line of a correction. */
export const InvoiceCorrectionLine = z
  .object({
    line_index: z.int().describe('Index (0-based) of the line in the correction.'),
    source_line_index: z.int().describe('The metered line of the corrected invoice its orders are on.'),
    description: z.string(),
    order_count: z.int(),
    old_fees: z.int().describe('What the orders were billed (the invoice and earlier corrections), minor units.'),
    new_fees: z.int().describe('The orders rated under the configuration as known at `as_of`.'),
    amount: z.int().describe('new_fees - old_fees: positive undercharged, negative overcharged.'),
    old: CorrectionRating.describe('What rated them as billed.'),
    new: CorrectionRating.describe('What rates them now.'),
  })
  .meta({ id: 'billing.InvoiceCorrectionLine' });

/** A correction of a usage invoice and the documents that carry its money. */
export const InvoiceCorrection = z
  .object({
    id: Uuid.describe('Derived from the invoice and the diff: the same diff applied again answers this correction.'),
    invoice_id: Uuid,
    organization_id: Uuid,
    customer_id: Uuid,
    currency: z.string(),
    sequence: z.int().describe('1 for the invoice\'s first correction, 2 for the next...'),
    diff_hash: z.string(),
    reason: z.string(),
    as_of: z.string().describe('The configuration as known at this instant rated the orders anew.'),
    difference: z.int().describe('Net new - old over every line, minor units: > 0 billed on the correction invoice, < 0 credited by the credit note.'),
    order_count: z.int(),
    credit_notes: z
      .array(z.object({ invoice_id: Uuid, credit_note_request_id: Uuid, amount: z.int() }).meta({ id: 'billing.InvoiceCorrectionCredit' }))
      .describe('The issued credit notes (requests) crediting an overcharge: on the corrected invoice as far as it can be credited, then on its earlier finalized correction invoices. Empty unless difference < 0.'),
    correction_invoice_id: Uuid.nullable().describe('The draft invoice billing an undercharge (finalize it like any invoice), or null.'),
    lines: z.array(InvoiceCorrectionLine),
    recorded_at: z.string(),
    recorded_by: z.object({ type: z.string(), id: z.string() }),
  })
  .meta({ id: 'billing.InvoiceCorrection' });

/** billing.invoices.corrections.list request. */
export const InvoiceCorrectionListRequest = z
  .strictObject({ invoice_id: Uuid.describe('The corrected usage invoice.'), ...PageRequest })
  .meta({ id: 'billing.InvoiceCorrectionListRequest' });

/** billing.invoices.corrections.list response. */
export const InvoiceCorrectionPage = page(InvoiceCorrection, 'billing.InvoiceCorrectionPage', 'The invoice\'s corrections, oldest first.');

/** How one order was rated on one side of a correction. */
const OrderRating = CorrectionRating.extend({ relationship_id: Uuid.nullable(), exempt_amount: z.int(), fee: z.int() }).meta({ id: 'billing.CorrectionOrderRating' });

/** One order behind a correction line. */
export const InvoiceCorrectionOrder = z
  .object({
    order_id: z.string(),
    line_index: z.int().describe('The correction line.'),
    source_line_index: z.int().describe('The line of the corrected invoice.'),
    old: OrderRating.describe('As billed before the correction.'),
    new: OrderRating.describe('As the correction bills it.'),
    difference: z.int().describe('new.fee - old.fee, minor units.'),
  })
  .meta({ id: 'billing.InvoiceCorrectionOrder' });

/** billing.invoices.corrections.orders.list request. */
export const InvoiceCorrectionOrderListRequest = z
  .strictObject({
    correction_id: Uuid.describe('The correction.'),
    line_index: z.int().min(0).max(100_000).optional().describe('Only the orders of this correction line.'),
    ...PageRequest,
  })
  .meta({ id: 'billing.InvoiceCorrectionOrderListRequest' });

/** billing.invoices.corrections.orders.list response. */
export const InvoiceCorrectionOrderPage = page(InvoiceCorrectionOrder, 'billing.InvoiceCorrectionOrderPage', 'Orders by correction line, then in rating order.');

const ImpactPage = {
  limit: z.int().min(1).max(24).default(12).describe('Invoices per page, 1-24 (default 12): each is rated anew.'),
  cursor: z.string().max(500).optional().describe('The `pagination.cursor` of the previous page.'),
};

/** billing.configuration.pricing.preview-impact request: pricing.insert's body, and a page. */
export const PricingImpactRequest = PricingWriteRequest.extend(ImpactPage).meta({ id: 'billing.PricingImpactRequest' });
/** billing.configuration.baselines.preview-impact request: baselines.insert's body, and a page. */
export const BaselineImpactRequest = BaselineWriteRequest.extend(ImpactPage).meta({ id: 'billing.BaselineImpactRequest' });

/** What a revision would change on one invoice. */
export const RevisionImpactItem = z
  .object({
    invoice_id: Uuid,
    number: z.string().nullable(),
    status: z.string(),
    period: z.string().describe('The invoiced month, YYYY-MM.'),
    old_total: z.int().describe('What the invoice\'s metered lines bill now, with the corrections issued since.'),
    new_total: z.int().describe('Its orders rated with the revision saved.'),
    difference: z.int().describe('new_total - old_total, minor units.'),
    changed_order_count: z.int().describe('Orders whose fee or rating revisions would differ.'),
    unrateable_order_count: z.int().describe('Orders the revision would leave unrateable (e.g. another currency): a later re-rating of this invoice would be refused.'),
  })
  .meta({ id: 'billing.RevisionImpactItem' });

/** The impact preview of a revision. */
export const RevisionImpact = z
  .object({
    subscription_id: Uuid,
    currency: z.string(),
    effective_from: z.string(),
    effective_to: z.string().nullable(),
    months: z.object({ from: z.string().nullable(), to: z.string().nullable() }).describe('The invoiced months the revision can change (those its range touches), or nulls when none.'),
    items: z.array(RevisionImpactItem).describe('This page of invoices the revision would change (oldest month first); invoices it leaves as they are are not listed.'),
    examined: z.int().describe('Invoices rated on this page (listed or not).'),
    pagination: z.object({ cursor: z.string() }).nullable().describe('null on the last page.'),
  })
  .meta({ id: 'billing.RevisionImpact' });
