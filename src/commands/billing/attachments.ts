// Attachment writes shared by customers and invoices: prepare upload URLs, commit checked uploads, remove.
import type { RequestContext } from '../../context.ts';
import type { AttachmentSubject } from '../../domain/billing/attachment.ts';
import { type AttachmentType, SNIFF_BYTES, UPLOAD_URL_SECONDS, contentMatches } from '../../domain/billing/attachment-content.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { billingAttachmentsProjection } from '../../projections/billing/attachments.ts';
import { attachmentBody, attachmentDoc, pendingAttachment, visibleAttachment } from '../../queries/billing/attachments.ts';
import { subjectOrganization } from '../../queries/billing/note-subjects.ts';
import type { AttachmentDoc } from '../../projections/billing/attachments.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { attachments } from './handlers.ts';

/** The organization owning `subject`: `owner` when the caller resolved it (relationship evidence), else the visible customer's or invoice's (404 otherwise). */
async function ownerOf(ctx: RequestContext, subject: AttachmentSubject, owner?: string): Promise<string> {
  if (owner !== undefined) return owner;
  if (subject.type === 'relationship') throw billingErrors.error('attachment_not_found', 'Relationship evidence needs its owner resolved by the caller.');
  return subjectOrganization(ctx, { type: subject.type, id: subject.id });
}

/** Pending attachments and their upload URLs for `files` of `subject` (`owner`: the subject's organization when the caller resolved it). */
export async function prepareAttachments(ctx: RequestContext, subject: AttachmentSubject, files: { filename: string; content_type: AttachmentType; size: number }[], owner?: string) {
  const organizationId = await ownerOf(ctx, subject, owner);
  const items = [];
  let position: LogPosition | null = null;
  let expiresAt = new Date(ctx.now.getTime() + UPLOAD_URL_SECONDS * 1000);
  for (const file of files) {
    const id = ctx.ids.next();
    const objectKey = `attachments/${organizationId}/${id}`;
    const upload = await ctx.services.objects.presignUpload(objectKey, { contentType: file.content_type, size: file.size, expiresInSeconds: UPLOAD_URL_SECONDS });
    expiresAt = upload.expires_at;
    const res = await attachments.run(ctx, id, { type: 'PrepareAttachment', data: { attachment_id: id, subject, organization_id: organizationId, object_key: objectKey, ...file, expires_at: upload.expires_at.toISOString() } }, { orgId: organizationId });
    position = res.position;
    items.push({ id, ...file, upload_url: upload.url, upload_method: upload.method, upload_headers: upload.headers });
  }
  await ctx.waitFor(position, [billingAttachmentsProjection]);
  return { items, expires_at: expiresAt.toISOString(), expires_in_seconds: UPLOAD_URL_SECONDS };
}

async function firstBytes(ctx: RequestContext, key: string): Promise<Buffer> {
  const body = await ctx.services.objects.get(key, { firstBytes: SNIFF_BYTES });
  const parts: Buffer[] = [];
  for await (const chunk of body ?? []) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).subarray(0, SNIFF_BYTES);
}

/** Throws unless the uploaded object of a pending attachment is there, of the declared size and of the declared type (a bad upload is deleted so it can be sent again). */
async function checkUpload(ctx: RequestContext, doc: AttachmentDoc): Promise<void> {
  const head = await ctx.services.objects.head(doc.object_key);
  if (!head) throw billingErrors.error('attachment_not_uploaded', `Nothing was uploaded for ${doc.id} (${doc.filename}).`);
  if (head.size !== doc.size) {
    await ctx.services.objects.delete(doc.object_key);
    throw billingErrors.error('attachment_size_mismatch', `${doc.filename}: ${head.size} bytes uploaded, ${doc.size} declared.`);
  }
  const bytes = await firstBytes(ctx, doc.object_key);
  // The declared type is one of ATTACHMENT_TYPES: prepare accepted nothing else.
  if (!contentMatches(doc.content_type as AttachmentType, bytes, head.size <= SNIFF_BYTES)) {
    await ctx.services.objects.delete(doc.object_key);
    throw billingErrors.error('attachment_content_mismatch', `${doc.filename}: the content is not ${doc.content_type}.`);
  }
}

/** Commits uploaded attachments of `subject`: every upload is checked before any is committed. */
export async function commitAttachments(ctx: RequestContext, subject: AttachmentSubject, items: { id: string; is_internal: boolean }[], owner?: string) {
  const organizationId = await ownerOf(ctx, subject, owner);
  const unique = [...new Map(items.map((i) => [i.id, i])).values()];
  for (const item of unique) {
    const doc = await pendingAttachment(ctx, subject, item.id);
    if (doc.status === 'pending') await checkUpload(ctx, doc);
  }
  let position: LogPosition | null = null;
  for (const item of unique) {
    const res = await attachments.run(ctx, item.id, { type: 'CommitAttachment', data: { subject, is_internal: item.is_internal } }, { orgId: organizationId });
    position = res.position ?? position;
  }
  await ctx.waitFor(position, [billingAttachmentsProjection]);
  const out = [];
  for (const item of unique) {
    const doc = await attachmentDoc(ctx, item.id);
    if (doc) out.push(attachmentBody(doc));
  }
  return { items: out };
}

/** Where a removed attachment's object waits out its retention: out of reach of every URL signed for its own key. */
export function retainedKey(objectKey: string): string {
  return `removed/${objectKey}`;
}

/** Removes a visible attachment: its object moves out of its URLs' reach at once and is kept for the retention period (then purged by the worker). */
export async function removeAttachment(ctx: RequestContext, subject: AttachmentSubject, id: string): Promise<Record<string, never>> {
  const doc = await visibleAttachment(ctx, subject, id);
  // Object first: once this answers, no issued URL serves the file; should the append fail, a retry moves nothing and appends.
  await ctx.services.objects.move(doc.object_key, retainedKey(doc.object_key));
  const res = await attachments.run(ctx, id, { type: 'RemoveAttachment', data: { subject } }, { orgId: doc.organization_id });
  await ctx.waitFor(res.position, [billingAttachmentsProjection]);
  return {};
}
