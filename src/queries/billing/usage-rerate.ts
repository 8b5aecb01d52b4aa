// billing.invoices.rerate.preview (extension): the orders of a usage invoice rated again under the configuration as
// known now, compared with how they were invoiced. Writes nothing.
import { operation } from '../../contract/operation.ts';
import { InvoiceReratePreviewRequest, InvoiceRerateDiff } from '../../contract/schemas/billing-usage.ts';
import type { z } from 'zod';
import { type RatedOrder, rateOrders } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { loadConfigurationSnapshot } from './configuration/snapshot.ts';
import { billingConfigurationProjection } from '../../projections/billing/configuration/configuration.ts';
import { invoiceOrderRows } from './invoice-orders.ts';
import { visibleInvoice } from './invoices.ts';
import { unrateableError, unrateableIssues, usageByOrderIds } from './usage.ts';

/** Differing orders listed in one answer. */
const MAX_LISTED = 1000;

type Rating = z.input<typeof InvoiceRerateDiff>['orders'][number]['old'];

/** billing.invoices.rerate.preview */
export const invoicesReratePreview = operation({
  id: 'billing.invoices.rerate.preview',
  surface: 'core',
  tags: ['Billing'],
  summary: "Rates a usage invoice's orders again under the configuration as known now and shows what would change (extension); writes nothing. Billing staff only.",
  description:
    'Per line the old and new sum of its orders\' fees, and every order whose fee or rating revisions differ (old and new rating, the fields that changed). '
    + 'Fails closed like generation: if an order cannot be rated now, 409 `usage_unrateable` names it.',
  request: InvoiceReratePreviewRequest,
  response: InvoiceRerateDiff,
  error: 'billing.InvoiceReratePreviewError',
  errors: billingErrors.list('invoice_not_found', 'invoice_not_metered', 'usage_unrateable', 'projection_lag'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    const subscriptionId = invoice.lines.find((l) => l.metered)?.metered?.subscription_id;
    if (!subscriptionId) throw ctx.errors.error('invoice_not_metered', 'The invoice has no metered lines: it was not generated from usage.');
    const knex = ctx.services.knex;
    // Configuration changed by anyone up to now is what "as known now" means, not a lagging view of it.
    await ctx.waitFor(await ctx.store.lastCommittedPosition(), [billingConfigurationProjection]);
    const rows = await invoiceOrderRows(knex, invoice.id);
    const facts = await usageByOrderIds(knex, rows.map((r) => r.order_id));
    const orders = rows.flatMap((r) => facts.get(r.order_id) ?? []);
    const asOf = ctx.now.toISOString();
    const ratings = rateOrders(await loadConfigurationSnapshot(ctx, subscriptionId), orders, asOf);
    const issues = unrateableIssues(orders, ratings);
    if (issues.length) throw unrateableError(issues, 'the invoice cannot be re-rated');
    const now = new Map(ratings.filter((r): r is RatedOrder => r.status === 'rated').map((r) => [r.order_id, r]));
    const lines = invoice.lines.map((l, i) => ({ line_index: i, description: l.description, old_amount: l.amount, new_amount: 0, difference: 0 })).filter((l) => invoice.lines[l.line_index]?.metered);
    const byIndex = new Map(lines.map((l) => [l.line_index, l]));
    const changed: z.input<typeof InvoiceRerateDiff>['orders'] = [];
    let count = 0;
    for (const r of rows) {
      const m = invoice.lines[r.line_index]?.metered;
      const n = now.get(r.order_id);
      const line = byIndex.get(r.line_index);
      if (!m || !n || !line) continue;
      line.new_amount += n.fee;
      const old: Rating = { classification: m.classification, relationship_id: r.relationship_id, rate_bps: m.rate_bps, exempt_amount: r.exempt_amount, fee: r.fee, pricing_revision_id: m.pricing_revision_id, baseline_revision_id: m.baseline_revision_id };
      const fresh: Rating = { classification: n.classification, relationship_id: n.relationship_id, rate_bps: n.rate_bps, exempt_amount: n.exempt_amount, fee: n.fee, pricing_revision_id: n.pricing_revision_id, baseline_revision_id: n.baseline_revision_id };
      const fields = (Object.keys(old) as (keyof Rating)[]).filter((k) => old[k] !== fresh[k]);
      if (fields.length === 0) continue;
      count++;
      if (changed.length < MAX_LISTED) changed.push({ order_id: r.order_id, line_index: r.line_index, old, new: fresh, changed: fields, difference: n.fee - r.fee });
    }
    for (const l of lines) l.difference = l.new_amount - l.old_amount;
    const oldTotal = lines.reduce((s, l) => s + l.old_amount, 0);
    const newTotal = lines.reduce((s, l) => s + l.new_amount, 0);
    return {
      invoice_id: invoice.id, as_of: asOf, currency: invoice.currency, old_total: oldTotal, new_total: newTotal, difference: newTotal - oldTotal,
      lines, changed_order_count: count, orders: changed, orders_truncated: count > changed.length,
    };
  },
});

/** Read operations of re-rating. */
export const billingUsageRerateQueries = [invoicesReratePreview];
