// Requests and answers of the billing documents (PDF invoices, credit notes, receipts) and customer messages (issue 28).
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

/** A short-lived download URL of a rendered document. */
export const DocumentUrlResponse = z
  .object({
    url: z.url().describe('Private download URL of the PDF, served as an attachment.'),
    filename: z.string().describe('The name the file downloads as.'),
    expires_at: Timestamp,
    expires_in_seconds: z.int().describe('Lifetime of the URL in seconds.'),
  })
  .meta({ id: 'billing.DocumentUrlResponse' });

export const InvoiceDocumentRequest = z.strictObject({ invoice_id: Uuid }).meta({ id: 'billing.InvoiceDocumentRequest' });
export const CreditNoteDocumentRequest = z.strictObject({ credit_note_request_id: Uuid.describe('An issued credit note request.') }).meta({ id: 'billing.CreditNoteDocumentRequest' });
export const PaymentDocumentRequest = z.strictObject({ payment_id: Uuid }).meta({ id: 'billing.PaymentDocumentRequest' });
