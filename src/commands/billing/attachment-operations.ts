// billing.customers.attachments.prepare/insert/remove and billing.invoices.attachments.prepare/insert/remove.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { AttachmentsPrepareResponse, customerAttachmentSchemas as C, invoiceAttachmentSchemas as I } from '../../contract/schemas/billing-attachments.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { billingAttachmentsProjection } from '../../projections/billing/attachments.ts';
import { commitAttachments, prepareAttachments, removeAttachment } from './attachments.ts';

const PREPARE = 'Returns one private upload URL per file (PUT the exact bytes with the given Content-Type before expires_at; each URL takes one upload) and a pending attachment id; commit with insert. At most RATE_LIMIT_UPLOAD_URLS_PER_MINUTE (default 60) URLs per organization a minute (429 rate_limited). Owners, admins and billing staff.';
const INSERT = 'Commits uploaded files after checking each object exists, has the declared size and content of the declared type (by its leading bytes, not its name); all or none. The checked bytes are frozen: downloads serve them, whatever reaches the upload URL later; a refused upload is final (prepare it again). is_internal hides a file from plain members.';
const REMOVE = 'Removes an attachment: it leaves the list and download URLs already issued stop working at once; the file is kept out of reach for ATTACHMENT_RETENTION_DAYS (default 30) and then deleted (AttachmentPurged). The log keeps who removed it and when.';
const commitErrors = ['attachment_not_found', 'attachment_not_uploaded', 'attachment_size_mismatch', 'attachment_content_mismatch', 'attachment_committed', 'attachment_expired'] as const;

export const customerAttachmentsPrepare = operation({
  id: 'billing.customers.attachments.prepare', surface: 'core', tags: ['Billing'], summary: 'Prepares private upload URLs.', description: PREPARE,
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', files: [{ filename: 'SIGNED_TERMS_2026.PDF', content_type: 'application/pdf', size: 20480 }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          upload_url: 'https://files.example.com/upload_url',
          upload_method: 'PUT',
          upload_headers: {},
        },
      ],
      expires_at: '2026-01-15T09:30:00.000Z',
      expires_in_seconds: 1,
    },
  },
  request: C.prepare, response: AttachmentsPrepareResponse, error: 'billing.CustomerAttachmentsPrepareError',
  errors: billingErrors.list('customer_not_found', 'attachment_exists', 'rate_limited'), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => prepareAttachments(ctx, { type: 'customer', id: req.customer_id }, req.files),
});

export const customerAttachmentsInsert = operation({
  id: 'billing.customers.attachments.insert', surface: 'core', tags: ['Billing'], summary: 'Commits uploaded attachments.', description: INSERT,
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', attachments: [{ id: '019387ea-5dfc-7b8e-884d-848979496e70' }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          is_internal: false,
          uploaded_by: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
    },
  },
  request: C.insert, response: C.insertResponse, error: 'billing.CustomerAttachmentsInsertError',
  errors: billingErrors.list('customer_not_found', ...commitErrors), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => commitAttachments(ctx, { type: 'customer', id: req.customer_id }, req.attachments),
});

export const customerAttachmentsRemove = operation({
  id: 'billing.customers.attachments.remove', surface: 'core', tags: ['Billing'], summary: 'Removes an attachment.', description: REMOVE,
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {},
  },
  request: C.remove, response: Empty, error: 'billing.CustomerAttachmentRemoveError',
  errors: billingErrors.list('customer_not_found', 'attachment_not_found'), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => removeAttachment(ctx, { type: 'customer', id: req.customer_id }, req.id),
});

export const invoiceAttachmentsPrepare = operation({
  id: 'billing.invoices.attachments.prepare', surface: 'core', tags: ['Billing'], summary: 'Prepares private upload URLs.', description: PREPARE,
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', files: [{ filename: 'SIGNED_TERMS_2026.PDF', content_type: 'application/pdf', size: 20480 }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          upload_url: 'https://files.example.com/upload_url',
          upload_method: 'PUT',
          upload_headers: {},
        },
      ],
      expires_at: '2026-01-15T09:30:00.000Z',
      expires_in_seconds: 1,
    },
  },
  request: I.prepare, response: AttachmentsPrepareResponse, error: 'billing.InvoiceAttachmentsPrepareError',
  errors: billingErrors.list('invoice_not_found', 'attachment_exists', 'rate_limited'), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => prepareAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.files),
});

export const invoiceAttachmentsInsert = operation({
  id: 'billing.invoices.attachments.insert', surface: 'core', tags: ['Billing'], summary: 'Commits uploaded attachments.', description: INSERT,
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', attachments: [{ id: '019387ea-5dfc-7b8e-884d-848979496e70' }] },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          filename: 'SIGNED_TERMS_2026.PDF',
          content_type: 'application/pdf',
          size: 20480,
          is_internal: false,
          uploaded_by: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
    },
  },
  request: I.insert, response: I.insertResponse, error: 'billing.InvoiceAttachmentsInsertError',
  errors: billingErrors.list('invoice_not_found', ...commitErrors), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => commitAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.attachments),
});

export const invoiceAttachmentsRemove = operation({
  id: 'billing.invoices.attachments.remove', surface: 'core', tags: ['Billing'], summary: 'Removes an attachment.', description: REMOVE,
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {},
  },
  request: I.remove, response: Empty, error: 'billing.InvoiceAttachmentRemoveError',
  errors: billingErrors.list('invoice_not_found', 'attachment_not_found'), access: 'org_admin', write: true, readModels: [billingAttachmentsProjection],
  handle: (ctx, req) => removeAttachment(ctx, { type: 'invoice', id: req.invoice_id }, req.id),
});

/** Write operations of billing attachments. */
export const billingAttachmentCommands = [customerAttachmentsPrepare, customerAttachmentsInsert, customerAttachmentsRemove, invoiceAttachmentsPrepare, invoiceAttachmentsInsert, invoiceAttachmentsRemove];
