// billing.customers.attachments.prepare/insert/remove and billing.invoices.attachments.prepare/insert/remove.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { AttachmentsPrepareResponse, customerAttachmentSchemas as C, invoiceAttachmentSchemas as I } from '../../contract/schemas/billing-attachments.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { commitAttachments, prepareAttachments, removeAttachment } from './attachments.ts';

const PREPARE = 'Returns one private upload URL per file (PUT the exact bytes with the given Content-Type before expires_at; each URL takes one upload) and a pending attachment id; commit with insert. At most RATE_LIMIT_UPLOAD_URLS_PER_MINUTE (default 60) URLs per organization a minute (429 rate_limited). Owners, admins and billing staff.';
const INSERT = 'Commits uploaded files after checking each object exists, has the declared size and content of the declared type (by its leading bytes, not its name); all or none. The checked bytes are frozen: downloads serve them, whatever reaches the upload URL later; a refused upload is final (prepare it again). is_internal hides a file from plain members.';
const REMOVE = 'Removes an attachment: it leaves the list and download URLs already issued stop working at once; the file is kept out of reach for ATTACHMENT_RETENTION_DAYS (default 30) and then deleted (AttachmentPurged). The log keeps who removed it and when.';
const commitErrors = ['attachment_not_found', 'attachment_not_uploaded', 'attachment_size_mismatch', 'attachment_content_mismatch', 'attachment_committed', 'attachment_expired'] as const;

export const customerAttachmentsPrepare = operation({
  id: 'billing.customers.attachments.prepare', surface: 'core', tags: ['Billing'], summary: 'Prepares private upload URLs.', description: PREPARE,
  request: C.prepare, response: AttachmentsPrepareResponse, error: 'billing.CustomerAttachmentsPrepareError',
  errors: billingErrors.list('customer_not_found', 'attachment_exists', 'rate_limited'), access: 'org_admin', write: true,
  handle: (ctx, req) => prepareAttachments(ctx, { type: 'customer', id: req.customer_id }, req.files),
});

export const customerAttachmentsInsert = operation({
  id: 'billing.customers.attachments.insert', surface: 'core', tags: ['Billing'], summary: 'Commits uploaded attachments.', description: INSERT,
  request: C.insert, response: C.insertResponse, error: 'billing.CustomerAttachmentsInsertError',
  errors: billingErrors.list('customer_not_found', ...commitErrors), access: 'org_admin', write: true,
  handle: (ctx, req) => commitAttachments(ctx, { type: 'customer', id: req.customer_id }, req.attachments),
});

export const customerAttachmentsRemove = operation({
  id: 'billing.customers.attachments.remove', surface: 'core', tags: ['Billing'], summary: 'Removes an attachment.', description: REMOVE,
  request: C.remove, response: Empty, error: 'billing.CustomerAttachmentRemoveError',
  errors: billingErrors.list('customer_not_found', 'attachment_not_found'), access: 'org_admin', write: true,
  handle: (ctx, req) => removeAttachment(ctx, { type: 'customer', id: req.customer_id }, req.id),
});

export const invoiceAttachmentsPrepare = operation({
  id: 'billing.invoices.attachments.prepare', surface: 'core', tags: ['Billing'], summary: 'Prepares private upload URLs.', description: PREPARE,
  request: I.prepare, response: AttachmentsPrepareResponse, error: 'billing.InvoiceAttachmentsPrepareError',
  errors: billingErrors.list('invoice_not_found', 'attachment_exists', 'rate_limited'), access: 'org_admin', write: true,
  handle: (ctx, req) => prepareAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.files),
});

export const invoiceAttachmentsInsert = operation({
  id: 'billing.invoices.attachments.insert', surface: 'core', tags: ['Billing'], summary: 'Commits uploaded attachments.', description: INSERT,
  request: I.insert, response: I.insertResponse, error: 'billing.InvoiceAttachmentsInsertError',
  errors: billingErrors.list('invoice_not_found', ...commitErrors), access: 'org_admin', write: true,
  handle: (ctx, req) => commitAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.attachments),
});

export const invoiceAttachmentsRemove = operation({
  id: 'billing.invoices.attachments.remove', surface: 'core', tags: ['Billing'], summary: 'Removes an attachment.', description: REMOVE,
  request: I.remove, response: Empty, error: 'billing.InvoiceAttachmentRemoveError',
  errors: billingErrors.list('invoice_not_found', 'attachment_not_found'), access: 'org_admin', write: true,
  handle: (ctx, req) => removeAttachment(ctx, { type: 'invoice', id: req.invoice_id }, req.id),
});

/** Write operations of billing attachments. */
export const billingAttachmentCommands = [customerAttachmentsPrepare, customerAttachmentsInsert, customerAttachmentsRemove, invoiceAttachmentsPrepare, invoiceAttachmentsInsert, invoiceAttachmentsRemove];
