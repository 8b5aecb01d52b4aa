// Schemas of billing attachments (customers and invoices), named as the spec names them; limits stated in their descriptions.
import { z } from 'zod';
import { ATTACHMENT_TYPES, DOWNLOAD_URL_SECONDS, MAX_ATTACHMENT_BYTES, MAX_FILENAME_LENGTH, MAX_FILES_PER_PREPARE, UPLOAD_URL_SECONDS } from '../../domain/billing/attachment-content.ts';
import { PageRequest, Timestamp, Uuid, page } from './common.ts';
import { Actor } from './billing-customers.ts';

const LIMITS = `At most ${MAX_FILES_PER_PREPARE} files per call, each at most ${MAX_ATTACHMENT_BYTES} bytes (25 MiB), of type ${ATTACHMENT_TYPES.join(', ')}.`;

/** A file name as shown and downloaded: 1-200 characters, no path separators or control characters, not `.` or `..`. */
export const AttachmentFilename = z
  .string()
  .trim()
  .min(1)
  .max(MAX_FILENAME_LENGTH)
  .regex(/^[^/\\\p{Cc}\p{Cf}]+$/u, 'must not contain / \\ or control characters')
  .refine((s) => s !== '.' && s !== '..', 'must not be . or ..')
  .describe(`File name, 1-${MAX_FILENAME_LENGTH} characters without / \\ or control characters.`);

export const AttachmentContentType = z.enum(ATTACHMENT_TYPES).describe('Declared type; the committed content must match it (checked by its leading bytes).');

export const AttachmentFile = z
  .strictObject({
    filename: AttachmentFilename,
    content_type: AttachmentContentType,
    size: z.int().min(1).max(MAX_ATTACHMENT_BYTES).describe(`Exact size in bytes, 1-${MAX_ATTACHMENT_BYTES} (25 MiB).`),
  })
  .meta({ id: 'billing.AttachmentFile' });

const Files = z.array(AttachmentFile).min(1).max(MAX_FILES_PER_PREPARE).describe(LIMITS);

export const PreparedAttachment = z
  .object({
    id: Uuid.describe('Pending attachment id: pass it to insert after the upload.'),
    filename: z.string(),
    content_type: z.string(),
    size: z.int(),
    upload_url: z.url().describe('PUT the exact bytes here, with the headers below, before expires_at.'),
    upload_method: z.literal('PUT'),
    upload_headers: z.record(z.string(), z.string()).describe('Headers the PUT must carry (Content-Type).'),
  })
  .meta({ id: 'billing.PreparedAttachment' });

export const AttachmentsPrepareResponse = z
  .object({
    items: z.array(PreparedAttachment),
    expires_at: Timestamp.describe(`When the upload URLs and the pending attachments expire (${UPLOAD_URL_SECONDS / 60} minutes after prepare).`),
    expires_in_seconds: z.int().describe('Lifetime of the upload URLs in seconds.'),
  })
  .meta({ id: 'billing.AttachmentsPrepareResponse' });

export const Attachment = z
  .object({
    id: Uuid,
    filename: z.string(),
    content_type: z.string(),
    size: z.int(),
    is_internal: z.boolean().describe('Internal files are listed only for billing staff and the organization\'s owners and admins.'),
    uploaded_by: Actor,
    created_at: Timestamp.describe('When it was committed.'),
  })
  .meta({ id: 'billing.Attachment' });

export const AttachmentUrlResponse = z
  .object({
    url: z.url().describe('Private download URL; the file is served as an attachment under its original name.'),
    expires_at: Timestamp,
    expires_in_seconds: z.int().describe(`Lifetime of the URL: ${DOWNLOAD_URL_SECONDS} seconds.`),
  })
  .meta({ id: 'billing.AttachmentUrlResponse' });

const Commit = z.strictObject({
  id: Uuid.describe('A pending attachment id from prepare.'),
  is_internal: z.boolean().default(false).describe('Hide from plain members of the organization.'),
});

/** The request and response schemas of one subject's attachment operations (`Customer…` or `Invoice…`). */
function subjectSchemas<const P extends 'Customer' | 'Invoice', const F extends 'customer_id' | 'invoice_id'>(prefix: P, field: F) {
  const subjectId = { [field]: Uuid.describe(`The ${prefix.toLowerCase()}.`) } as { [K in F]: typeof Uuid };
  return {
    prepare: z.strictObject({ ...subjectId, files: Files }).meta({ id: `billing.${prefix}AttachmentsPrepareRequest` }),
    insert: z.strictObject({ ...subjectId, attachments: z.array(Commit).min(1).max(MAX_FILES_PER_PREPARE).describe('Uploaded files to commit; all or none are committed.') }).meta({ id: `billing.${prefix}AttachmentsInsertRequest` }),
    insertResponse: z.object({ items: z.array(Attachment) }).meta({ id: `billing.${prefix}AttachmentsInsertResponse` }),
    list: z.strictObject({ ...subjectId, ...PageRequest }).meta({ id: `billing.${prefix}AttachmentsListRequest` }),
    listResponse: page(Attachment, `billing.${prefix}AttachmentsListResponse`),
    url: z.strictObject({ ...subjectId, id: Uuid.describe('Attachment id.') }).meta({ id: `billing.${prefix}AttachmentUrlRequest` }),
    remove: z.strictObject({ ...subjectId, id: Uuid.describe('Attachment id.') }).meta({ id: `billing.${prefix}AttachmentRemoveRequest` }),
  };
}

/** Schemas of billing.customers.attachments.*. */
export const customerAttachmentSchemas = subjectSchemas('Customer', 'customer_id');
/** Schemas of billing.invoices.attachments.*. */
export const invoiceAttachmentSchemas = subjectSchemas('Invoice', 'invoice_id');
