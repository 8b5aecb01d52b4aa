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
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329' },
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
      pagination: null,
    },
  },
  request: C.list, response: C.listResponse, error: 'billing.CustomerAttachmentsListError',
  errors: billingErrors.list('customer_not_found', 'invalid_cursor'), access: 'org_user',
  handle: (ctx, req) => listAttachments(ctx, { type: 'customer', id: req.customer_id }, req.limit, req.cursor),
});

export const customerAttachmentsGet = operation({
  id: 'billing.customers.attachments.get', surface: 'core', tags: ['Billing'], summary: 'Presigned download URL for one attachment.', description: GET,
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: { url: 'https://files.example.com/url', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 1 },
  },
  request: C.url, response: AttachmentUrlResponse, error: 'billing.CustomerAttachmentUrlError',
  errors: billingErrors.list('customer_not_found', 'attachment_not_found'), access: 'org_user',
  handle: (ctx, req) => attachmentUrl(ctx, { type: 'customer', id: req.customer_id }, req.id),
});

export const invoiceAttachmentsList = operation({
  id: 'billing.invoices.attachments.list', surface: 'core', tags: ['Billing'], summary: 'Lists an invoice\'s attachments.', description: LIST,
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185' },
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
      pagination: null,
    },
  },
  request: I.list, response: I.listResponse, error: 'billing.InvoiceAttachmentsListError',
  errors: billingErrors.list('invoice_not_found', 'invalid_cursor'), access: 'org_user',
  handle: (ctx, req) => listAttachments(ctx, { type: 'invoice', id: req.invoice_id }, req.limit, req.cursor),
});

export const invoiceAttachmentsGet = operation({
  id: 'billing.invoices.attachments.get', surface: 'core', tags: ['Billing'], summary: 'Presigned download URL.', description: GET,
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: { url: 'https://files.example.com/url', expires_at: '2026-01-15T09:30:00.000Z', expires_in_seconds: 1 },
  },
  request: I.url, response: AttachmentUrlResponse, error: 'billing.InvoiceAttachmentUrlError',
  errors: billingErrors.list('invoice_not_found', 'attachment_not_found'), access: 'org_user',
  handle: (ctx, req) => attachmentUrl(ctx, { type: 'invoice', id: req.invoice_id }, req.id),
});

/** Read operations of billing attachments. */
export const billingAttachmentQueries = [customerAttachmentsList, customerAttachmentsGet, invoiceAttachmentsList, invoiceAttachmentsGet];
