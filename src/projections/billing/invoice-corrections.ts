// billing_invoice_corrections and billing_invoice_correction_orders: the re-rating corrections of usage invoices and the
// orders behind their lines, with both ratings of each order; read by queries/billing/invoice-corrections.ts.
import {
  type CorrectionRating, type InvoiceCorrectionEvent, type RecordedCorrection, invoiceCorrectionCodec,
} from '../../domain/billing/invoice-correction.ts';
import { currentType } from '../../domain/decider.ts';
import type { Actor } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { readRecorded } from '../recorded.ts';

/** A stored correction: as recorded, with who recorded it. */
export type CorrectionDoc = RecordedCorrection & { recorded_by: Actor };

/** How an order was rated on one side of a correction (the line's rating with the order's own parts). */
export interface OrderRatingDoc extends CorrectionRating {
  relationship_id: string | null;
  exempt_amount: number;
  fee: number;
}

/** One corrected order: where it sits, and how it was billed before (`old`) and after (`new`) the correction. */
export interface CorrectionOrderDoc {
  correction_id: string;
  invoice_id: string;
  basis: number;
  line_index: number;
  source_line_index: number;
  seq: number;
  order_id: string;
  old: OrderRatingDoc;
  new: OrderRatingDoc;
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
    for (const e of events) {
      if (!e.streamId.startsWith('invoicecorrections-') || !TYPES.has(currentType(invoiceCorrectionCodec, e.type))) continue;
      const read: InvoiceCorrectionEvent = readRecorded(invoiceCorrectionCodec, e);
      if (read.type === 'InvoiceCorrectionRecorded') {
        const doc: CorrectionDoc = { ...read.data, recorded_by: e.metadata.actor };
        await trx('billing_invoice_corrections')
          .insert({ correction_id: doc.correction_id, invoice_id: doc.invoice_id, basis: doc.basis, recorded_at: doc.recorded_at, doc })
          .onConflict('correction_id').ignore();
        continue;
      }
      // The orders follow their correction in the same append, so its lines are stored by now.
      const row = (await trx('billing_invoice_corrections').where({ correction_id: read.data.correction_id }).first('doc')) as { doc: CorrectionDoc } | undefined;
      if (!row) throw new Error(`invariant broken: the orders of correction ${read.data.correction_id} before the correction`);
      const c = row.doc;
      const rows = read.data.orders.map((o, i) => {
        const line = c.lines[o.line];
        if (!line) throw new Error(`invariant broken: correction ${c.correction_id} has no line ${o.line}`);
        const doc: CorrectionOrderDoc = {
          correction_id: c.correction_id, invoice_id: c.invoice_id, basis: c.basis, line_index: o.line, source_line_index: line.source_line_index,
          seq: read.data.first + i, order_id: o.order_id, old: { ...line.old, ...o.old }, new: { ...line.new, ...o.new },
        };
        return { id: `${doc.correction_id}:${doc.order_id}`, correction_id: doc.correction_id, invoice_id: doc.invoice_id, basis: doc.basis, line_index: doc.line_index, seq: doc.seq, order_id: doc.order_id, doc };
      });
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        await trx.raw(
          `insert into billing_invoice_correction_orders (id, correction_id, invoice_id, basis, line_index, seq, order_id, doc)
           select id, correction_id, invoice_id, basis, line_index, seq, order_id, doc from jsonb_populate_recordset(null::billing_invoice_correction_orders, ?::jsonb)
           on conflict (id) do nothing`,
          [JSON.stringify(rows.slice(i, i + ROWS_PER_STATEMENT))],
        );
      }
    }
  },
};
