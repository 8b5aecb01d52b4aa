// Re-rating corrections (issue 26 section 5): what an invoice's orders are billed now (the invoice, then each order's
// latest correction), the diff between that and rating them anew, and the corrections of an invoice with their orders
// (billing_invoice_corrections and billing_invoice_correction_orders, written by projections/billing/invoice-corrections.ts).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import {
  InvoiceCorrectionListRequest, InvoiceCorrectionOrderListRequest, InvoiceCorrectionOrderPage, InvoiceCorrectionPage, type InvoiceCorrection,
} from '../../contract/schemas/billing-corrections.ts';
import type { ConfigurationSnapshot } from '../../domain/billing/configuration/snapshot.ts';
import { type RatedOrder, rateOrders } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingConfigurationProjection } from '../../projections/billing/configuration/configuration.ts';
import { billingInvoiceOrdersProjection } from '../../projections/billing/invoice-orders.ts';
import { billingUsageProjection } from '../../projections/billing/usage.ts';
import { type CorrectionDoc, type CorrectionOrderDoc, type OrderRatingDoc, billingInvoiceCorrectionsProjection } from '../../projections/billing/invoice-corrections.ts';
import type { CorrectionLine, CorrectionRating } from '../../domain/billing/invoice-correction.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import { loadConfigurationSnapshot } from './configuration/snapshot.ts';
import { consumedBeforeDocument } from './month-documents.ts';
import { invoiceOrderRows } from './invoice-orders.ts';
import { visibleInvoice } from './invoices.ts';
import { unrateableError, unrateableIssues, usageByOrderIds } from './usage.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor, keysetPage } from '../pagination.ts';

/** The fields whose difference makes an order differ (what the preview lists as `changed`). */
export const RATING_FIELDS = ['classification', 'relationship_id', 'rate_bps', 'exempt_amount', 'fee', 'pricing_revision_id', 'baseline_revision_id'] as const;

/** An order of an invoice as it is billed now: its line on the invoice and its latest rating (the invoice's, or its last correction's). */
export interface BilledOrder {
  order_id: string;
  source_line_index: number;
  billed: OrderRatingDoc;
}

/** An order whose rating now differs from how it is billed. */
export interface OrderChange {
  order_id: string;
  source_line_index: number;
  old: OrderRatingDoc;
  new: OrderRatingDoc;
  changed: string[];
}

/** A whole re-rating diff of an invoice: per metered line the billed and re-rated sums, every changed order, and what identifies it. */
export interface RerateDiff {
  subscription_id: string;
  as_of: string;
  lines: { line_index: number; description: string; old_amount: number; new_amount: number; difference: number }[];
  changes: OrderChange[];
  /** Corrections already recorded for the invoice (the diff is computed on them). */
  basis: number;
  /** sha256 of the invoice, the basis and every change: what a correction is applied against. */
  hash: string;
}

/** The subscription a usage invoice was generated for, or 409 invoice_not_metered. */
export function meteredSubscription(invoice: InvoiceDoc): string {
  const subscriptionId = invoice.lines.find((l) => l.metered)?.metered?.subscription_id;
  if (!subscriptionId) throw billingErrors.error('invoice_not_metered', 'The invoice has no metered lines: it was not generated from usage.');
  return subscriptionId;
}

/** A corrected order with both full ratings (its correction line's, completed by its own parts). */
export interface CorrectedOrder {
  correction_id: string;
  line_index: number;
  source_line_index: number;
  seq: number;
  order_id: string;
  old: OrderRatingDoc;
  new: OrderRatingDoc;
}

/**
 * Corrected orders matching `where` (on `o`, the orders table), each joined to its correction's line; `latest`: only each
 * order's latest correction. Rows without their correction or line (never written so) are left out.
 */
async function correctedOrders(knex: Knex, where: string, bindings: Knex.RawBinding[], latest: boolean, page?: { after?: [number, number]; limit: number }): Promise<CorrectedOrder[]> {
  const after = page?.after ? ' and (o.line_index, o.seq) > (?, ?)' : '';
  const res = await knex.raw(
    `select ${latest ? 'distinct on (o.order_id) ' : ''}o.doc as doc, c.doc->'lines'->o.line_index as line
     from billing_invoice_correction_orders o join billing_invoice_corrections c on c.id = o.correction_id
     where ${where}${after} and jsonb_typeof(c.doc->'lines'->o.line_index) = 'object'
     order by ${latest ? 'o.order_id, c.basis desc' : 'o.line_index, o.seq'}${page ? ' limit ?' : ''}`,
    [...bindings, ...(page?.after ?? []), ...(page ? [page.limit] : [])],
  );
  return (res.rows as { doc: CorrectionOrderDoc; line: CorrectionLine }[]).map(({ doc, line }) => {
    const side = (r: CorrectionRating, part: CorrectionOrderDoc['old']): OrderRatingDoc => ({
      classification: r.classification, rate_bps: r.rate_bps, minimum_fee: r.minimum_fee, pricing_revision_id: r.pricing_revision_id, baseline_revision_id: r.baseline_revision_id,
      relationship_id: part.relationship_id, exempt_amount: part.exempt_amount, fee: part.fee,
    });
    return { correction_id: doc.correction_id, line_index: doc.line_index, source_line_index: line.source_line_index, seq: doc.seq, order_id: doc.order_id, old: side(line.old, doc.old), new: side(line.new, doc.new) };
  });
}

/** How many corrections of the invoice are recorded. */
export async function correctionCount(knex: Knex, invoiceId: string): Promise<number> {
  const row = (await knex('billing_invoice_corrections').where({ invoice_id: invoiceId }).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** Every order of a usage invoice, in rating order, with how it is billed now (the invoice's rating, or its latest correction's). */
export async function billedOrders(knex: Knex, invoice: InvoiceDoc): Promise<BilledOrder[]> {
  const rows = await invoiceOrderRows(knex, invoice.id);
  const latest = new Map((await correctedOrders(knex, 'o.invoice_id = ?', [invoice.id], true)).map((o) => [o.order_id, o.new]));
  return rows.flatMap((r) => {
    const m = invoice.lines[r.line_index]?.metered;
    if (!m) return [];
    const billed: OrderRatingDoc = latest.get(r.order_id) ?? {
      classification: m.classification, rate_bps: m.rate_bps, minimum_fee: m.minimum_fee, pricing_revision_id: m.pricing_revision_id, baseline_revision_id: m.baseline_revision_id,
      relationship_id: r.relationship_id, exempt_amount: r.exempt_amount, fee: r.fee,
    };
    return [{ order_id: r.order_id, source_line_index: r.line_index, billed }];
  });
}

/** The rating of a rated order, in the shape corrections keep. */
function ratingOf(n: RatedOrder): OrderRatingDoc {
  return {
    classification: n.classification, rate_bps: n.rate_bps, minimum_fee: n.minimum_fee, pricing_revision_id: n.pricing_revision_id, baseline_revision_id: n.baseline_revision_id,
    relationship_id: n.relationship_id, exempt_amount: n.exempt_amount, fee: n.fee,
  };
}

/** Billed orders rated under `snapshot` as known at `asOf`: per metered line the sums, the changed orders, and the unrateable ones (not thrown). */
export async function compareRatings(knex: Knex, invoice: InvoiceDoc, billed: BilledOrder[], snapshot: ConfigurationSnapshot, asOf: string) {
  const facts = await usageByOrderIds(knex, billed.map((b) => b.order_id));
  // A voided order is not rated: its fee goes to 0 (issue 26 section 4); the others are rated with their current facts.
  const voided = new Set(billed.filter((b) => facts.get(b.order_id)?.correction?.kind === 'voided').map((b) => b.order_id));
  const orders = billed.flatMap((b) => (voided.has(b.order_id) ? [] : facts.get(b.order_id) ?? []));
  // A supplementary invoice's orders are rated after the month's earlier documents' orders, as generation rated them.
  const metered = invoice.lines.find((l) => l.metered)?.metered;
  const consumed = metered ? await consumedBeforeDocument(knex, invoice.id, metered.subscription_id, metered.period, snapshot, asOf) : undefined;
  const ratings = rateOrders(snapshot, orders, asOf, consumed);
  const issues = unrateableIssues(orders, ratings);
  const now = new Map(ratings.filter((r): r is RatedOrder => r.status === 'rated').map((r) => [r.order_id, r]));
  const lines = invoice.lines.flatMap((l, i) => (l.metered ? [{ line_index: i, description: l.description, old_amount: 0, new_amount: 0, difference: 0 }] : []));
  const byIndex = new Map(lines.map((l) => [l.line_index, l]));
  const changes: OrderChange[] = [];
  for (const b of billed) {
    const n = now.get(b.order_id);
    const line = byIndex.get(b.source_line_index);
    if (!line) continue;
    line.old_amount += b.billed.fee;
    if (!n && !voided.has(b.order_id)) continue; // unrateable: counted in issues
    // A voided order keeps the rating it is billed at, with nothing exempt and no fee.
    const fresh = n ? ratingOf(n) : { ...b.billed, exempt_amount: 0, fee: 0 };
    line.new_amount += fresh.fee;
    const changed = RATING_FIELDS.filter((k) => b.billed[k] !== fresh[k]);
    if (changed.length) changes.push({ order_id: b.order_id, source_line_index: b.source_line_index, old: b.billed, new: fresh, changed });
  }
  for (const l of lines) l.difference = l.new_amount - l.old_amount;
  return { lines, changes, issues };
}

/**
 * The re-rating diff of a usage invoice: its orders as billed (the invoice plus its corrections) against the same orders
 * rated under the configuration as known now. Fails closed (409 usage_unrateable) like generation.
 */
export async function rerateDiff(ctx: RequestContext, invoice: InvoiceDoc): Promise<RerateDiff> {
  const subscriptionId = meteredSubscription(invoice);
  const knex = ctx.services.knex;
  // Configuration changed and corrections issued by anyone up to now are what "as known now" means, not a lagging view of them.
  await caughtUp(ctx.services, [billingConfigurationProjection, billingInvoiceCorrectionsProjection, billingUsageProjection, billingInvoiceOrdersProjection]);
  const basis = await correctionCount(knex, invoice.id);
  const billed = await billedOrders(knex, invoice);
  const asOf = ctx.now.toISOString();
  const { lines, changes, issues } = await compareRatings(knex, invoice, billed, await loadConfigurationSnapshot(ctx, subscriptionId), asOf);
  if (issues.length) throw unrateableError(issues, 'the invoice cannot be re-rated');
  const hash = crypto.createHash('sha256').update(JSON.stringify([invoice.id, basis, changes.map((c) => [c.order_id, c.old, c.new])])).digest('hex');
  return { subscription_id: subscriptionId, as_of: asOf, lines, changes, basis, hash };
}

/** A stored correction as the API shows it. */
export function correctionBody(doc: CorrectionDoc): z.input<typeof InvoiceCorrection> {
  return {
    id: doc.correction_id, invoice_id: doc.invoice_id, organization_id: doc.organization_id, customer_id: doc.customer_id, currency: doc.currency, sequence: doc.basis + 1,
    diff_hash: doc.diff_hash, reason: doc.reason, as_of: doc.as_of, difference: doc.difference, order_count: doc.order_count,
    credit_notes: doc.credit_notes, correction_invoice_id: doc.correction_invoice_id,
    lines: doc.lines.map((l, i) => ({ line_index: i, ...l })), recorded_at: doc.recorded_at, recorded_by: doc.recorded_by,
  };
}

/** The correction invoices of an invoice's earlier corrections, oldest first. */
export async function correctionInvoiceIds(knex: Knex, invoiceId: string): Promise<string[]> {
  const rows = (await knex('billing_invoice_corrections').where({ invoice_id: invoiceId }).orderBy('basis').select('doc')) as { doc: CorrectionDoc }[];
  return rows.flatMap((r) => (r.doc.correction_invoice_id ? [r.doc.correction_invoice_id] : []));
}

/** The stored correction, or null. */
export async function correctionDoc(knex: Knex, correctionId: string): Promise<CorrectionDoc | null> {
  const row = (await knex('billing_invoice_corrections').where({ id: correctionId }).first('doc')) as { doc: CorrectionDoc } | undefined;
  return row?.doc ?? null;
}

/** billing.invoices.corrections.list */
export const invoicesCorrectionsList = operation({
  id: 'billing.invoices.corrections.list',
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
          currency: 'GBP',
          sequence: 1,
          diff_hash: 'diff hash',
          reason: 'Agreed with the customer by phone',
          as_of: '2026-01-15T09:30:00.000Z',
          difference: 1,
          order_count: 1,
          credit_notes: [{ invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', credit_note_request_id: '01938121-50f1-741f-8357-7b9a90440d9f', amount: 12000 }],
          correction_invoice_id: null,
          lines: [
            {
              line_index: 1,
              source_line_index: 1,
              description: 'Monthly platform fee',
              order_count: 1,
              old_fees: 1,
              new_fees: 1,
              amount: 12000,
              old: {
                classification: 'platform_introduced',
                rate_bps: 1,
                minimum_fee: 1,
                pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
                baseline_revision_id: null,
              },
              new: {
                classification: 'platform_introduced',
                rate_bps: 1,
                minimum_fee: 1,
                pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
                baseline_revision_id: null,
              },
            },
          ],
          recorded_at: '2026-01-15T09:30:00.000Z',
          recorded_by: { type: 'type', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the re-rating corrections of a usage invoice, oldest first, with their lines and the credit note or invoice of each (extension). Billing staff only.',
  request: InvoiceCorrectionListRequest,
  response: InvoiceCorrectionPage,
  error: 'billing.InvoiceCorrectionListError',
  errors: billingErrors.list('invoice_not_found', 'invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    const q = ctx.services.knex('billing_invoice_corrections').where({ invoice_id: invoice.id }).select('basis', 'doc');
    const page = await keysetPage<{ basis: number; doc: CorrectionDoc }>(q, { columns: ['basis'], shape: cursorShape(cursorParts.index), limit: req.limit, cursor: req.cursor, key: (r) => [r.basis] });
    return { items: page.rows.map((r) => correctionBody(r.doc)), pagination: page.pagination };
  },
});

/** billing.invoices.corrections.orders.list */
export const invoicesCorrectionsOrdersList = operation({
  id: 'billing.invoices.corrections.orders.list',
  examples: {
    request: { correction_id: '019387d7-8e85-7994-8bac-898b898ad9a3' },
    response: {
      items: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          line_index: 1,
          source_line_index: 1,
          old: {
            classification: 'platform_introduced',
            rate_bps: 1,
            minimum_fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
            relationship_id: null,
            exempt_amount: 12000,
            fee: 1,
          },
          new: {
            classification: 'platform_introduced',
            rate_bps: 1,
            minimum_fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
            relationship_id: null,
            exempt_amount: 12000,
            fee: 1,
          },
          difference: 1,
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the orders behind a correction\'s lines, each with how it was billed before and how the correction bills it (extension). Billing staff only.',
  description: 'Orders come by correction line, then in rating order; `line_index` narrows to one line. Per line, the new fees minus the old fees are the line\'s amount.',
  request: InvoiceCorrectionOrderListRequest,
  response: InvoiceCorrectionOrderPage,
  error: 'billing.InvoiceCorrectionOrderListError',
  errors: billingErrors.list('correction_not_found', 'invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    if (!(await correctionDoc(knex, req.correction_id))) throw ctx.errors.error('correction_not_found', `No correction ${req.correction_id}.`);
    const after = req.cursor ? decodeCursor(req.cursor, cursorShape(cursorParts.index, cursorParts.index)) : undefined;
    const where = req.line_index === undefined ? 'o.correction_id = ?' : 'o.correction_id = ? and o.line_index = ?';
    const rows = await correctedOrders(knex, where, req.line_index === undefined ? [req.correction_id] : [req.correction_id, req.line_index], false, { after, limit: req.limit + 1 });
    const items = rows.slice(0, req.limit);
    const last = items.at(-1);
    return {
      items: items.map((d) => ({ order_id: d.order_id, line_index: d.line_index, source_line_index: d.source_line_index, old: d.old, new: d.new, difference: d.new.fee - d.old.fee })),
      pagination: rows.length > req.limit && last ? { cursor: encodeCursor([last.line_index, last.seq]) } : null,
    };
  },
});

/** Read operations of corrections. */
export const billingInvoiceCorrectionQueries = [invoicesCorrectionsList, invoicesCorrectionsOrdersList];
