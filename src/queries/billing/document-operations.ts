// billing.invoices.document.get, billing.credit-notes.document.get and billing.payments.document.get: a short-lived signed
// download URL of the PDF the customer receives (extensions of the spec, named in its style).
import { operation } from '../../contract/operation.ts';
import { CreditNoteDocumentRequest, DocumentUrlResponse, InvoiceDocumentRequest, PaymentDocumentRequest } from '../../contract/schemas/billing-documents.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { DOCUMENT_URL_SECONDS, creditNoteDocumentUrl, invoiceDocumentUrl, receiptDocumentUrl } from './documents.ts';

const URL_NOTE = `The URL is valid for ${DOCUMENT_URL_SECONDS} seconds and serves the PDF as an attachment. The document is rendered from the billing records: the same records give the same file.`;

export const invoiceDocumentGet = operation({
  id: 'billing.invoices.document.get', surface: 'core', tags: ['Billing'], summary: "Download URL of a finalized invoice's PDF.",
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185' },
    response: { url: 'https://files.example.com/url', filename: 'INV-2026-0042.PDF', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 900 },
  },
  description: `Seller and customer with their addresses, number, dates, lines, totals, credit notes, payments, the amount due, payment instructions and the payment link; usage invoices add a summary of their metered lines. Drafts have none (409 invoice_is_draft). ${URL_NOTE}`,
  request: InvoiceDocumentRequest, response: DocumentUrlResponse, error: 'billing.InvoiceDocumentError',
  errors: billingErrors.list('invoice_not_found', 'invoice_is_draft'), access: 'org_user',
  handle: (ctx, req) => invoiceDocumentUrl(ctx, req.invoice_id),
});

export const creditNoteDocumentGet = operation({
  id: 'billing.credit-notes.document.get', surface: 'core', tags: ['Billing'], summary: "Download URL of an issued credit note's PDF.",
  examples: {
    request: { credit_note_request_id: '01938121-50f1-741f-8357-7b9a90440d9f' },
    response: { url: 'https://files.example.com/url', filename: 'INV-2026-0042.PDF', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 900 },
  },
  description: `Until the request is issued there is no credit note (409 credit_note_not_issued). ${URL_NOTE}`,
  request: CreditNoteDocumentRequest, response: DocumentUrlResponse, error: 'billing.CreditNoteDocumentError',
  errors: billingErrors.list('credit_note_request_not_found', 'credit_note_not_issued', 'invoice_not_found'), access: 'org_user',
  handle: (ctx, req) => creditNoteDocumentUrl(ctx, req.credit_note_request_id),
});

export const paymentDocumentGet = operation({
  id: 'billing.payments.document.get', surface: 'core', tags: ['Billing'], summary: "Download URL of a payment's receipt PDF.",
  examples: {
    request: { payment_id: '0193fcae-c7df-7adf-8cac-408c686b2ab0' },
    response: { url: 'https://files.example.com/url', filename: 'INV-2026-0042.PDF', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 900 },
  },
  description: URL_NOTE,
  request: PaymentDocumentRequest, response: DocumentUrlResponse, error: 'billing.PaymentDocumentError',
  errors: billingErrors.list('payment_not_found', 'invoice_not_found'), access: 'org_user',
  handle: (ctx, req) => receiptDocumentUrl(ctx, req.payment_id),
});

/** Read operations of billing documents. */
export const billingDocumentQueries = [invoiceDocumentGet, creditNoteDocumentGet, paymentDocumentGet];
