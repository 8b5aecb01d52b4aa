// billing.invoices.rerate.preview (extension): the orders of a usage invoice rated again under the configuration as
// known now, compared with how they are billed (the invoice and the corrections issued since). Writes nothing.
import { operation } from '../../contract/operation.ts';
import { InvoiceReratePreviewRequest, InvoiceRerateDiff } from '../../contract/schemas/billing-usage.ts';
import type { z } from 'zod';
import { billingErrors } from '../../domain/billing/errors.ts';
import { type OrderRatingDoc } from '../../projections/billing/invoice-corrections.ts';
import { rerateDiff } from './invoice-corrections.ts';
import { visibleInvoice } from './invoices.ts';

/** Differing orders listed in one answer. */
const MAX_LISTED = 1000;

type Rating = z.input<typeof InvoiceRerateDiff>['orders'][number]['old'];

function rating(r: OrderRatingDoc): Rating {
  return {
    classification: r.classification, relationship_id: r.relationship_id, rate_bps: r.rate_bps, exempt_amount: r.exempt_amount, fee: r.fee,
    pricing_revision_id: r.pricing_revision_id, baseline_revision_id: r.baseline_revision_id,
  };
}

/** billing.invoices.rerate.preview */
export const invoicesReratePreview = operation({
  id: 'billing.invoices.rerate.preview',
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185' },
    response: {
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      as_of: '2026-01-15T09:30:00.000Z',
      currency: 'GBP',
      old_total: 12000,
      new_total: 12000,
      difference: 1,
      lines: [{ line_index: 1, description: 'Monthly platform fee', old_amount: 12000, new_amount: 12000, difference: 1 }],
      changed_order_count: 1,
      orders: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          line_index: 1,
          old: {
            classification: 'platform_introduced',
            relationship_id: null,
            rate_bps: 1,
            exempt_amount: 12000,
            fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
          },
          new: {
            classification: 'platform_introduced',
            relationship_id: null,
            rate_bps: 1,
            exempt_amount: 12000,
            fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
          },
          changed: ['changed'],
          difference: 1,
        },
      ],
      orders_truncated: false,
      diff_hash: 'diff hash',
      corrections_applied: 1,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Rates a usage invoice's orders again under the configuration as known now and shows what would change (extension); writes nothing. Billing staff only.",
  description:
    'Per line the old and new sum of its orders\' fees, and every order whose fee or rating revisions differ (old and new rating, the fields that changed). '
    + '"Old" is what the orders are billed: the invoice, then each order\'s latest correction (billing.invoices.rerate.apply), so after a correction the same configuration shows no difference. '
    + '`diff_hash` identifies this diff: billing.invoices.rerate.apply takes it. '
    + 'Fails closed like generation: if an order cannot be rated now, 409 `usage_unrateable` names it.',
  request: InvoiceReratePreviewRequest,
  response: InvoiceRerateDiff,
  error: 'billing.InvoiceReratePreviewError',
  errors: billingErrors.list('invoice_not_found', 'invoice_not_metered', 'usage_unrateable', 'projection_lag'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    const diff = await rerateDiff(ctx, invoice);
    const oldTotal = diff.lines.reduce((s, l) => s + l.old_amount, 0);
    const newTotal = diff.lines.reduce((s, l) => s + l.new_amount, 0);
    const orders = diff.changes.slice(0, MAX_LISTED).map((c) => ({
      order_id: c.order_id, line_index: c.source_line_index, old: rating(c.old), new: rating(c.new), changed: c.changed, difference: c.new.fee - c.old.fee,
    }));
    return {
      invoice_id: invoice.id, as_of: diff.as_of, currency: invoice.currency, old_total: oldTotal, new_total: newTotal, difference: newTotal - oldTotal,
      lines: diff.lines, changed_order_count: diff.changes.length, orders, orders_truncated: diff.changes.length > orders.length,
      diff_hash: diff.hash, corrections_applied: diff.basis,
    };
  },
});

/** Read operations of re-rating. */
export const billingUsageRerateQueries = [invoicesReratePreview];
