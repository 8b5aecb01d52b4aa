// The billing documents a customer receives: invoice, credit note and payment receipt. Each is a pure function of the data the
// read models hold (gathered by queries/billing/documents.ts): same data, same bytes; the metadata date is the document's own.
import type { InvoiceLine } from '../domain/billing/invoice.ts';
import { formatDate, formatMoney } from './money.ts';
import { type Party, letterhead, partyAndFacts, section, table, totals } from './parts.ts';
import { renderPdf } from './pdf.ts';

/** An invoice as its document shows it. */
export interface InvoiceFacts {
  id: string;
  number: string | null;
  status: string;
  currency: string;
  lines: InvoiceLine[];
  subtotal: number;
  total: number;
  amount_paid: number;
  amount_credited: number;
  amount_remaining: number;
  memo: string | null;
  issue_date: string | null;
  due_date: string | null;
  finalized_at: string | null;
  created_at: string;
}

/** A payment on an invoice. */
export interface PaymentFacts {
  id: string;
  amount: number;
  currency: string;
  method: string;
  reference: string;
  received_on: string;
  status: string;
  created_at: string;
}

/** An issued credit note. */
export interface CreditNoteFacts {
  id: string;
  amount: number;
  currency: string;
  reason: string;
  description: string;
  applied_to_invoice: number | null;
  credited_to_balance: number | null;
  issued_at: string | null;
}

/** Everything an invoice's document shows. */
export interface InvoiceDocumentData {
  seller: Party;
  customer: Party;
  invoice: InvoiceFacts;
  payments: PaymentFacts[];
  credit_notes: CreditNoteFacts[];
  payment_instructions: string;
  payment_url: string;
}

const words = (s: string) => s.replace(/_/g, ' ');
const invoiceName = (i: InvoiceFacts) => i.number ?? `draft ${i.id}`;

/** The file name a document is downloaded and attached as. */
export function documentFilename(kind: 'invoice' | 'credit-note' | 'receipt', label: string): string {
  return `${kind}-${label.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
}

/** The invoice's PDF. */
export function renderInvoicePdf(d: InvoiceDocumentData): Promise<Buffer> {
  const inv = d.invoice;
  const m = (n: number) => formatMoney(n, inv.currency);
  return renderPdf({ title: `Invoice ${invoiceName(inv)}`, created: new Date(inv.finalized_at ?? inv.created_at) }, (pdf) => {
    letterhead(pdf, 'Invoice', d.seller);
    partyAndFacts(pdf, 'Bill to', d.customer, [
      ['Invoice number', invoiceName(inv)],
      ['Issue date', formatDate(inv.issue_date)],
      ['Due date', formatDate(inv.due_date)],
      ['Status', words(inv.status)],
    ]);
    table(pdf, [{ heading: 'Description', width: 6 }, { heading: 'Quantity', width: 1.5, right: true }, { heading: 'Unit price', width: 2, right: true }, { heading: 'Amount', width: 2, right: true }],
      inv.lines.map((l) => [l.description, String(l.quantity), m(l.unit_amount), m(l.amount)]));
    totals(pdf, [
      { label: 'Subtotal', value: m(inv.subtotal) },
      { label: 'Total', value: m(inv.total), strong: true },
      ...(inv.amount_credited ? [{ label: 'Credited', value: `-${m(inv.amount_credited)}` }] : []),
      ...(inv.amount_paid ? [{ label: 'Paid', value: `-${m(inv.amount_paid)}` }] : []),
      { label: 'Amount due', value: m(inv.amount_remaining), strong: true },
    ]);
    const metered = inv.lines.flatMap((l) => (l.metered ? [{ line: l, u: l.metered }] : []));
    if (metered.length) {
      section(pdf, 'Usage summary');
      table(pdf, [{ heading: 'Period', width: 1.3 }, { heading: 'Orders', width: 1.6 }, { heading: 'Order value', width: 2, right: true }, { heading: 'Exempt', width: 2, right: true }, { heading: 'Chargeable', width: 2, right: true }, { heading: 'Rate', width: 1.2, right: true }, { heading: 'Fee', width: 2, right: true }],
        metered.map(({ line, u }) => [u.period, `${u.order_count} ${words(u.classification)}`, m(u.order_amount), m(u.exempt_amount), m(u.chargeable_amount), `${(u.rate_bps / 100).toFixed(2)}%`, m(line.amount)]));
    }
    if (d.credit_notes.length) {
      section(pdf, 'Credit notes');
      table(pdf, [{ heading: 'Issued', width: 2 }, { heading: 'Reason', width: 5 }, { heading: 'Amount', width: 2, right: true }],
        d.credit_notes.map((c) => [formatDate(c.issued_at), `${words(c.reason)}: ${c.description}`, m(c.amount)]));
    }
    if (d.payments.length) {
      section(pdf, 'Payments');
      table(pdf, [{ heading: 'Received', width: 2 }, { heading: 'Method', width: 2 }, { heading: 'Reference', width: 3 }, { heading: 'Amount', width: 2, right: true }],
        d.payments.map((p) => [formatDate(p.received_on), words(p.method), p.reference, m(p.amount)]));
    }
    if (inv.memo) section(pdf, 'Notes', inv.memo);
    if (inv.amount_remaining > 0 && inv.status === 'open') {
      section(pdf, 'How to pay', `${d.payment_instructions}\nQuote ${invoiceName(inv)}. Amount due: ${m(inv.amount_remaining)} by ${formatDate(inv.due_date)}.`);
      pdf.font('Helvetica').fontSize(9).fillColor('#1a4fa0').text(d.payment_url, { link: d.payment_url, underline: true }).fillColor('black');
    }
  });
}

/** A credit note's PDF (an issued credit note request). */
export function renderCreditNotePdf(d: { seller: Party; customer: Party; invoice: InvoiceFacts; credit_note: CreditNoteFacts }): Promise<Buffer> {
  const c = d.credit_note;
  const m = (n: number) => formatMoney(n, c.currency);
  return renderPdf({ title: `Credit note for ${invoiceName(d.invoice)}`, created: new Date(c.issued_at ?? d.invoice.created_at) }, (pdf) => {
    letterhead(pdf, 'Credit note', d.seller);
    partyAndFacts(pdf, 'Credited to', d.customer, [
      ['Credit note', c.id],
      ['For invoice', invoiceName(d.invoice)],
      ['Issued', formatDate(c.issued_at)],
    ]);
    table(pdf, [{ heading: 'Reason', width: 6 }, { heading: 'Amount', width: 2, right: true }], [[`${words(c.reason)}: ${c.description}`, m(c.amount)]]);
    totals(pdf, [
      { label: 'Credit total', value: m(c.amount), strong: true },
      { label: 'Applied to the invoice', value: m(c.applied_to_invoice ?? 0) },
      { label: 'Added to your credit balance', value: m(c.credited_to_balance ?? 0) },
      { label: 'Invoice amount due now', value: formatMoney(d.invoice.amount_remaining, d.invoice.currency), strong: true },
    ]);
  });
}

/** A payment receipt's PDF. */
export function renderReceiptPdf(d: { seller: Party; customer: Party; invoice: InvoiceFacts; payment: PaymentFacts }): Promise<Buffer> {
  const p = d.payment;
  const m = (n: number) => formatMoney(n, p.currency);
  return renderPdf({ title: `Receipt for ${invoiceName(d.invoice)}`, created: new Date(p.created_at) }, (pdf) => {
    letterhead(pdf, 'Payment receipt', d.seller);
    partyAndFacts(pdf, 'Received from', d.customer, [
      ['Receipt', p.id],
      ['For invoice', invoiceName(d.invoice)],
      ['Received on', formatDate(p.received_on)],
      ['Method', words(p.method)],
      ['Reference', p.reference],
      ...(p.status === 'voided' ? ([['Status', 'voided']] as [string, string][]) : []),
    ]);
    totals(pdf, [
      { label: 'Amount received', value: m(p.amount), strong: true },
      { label: 'Invoice total', value: formatMoney(d.invoice.total, d.invoice.currency) },
      { label: 'Invoice amount due now', value: formatMoney(d.invoice.amount_remaining, d.invoice.currency), strong: true },
    ]);
    section(pdf, 'Thank you', `This receipt confirms ${m(p.amount)} received towards ${invoiceName(d.invoice)}.`);
  });
}
