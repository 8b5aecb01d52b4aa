// Requests and answers of the billing documents (PDF invoices, credit notes, receipts) and customer messages (issue 28).
import { z } from 'zod';
import { PageRequest, Timestamp, Uuid, page } from './common.ts';
import { messageEvents } from '../../domain/billing/message.ts';

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

/** One customer email. */
export const Message = z
  .object({
    id: Uuid,
    organization_id: Uuid,
    customer_id: Uuid,
    invoice_id: Uuid,
    kind: z.enum(['invoice_finalized', 'payment_received', 'credit_note_issued', 'invoice_reminder']).describe('Why the customer was written to.'),
    subject: z.object({ type: z.enum(['invoice', 'payment', 'credit_note']), id: Uuid }).describe('The document attached.'),
    occasion: z.string().describe('`finalized`, or a reminder\'s day relative to the due date (`due-3`, `due+7`), or the payment or credit note id.'),
    to: z.string().describe("The customer's billing email when the message was decided."),
    subject_line: z.string(),
    payment_url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']).describe('pending: not delivered yet (retried at next_attempt_at); failed: given up after the last retry (listed under Needs attention).'),
    attempts: z.int(),
    transport: z.enum(['smtp', 'outbox']).nullable().describe('smtp: handed to the SMTP server; outbox: kept for the console (SMTP_URL unset).'),
    last_error: z.string().nullable(),
    response: z.string().nullable().describe("The SMTP server's answer to the delivered message."),
    next_attempt_at: Timestamp.nullable(),
    created_at: Timestamp.describe('When the message was decided.'),
    delivered_at: Timestamp.nullable(),
    failed_at: Timestamp.nullable(),
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.Message' });

export const MessageListRequest = z
  .strictObject({
    customer_id: Uuid.optional(),
    transport: z.enum(['smtp', 'outbox']).optional().describe('outbox: the messages kept because SMTP_URL is not set.'),
    status: z.enum(['pending', 'delivered', 'failed']).optional(),
    ...PageRequest,
  })
  .meta({ id: 'billing.MessageListRequest' });

export const MessageListResponse = page(Message, 'billing.MessageListResponse');

/** billing.messages.decide (internal): the message as the worker decided it, under its derived id. */
export const MessageDecideRequest = messageEvents.MessageDecided.omit({ decided_at: true }).meta({ id: 'billing.MessageDecideRequest' });
/** billing.messages.deliver (internal). */
export const MessageDeliverRequest = z.strictObject({ message_id: Uuid }).meta({ id: 'billing.MessageDeliverRequest' });
export const MessageDecideResult = z.object({ decided: z.boolean().describe('false: the message was decided before (nothing appended).') }).meta({ id: 'billing.MessageDecideResult' });
export const MessageDeliverResult = z
  .object({ outcome: z.enum(['delivered', 'failed', 'gave_up', 'not_due']).describe('not_due: delivered or given up already, or its retry time not reached.') })
  .meta({ id: 'billing.MessageDeliverResult' });
