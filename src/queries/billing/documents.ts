// The data of the billing documents, gathered from the read models, and their rendered PDFs: what the document operations,
// the console, the pay page and the customer emails serve. The same read-model data gives the same bytes.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../../config.ts';
import type { RequestContext } from '../../context.ts';
import { type InvoiceFacts, documentFilename, renderCreditNotePdf, renderInvoicePdf, renderReceiptPdf } from '../../documents/billing.ts';
import type { Party } from '../../documents/parts.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { CreditNoteRequestDoc } from '../../projections/billing/credit-note-requests.ts';
import type { CustomerDoc } from '../../projections/billing/customers.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import type { PaymentDoc } from '../../projections/billing/payments.ts';
import type { ObjectStore } from '../../storage/port.ts';
import { creditNoteRequestIdsOfCustomer, issuedCreditNotesOf, visibleCreditNoteRequest } from './credit-note-requests.ts';
import { getCustomerDoc } from './customers.ts';
import { getInvoiceDoc, invoiceIdsOfCustomer, visibleInvoice } from './invoices.ts';
import { paymentUrl } from './overdue.ts';
import { paymentIdsOfCustomer, paymentsOfInvoice, visiblePayment } from './payments.ts';
import type { Db } from '../../db.ts';

/** Lifetime of a document's download URL: long enough to click, short enough that a forwarded link soon stops working. */
export const DOCUMENT_URL_SECONDS = 300;

/** A rendered document: its bytes and the name it downloads or is attached as. */
export interface RenderedDocument {
  filename: string;
  bytes: Buffer;
}

function seller(config: Config): Party {
  return { name: config.seller.name, address: config.seller.address };
}

function customerParty(c: CustomerDoc | null): Party {
  if (!c) return { name: 'Customer', address: [] };
  const a = c.billing_address;
  const address = a ? [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(' '), a.region, a.country].filter((l): l is string => Boolean(l)) : [];
  return { name: c.name, address, email: c.email, tax_id: c.tax_id };
}

function facts(i: InvoiceDoc): InvoiceFacts {
  return {
    id: i.id, number: i.number, status: i.status, currency: i.currency, lines: i.lines, subtotal: i.subtotal, total: i.total, amount_paid: i.amount_paid,
    amount_credited: i.amount_credited, amount_remaining: i.amount_remaining, memo: i.memo, issue_date: i.issue_date, due_date: i.due_date,
    finalized_at: i.finalized_at, created_at: i.created_at,
  };
}

function creditFacts(c: CreditNoteRequestDoc) {
  return { id: c.id, amount: c.amount, currency: c.currency, reason: c.reason, description: c.description, applied_to_invoice: c.applied_to_invoice, credited_to_balance: c.credited_to_balance, issued_at: c.issued_at };
}

function paymentFacts(p: PaymentDoc) {
  return { id: p.id, amount: p.amount, currency: p.currency, method: p.method, reference: p.reference, received_on: p.received_on, status: p.status, created_at: p.created_at };
}

/** The PDF of a finalized invoice (a draft has none: 409 invoice_is_draft). */
export async function invoiceDocument(knex: Knex, db: Db, config: Config, invoice: InvoiceDoc): Promise<RenderedDocument> {
  if (invoice.status === 'draft') throw billingErrors.error('invoice_is_draft', `Invoice ${invoice.id} is a draft: it has a document once finalized.`);
  const [customer, payments, credits] = await Promise.all([getCustomerDoc(db, invoice.customer_id), paymentsOfInvoice(knex, invoice.id), issuedCreditNotesOf(knex, invoice.id)]);
  const bytes = await renderInvoicePdf({
    seller: seller(config), customer: customerParty(customer), invoice: facts(invoice),
    payments: payments.filter((p) => p.status === 'recorded').map(paymentFacts), credit_notes: credits.map(creditFacts),
    payment_instructions: config.seller.paymentInstructions, payment_url: paymentUrl(config.appUrl, invoice.customer_id),
  });
  return { filename: documentFilename('invoice', invoice.number ?? invoice.id), bytes };
}

/** The PDF of an issued credit note (409 credit_note_not_issued before). */
export async function creditNoteDocument(db: Db, config: Config, note: CreditNoteRequestDoc): Promise<RenderedDocument> {
  if (note.status !== 'issued') throw billingErrors.error('credit_note_not_issued', `Credit note request ${note.id} is ${note.status}: it has a document once issued.`);
  const [customer, invoice] = await Promise.all([getCustomerDoc(db, note.customer_id), getInvoiceDoc(db, note.invoice_id)]);
  if (!invoice) throw billingErrors.error('invoice_not_found', `No invoice ${note.invoice_id}.`);
  const bytes = await renderCreditNotePdf({ seller: seller(config), customer: customerParty(customer), invoice: facts(invoice), credit_note: creditFacts(note) });
  return { filename: documentFilename('credit-note', `${invoice.number ?? invoice.id}-${note.id.slice(-12)}`), bytes };
}

/** The receipt PDF of a payment. */
export async function receiptDocument(db: Db, config: Config, payment: PaymentDoc): Promise<RenderedDocument> {
  const [customer, invoice] = await Promise.all([getCustomerDoc(db, payment.customer_id), getInvoiceDoc(db, payment.invoice_id)]);
  if (!invoice) throw billingErrors.error('invoice_not_found', `No invoice ${payment.invoice_id}.`);
  const bytes = await renderReceiptPdf({ seller: seller(config), customer: customerParty(customer), invoice: facts(invoice), payment: paymentFacts(payment) });
  return { filename: documentFilename('receipt', payment.reference || payment.id), bytes };
}

/**
 * Stores the bytes under a key named by their hash (a re-render of unchanged data lands on the same object) and answers a
 * short-lived download URL, the attachment download's way: the object store signs it (file store: HMAC, S3: presigned).
 */
async function downloadUrl(objects: ObjectStore, kind: string, id: string, doc: RenderedDocument) {
  const hash = crypto.createHash('sha256').update(doc.bytes).digest('hex').slice(0, 32);
  const key = `documents/${kind}/${id}/${hash}.pdf`;
  if (!(await objects.head(key))) await objects.put(key, doc.bytes, { contentType: 'application/pdf' });
  const url = await objects.presignDownload(key, { filename: doc.filename, contentType: 'application/pdf', expiresInSeconds: DOCUMENT_URL_SECONDS });
  return { url: url.url, filename: doc.filename, expires_at: url.expires_at.toISOString(), expires_in_seconds: DOCUMENT_URL_SECONDS };
}

/** The download URL of a visible invoice's PDF. */
export async function invoiceDocumentUrl(ctx: RequestContext, invoiceId: string) {
  const { services } = ctx;
  const invoice = await visibleInvoice(ctx, invoiceId);
  return downloadUrl(services.objects, 'invoice', invoice.id, await invoiceDocument(services.knex, services.db, services.config, invoice));
}

/** The download URL of a visible, issued credit note's PDF. */
export async function creditNoteDocumentUrl(ctx: RequestContext, id: string) {
  const { services } = ctx;
  const note = await visibleCreditNoteRequest(ctx, id);
  return downloadUrl(services.objects, 'credit-note', note.id, await creditNoteDocument(services.db, services.config, note));
}

/** The download URL of a visible payment's receipt. */
export async function receiptDocumentUrl(ctx: RequestContext, id: string) {
  const { services } = ctx;
  const payment = await visiblePayment(ctx, id);
  return downloadUrl(services.objects, 'receipt', payment.id, await receiptDocument(services.db, services.config, payment));
}

/**
 * Deletes the stored PDFs of a customer's invoices, credit notes and receipts (issue 32): they were rendered with the
 * personal details of their day, and an erasure must not leave those in the object store. A later download renders the
 * document again from what the records hold now ("[erased]", or the particulars tax law keeps until retention ends).
 */
export async function forgetCustomerDocuments(knex: Knex, objects: ObjectStore, customerId: string): Promise<void> {
  const kinds: [string, string[]][] = [
    ['invoice', await invoiceIdsOfCustomer(knex, customerId)], ['credit-note', await creditNoteRequestIdsOfCustomer(knex, customerId)], ['receipt', await paymentIdsOfCustomer(knex, customerId)],
  ];
  for (const [kind, list] of kinds) for (const id of list) await objects.deleteUnder(`documents/${kind}/${id}`);
}
