// billing_invoice_orders: the orders behind usage invoices' metered lines, one row per order; read by queries/billing/invoice-orders.ts.
import { type InvoiceEvent, invoiceCodec } from '../../domain/billing/invoice-events.ts';
import { currentType } from '../../domain/decider.ts';
import type { Projection } from '../projection.ts';
import { readRecorded } from '../recorded.ts';

/** One rated order of an invoice: its line, its place in rating order (`seq`) and how it was rated. */
export interface InvoiceOrderDoc {
  invoice_id: string;
  line_index: number;
  seq: number;
  order_id: string;
  relationship_id: string | null;
  exempt_amount: number;
  fee: number;
}

/** Rows per insert statement. */
const ROWS_PER_STATEMENT = 5000;

/** Builds billing_invoice_orders from InvoiceUsageRated events (rows are never changed: a generated draft's orders are fixed). */
export const billingInvoiceOrdersProjection: Projection = {
  name: 'billing.invoice-orders',
  version: 1,
  tables: ['billing_invoice_orders'],
  handles: (type) => currentType(invoiceCodec, type) === 'InvoiceUsageRated',
  async apply(trx, events) {
    const rows: Record<string, unknown>[] = [];
    for (const e of events) {
      if (!e.streamId.startsWith('invoice-') || currentType(invoiceCodec, e.type) !== 'InvoiceUsageRated') continue;
      const read: InvoiceEvent = readRecorded(invoiceCodec, e);
      if (read.type !== 'InvoiceUsageRated') continue;
      read.data.orders.forEach((o, i) => {
        const doc: InvoiceOrderDoc = {
          invoice_id: read.data.invoice_id, line_index: o.line, seq: read.data.first + i, order_id: o.order_id,
          relationship_id: o.relationship_id, exempt_amount: o.exempt_amount, fee: o.fee,
        };
        rows.push({ id: `${doc.invoice_id}:${doc.order_id}`, invoice_id: doc.invoice_id, line_index: doc.line_index, seq: doc.seq, order_id: doc.order_id, fee: doc.fee, doc });
      });
    }
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      await trx.raw(
        `insert into billing_invoice_orders (id, invoice_id, line_index, seq, order_id, fee, doc)
         select id, invoice_id, line_index, seq, order_id, fee, doc from jsonb_populate_recordset(null::billing_invoice_orders, ?::jsonb)
         on conflict (id) do nothing`,
        [JSON.stringify(rows.slice(i, i + ROWS_PER_STATEMENT))],
      );
    }
  },
};
