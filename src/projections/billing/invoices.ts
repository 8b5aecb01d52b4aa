// billing_invoices: documents built from invoice-stream events, read by queries/billing/invoices.ts.
import { type InvoiceEvent, type InvoiceLine, type InvoiceStatus, amountRemaining, invoiceCodec } from '../../domain/billing/invoice.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored invoice: exactly the billing.InvoiceDetail body. */
export interface InvoiceDoc {
  id: string;
  number: string | null;
  organization_id: string;
  customer_id: string;
  status: InvoiceStatus;
  currency: string;
  lines: InvoiceLine[];
  subtotal: number;
  total: number;
  amount_paid: number;
  amount_credited: number;
  amount_credited_to_balance: number;
  amount_remaining: number;
  memo: string | null;
  metadata: Record<string, string>;
  issue_date: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  marked_uncollectible_at: string | null;
}

// Recomputes the derived amount after any money event; void invoices owe nothing.
function withRemaining(doc: InvoiceDoc): InvoiceDoc {
  const owed = amountRemaining({ ...doc, credited_to_balance: doc.amount_credited_to_balance });
  return { ...doc, amount_remaining: doc.status === 'void' ? 0 : owed };
}

/** Builds billing_invoices from invoice-stream events. */
export const billingInvoicesProjection = documentProjection({
  name: 'billing.invoices',
  version: 2,
  tables: [
    documentTable<InvoiceDoc, InvoiceEvent>({
      table: 'billing_invoices',
      events: invoiceCodec,
      columns: (d) => ({
        organization_id: d.organization_id, customer_id: d.customer_id, status: d.status, currency: d.currency, number: d.number,
        issue_date: d.issue_date, due_date: d.due_date, total: d.total, amount_remaining: d.amount_remaining, created_at: d.created_at,
      }),
      handlers: {
        InvoiceDrafted: (_doc, d) => ({
          id: d.invoice_id, number: null, organization_id: d.organization_id, customer_id: d.customer_id, status: 'draft', currency: d.currency,
          lines: d.lines, subtotal: d.subtotal, total: d.total, amount_paid: 0, amount_credited: 0, amount_credited_to_balance: 0, amount_remaining: d.total,
          memo: d.memo, metadata: d.metadata, issue_date: null, due_date: null, created_at: d.created_at, updated_at: d.created_at,
          finalized_at: null, paid_at: null, voided_at: null, marked_uncollectible_at: null,
        }),
        InvoiceLinesReplaced: (doc, d) => doc && withRemaining({ ...doc, lines: d.lines, subtotal: d.subtotal, total: d.total, updated_at: d.updated_at }),
        InvoiceDetailsUpdated: (doc, d) =>
          doc && { ...doc, ...(d.memo !== undefined ? { memo: d.memo } : {}), ...(d.metadata !== undefined ? { metadata: d.metadata } : {}), updated_at: d.updated_at },
        InvoiceFinalized: (doc, d) =>
          doc && { ...doc, status: 'open', number: d.number, issue_date: d.issue_date, due_date: d.due_date, finalized_at: d.finalized_at, updated_at: d.finalized_at },
        InvoiceVoided: (doc, d) => doc && withRemaining({ ...doc, status: 'void', voided_at: d.voided_at, updated_at: d.voided_at }),
        InvoiceMarkedUncollectible: (doc, d) => doc && { ...doc, status: 'uncollectible', marked_uncollectible_at: d.marked_at, updated_at: d.marked_at },
        InvoicePaid: (doc, d) => doc && { ...doc, status: 'paid', paid_at: d.paid_at, updated_at: d.paid_at },
        PaymentRecorded: (doc, d) => doc && withRemaining({ ...doc, amount_paid: doc.amount_paid + d.amount, updated_at: d.recorded_at }),
        PaymentUpdated: (doc, d) => doc && withRemaining({ ...doc, amount_paid: doc.amount_paid + d.amount_delta, updated_at: d.updated_at }),
        PaymentVoided: (doc, d) => doc && withRemaining({ ...doc, amount_paid: doc.amount_paid - d.amount, updated_at: d.voided_at }),
        CreditNoteIssued: (doc, d) =>
          doc &&
          withRemaining({
            ...doc,
            amount_credited: doc.amount_credited + d.amount,
            amount_credited_to_balance: doc.amount_credited_to_balance + d.credited_to_balance,
            updated_at: d.issued_at,
          }),
      },
    }),
  ],
});
