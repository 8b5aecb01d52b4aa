// billing_invoice_corrections and billing_invoice_correction_orders: the re-rating corrections of usage invoices and the
// orders behind their lines; read by queries/billing/invoice-corrections.ts, which joins each order to its correction's
// line (the rating the line's orders share), so the two events of a correction project in either order.
import {
  type CorrectionRating, type InvoiceCorrectionEvent, type RecordedCorrection, invoiceCorrectionCodec,
} from '../../domain/billing/invoice-correction.ts';
import { currentType } from '../../domain/decider.ts';
import type { Actor } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { readRecorded } from '../recorded.ts';

/** A stored correction: as recorded, with who recorded it. */
export type CorrectionDoc = RecordedCorrection & { recorded_by: Actor };

/** The per-order part of a rating (the rest is its correction line's). */
export interface OrderPartDoc {
  relationship_id: string | null;
  exempt_amount: number;
  fee: number;
}

/** How an order was rated on one side of a correction (the line's rating with the order's own parts). */
export interface OrderRatingDoc extends CorrectionRating, OrderPartDoc {}

/** One corrected order as stored: its correction line and the per-order parts of both ratings. */
export interface CorrectionOrderDoc {
  correction_id: string;
  invoice_id: string;
  line_index: number;
  seq: number;
  order_id: string;
  old: OrderPartDoc;
  new: OrderPartDoc;
}

const TYPES = new Set(['InvoiceCorrectionRecorded', 'InvoiceCorrectionOrdersRecorded']);
/** Rows per insert statement. */
const ROWS_PER_STATEMENT = 5000;

/** Builds the corrections read model (rows never change: a correction is fixed once recorded). */
export const billingInvoiceCorrectionsProjection: Projection = {
  name: 'billing.invoice-corrections',
  version: 1,
  tables: ['billing_invoice_corrections', 'billing_invoice_correction_orders'],
  handles: (type) => TYPES.has(currentType(invoiceCorrectionCodec, type)),
  async apply(trx, events) {
    const corrections: Record<string, unknown>[] = [];
    const orders: Record<string, unknown>[] = [];
    for (const e of events) {
      if (!e.streamId.startsWith('invoicecorrections-') || !TYPES.has(currentType(invoiceCorrectionCodec, e.type))) continue;
      const read: InvoiceCorrectionEvent = readRecorded(invoiceCorrectionCodec, e);
      if (read.type === 'InvoiceCorrectionRecorded') {
        const doc: CorrectionDoc = { ...read.data, recorded_by: e.metadata.actor };
        corrections.push({ id: doc.correction_id, invoice_id: doc.invoice_id, basis: doc.basis, recorded_at: doc.recorded_at, doc });
        continue;
      }
      const { correction_id, invoice_id, first } = read.data;
      read.data.orders.forEach((o, i) => {
        const doc: CorrectionOrderDoc = { correction_id, invoice_id, line_index: o.line, seq: first + i, order_id: o.order_id, old: o.old, new: o.new };
        orders.push({ id: `${correction_id}:${o.order_id}`, correction_id, invoice_id, line_index: o.line, seq: doc.seq, order_id: o.order_id, doc });
      });
    }
    for (let i = 0; i < corrections.length; i += ROWS_PER_STATEMENT) {
      await trx.raw(
        `insert into billing_invoice_corrections (id, invoice_id, basis, recorded_at, doc)
         select id, invoice_id, basis, recorded_at, doc from jsonb_populate_recordset(null::billing_invoice_corrections, ?::jsonb)
         on conflict (id) do nothing`,
        [JSON.stringify(corrections.slice(i, i + ROWS_PER_STATEMENT))],
      );
    }
    for (let i = 0; i < orders.length; i += ROWS_PER_STATEMENT) {
      await trx.raw(
        `insert into billing_invoice_correction_orders (id, correction_id, invoice_id, line_index, seq, order_id, doc)
         select id, correction_id, invoice_id, line_index, seq, order_id, doc from jsonb_populate_recordset(null::billing_invoice_correction_orders, ?::jsonb)
         on conflict (id) do nothing`,
        [JSON.stringify(orders.slice(i, i + ROWS_PER_STATEMENT))],
      );
    }
  },
};
