// billing.invoices.orders.list, reading billing_invoice_orders (written by projections/billing/invoice-orders.ts)
// with the usage facts and the invoice's metered lines.
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { type InvoiceOrderDetail, InvoiceOrderDetailListRequest, InvoiceOrderDetailPage } from '../../contract/schemas/billing-usage.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { InvoiceLine } from '../../domain/billing/invoice-events.ts';
import type { InvoiceOrderDoc } from '../../projections/billing/invoice-orders.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';
import { visibleInvoice } from './invoices.ts';
import { usageByOrderIds } from './usage.ts';

/** Every rated order of an invoice, in rating order. */
export async function invoiceOrderRows(knex: Knex, invoiceId: string): Promise<InvoiceOrderDoc[]> {
  const res = await knex.raw(
    `select doc->>'order_id' as order_id, line_index, seq, doc->>'relationship_id' as relationship_id, (doc->>'exempt_amount')::bigint::text as exempt_amount, fee::text as fee
     from billing_invoice_orders where invoice_id = ? order by seq`,
    [invoiceId],
  );
  return (res.rows as { order_id: string; line_index: number; seq: number; relationship_id: string | null; exempt_amount: string; fee: string }[]).map((r) => ({
    invoice_id: invoiceId, order_id: r.order_id, line_index: r.line_index, seq: r.seq, relationship_id: r.relationship_id, exempt_amount: Number(r.exempt_amount), fee: Number(r.fee),
  }));
}

/** The invoice each of `orderIds` is billed on (an order is on one invoice at most), by order id. */
export async function invoicesOfOrders(knex: Knex, orderIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < orderIds.length; i += 5000) {
    const rows = (await knex('billing_invoice_orders').whereIn('order_id', orderIds.slice(i, i + 5000)).select('order_id', 'invoice_id')) as { order_id: string; invoice_id: string }[];
    for (const r of rows) out.set(r.order_id, r.invoice_id);
  }
  return out;
}

/** The orders billed on `invoiceIds` (order id -> invoice id, line). */
export async function ordersOfInvoices(knex: Knex, invoiceIds: string[]): Promise<Map<string, { invoice_id: string; line_index: number }>> {
  const out = new Map<string, { invoice_id: string; line_index: number }>();
  if (invoiceIds.length === 0) return out;
  const rows = (await knex('billing_invoice_orders').whereIn('invoice_id', invoiceIds).select('order_id', 'invoice_id', 'line_index')) as { order_id: string; invoice_id: string; line_index: number }[];
  for (const r of rows) out.set(r.order_id, { invoice_id: r.invoice_id, line_index: r.line_index });
  return out;
}

/** How many orders are billed on `invoiceIds`. */
export async function orderCountOfInvoices(knex: Knex, invoiceIds: string[]): Promise<number> {
  if (invoiceIds.length === 0) return 0;
  const row = (await knex('billing_invoice_orders').whereIn('invoice_id', invoiceIds).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** The order details of `rows`, from the usage facts and the metered line each sits on. */
export async function orderDetails(knex: Knex, lines: InvoiceLine[], currency: string, rows: InvoiceOrderDoc[]): Promise<z.input<typeof InvoiceOrderDetail>[]> {
  const facts = await usageByOrderIds(knex, rows.map((r) => r.order_id));
  return rows.flatMap((r) => {
    const o = facts.get(r.order_id);
    const m = lines[r.line_index]?.metered;
    if (!o || !m) return []; // usage facts are never removed and lines of a generated draft never change
    return [{
      order_id: r.order_id, line_index: r.line_index, seller: o.seller, buyer: o.buyer, amount: { amount: o.amount, currency: o.currency }, occurred_at: o.occurred_at,
      classification: m.classification, relationship_id: r.relationship_id, rate_bps: m.rate_bps, exempt_amount: r.exempt_amount, chargeable_amount: o.amount - r.exempt_amount,
      fee: { amount: r.fee, currency }, pricing_revision_id: m.pricing_revision_id, baseline_revision_id: m.baseline_revision_id,
    }];
  });
}

/** billing.invoices.orders.list */
export const invoicesOrdersList = operation({
  id: 'billing.invoices.orders.list',
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185' },
    response: {
      items: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          line_index: 1,
          seller: '01932e74-64a5-79ba-8192-f1251866fea0',
          buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
          amount: { amount: 12000, currency: 'GBP' },
          occurred_at: '2026-01-15T09:30:00.000Z',
          classification: 'platform_introduced',
          relationship_id: null,
          rate_bps: 1,
          exempt_amount: 12000,
          chargeable_amount: 12000,
          fee: { amount: 12000, currency: 'GBP' },
          pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
          baseline_revision_id: null,
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Lists the orders behind an invoice's metered lines, with how each was rated; per line, the fees sum to the line's amount.",
  description:
    'Orders come by line, then in rating order (occurred_at, order_id); `line_index` narrows to one line. An organization sees the orders of its own finalized invoices, billing staff those of any. '
    + 'An invoice without metered lines has no orders.',
  request: InvoiceOrderDetailListRequest,
  response: InvoiceOrderDetailPage,
  error: 'billing.InvoiceOrderDetailListError',
  errors: billingErrors.list('invoice_not_found', 'invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    const q = ctx.services.knex('billing_invoice_orders').where({ invoice_id: invoice.id }).select('line_index', 'seq', 'doc');
    if (req.line_index !== undefined) q.where({ line_index: req.line_index });
    const page = await keysetPage<{ line_index: number; seq: number; doc: InvoiceOrderDoc }>(q, {
      columns: ['line_index', 'seq'], shape: cursorShape(cursorParts.index, cursorParts.index), limit: req.limit, cursor: req.cursor, key: (r) => [r.line_index, r.seq],
    });
    return { items: await orderDetails(ctx.services.knex, invoice.lines, invoice.currency, page.rows.map((r) => r.doc)), pagination: page.pagination };
  },
});

/** Read operations of the orders behind invoices. */
export const billingInvoiceOrderQueries = [invoicesOrdersList];
