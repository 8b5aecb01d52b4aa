// billing.customers.attachments.list/get and billing.invoices.attachments.list/get.
import { operation } from '../../contract/operation.ts';
import { AttachmentUrlResponse, customerAttachmentSchemas as C, invoiceAttachmentSchemas as I } from '../../contract/schemas/billing-attachments.ts';
import { DOWNLOAD_URL_SECONDS } from '../../domain/billing/attachment-content.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { attachmentUrl, listAttachments } from './attachments.ts';

const LIST = 'Committed attachments, oldest first. Internal ones are listed only for billing staff and the organization\'s owners and admins.';
const GET = `A private download URL valid for ${DOWNLOAD_URL_SECONDS} seconds; the file is served with Content-Disposition: attachment and its original name. Internal files only for billing staff, owners and admins.`;

export const customerAttachmentsList = operation({
  id: 'billing.customers.attachments.list', surface: 'core', tags: ['Billing'], summary: 'Lists a customer\'s attachments.', description: LIST,
  request: C.list, response: C.listResponse, error: 'billing.CustomerAttachmentsListError',
  errors: billingErrors.list('customer_not_found', 'invalid_cursor'), access: 'org_user',
  handle: (ctx, req) => listAttachments(ctx, { type: 'customer', id: req.customer_id }, req.limit, req.cursor),
});

export const customerAttachmentsGet = operation({
  id: 'billing.customers.attachments.get', surface: 'core', tags: ['Billing'], summary: 'Presigned download URL for one attachment.', description: GET,
  request: C.url, response: AttachmentUrlResponse, error: 'billing.CustomerAttachmentUrlError',
  errors: billingErrors.list('customer_not_found', 'attachment_not_found'), access: 'org_user',
  handle: (ctx, req) => attachmentUrl(ctx, { type: 'customer', id: req.customer_id }, req.id),
});

export const invoiceAttachmentsList = operation({
  id: 'billing.invoices.attachments.list', surface: 'core', tags: ['Billing'], summary: 'Lists an invoice\'s attachments.', description: LIST,
  request: I.list, response: I.listResponse, error: 'billing.InvoiceAttachmentsListError',
  errors: billingErrors.list('invoice_not_found', 'invalid_cursor'), access: 'org_user',
  handle: (ctx, req) => listAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.limit, req.cursor),
});

export const invoiceAttachmentsGet = operation({
  id: 'billing.invoices.attachments.get', surface: 'core', tags: ['Billing'], summary: 'Presigned download URL.', description: GET,
  request: I.url, response: AttachmentUrlResponse, error: 'billing.InvoiceAttachmentUrlError',
  errors: billingErrors.list('invoice_not_found', 'attachment_not_found'), access: 'org_user',
  handle: (ctx, req) => attachmentUrl(ctx, { type: 'invoice', id: req.invoice_id }, req.id),
});

/** Read operations of billing attachments. */
export const billingAttachmentQueries = [customerAttachmentsList, customerAttachmentsGet, invoiceAttachmentsList, invoiceAttachmentsGet];
