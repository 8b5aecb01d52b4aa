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
import { countUploadUrls } from '../../limits/upload-url-limit.ts';
import { committedKey } from '../../storage/port.ts';
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
  await countUploadUrls(ctx.services, organizationId, files.length);
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

/**
 * Freezes the upload of a pending attachment and throws unless the frozen copy is there, of the declared size and of the
 * declared type. The check reads the frozen copy, the only one downloads serve, so an upload landing later changes nothing;
 * a refused copy stays frozen (its upload URL is spent: prepare again) until the expiry worker deletes it.
 */
async function freezeAndCheck(ctx: RequestContext, doc: AttachmentDoc): Promise<string> {
  const key = committedKey(doc.object_key);
  const head = await ctx.services.objects.freeze(doc.object_key, key);
  if (!head) throw billingErrors.error('attachment_not_uploaded', `Nothing was uploaded for ${doc.id} (${doc.filename}).`);
  if (head.size !== doc.size) throw billingErrors.error('attachment_size_mismatch', `${doc.filename}: ${head.size} bytes uploaded, ${doc.size} declared; prepare it again.`);
  const bytes = await firstBytes(ctx, key);
  // The declared type is one of ATTACHMENT_TYPES: prepare accepted nothing else.
  if (!contentMatches(doc.content_type as AttachmentType, bytes, head.size <= SNIFF_BYTES))
    throw billingErrors.error('attachment_content_mismatch', `${doc.filename}: the content is not ${doc.content_type}; prepare it again.`);
  return key;
}

/** Commits uploaded attachments of `subject`: every upload is frozen and checked before any is committed. */
export async function commitAttachments(ctx: RequestContext, subject: AttachmentSubject, items: { id: string; is_internal: boolean }[], owner?: string) {
  const organizationId = await ownerOf(ctx, subject, owner);
  const unique = [...new Map(items.map((i) => [i.id, i])).values()];
  const checked = [];
  for (const item of unique) {
    const doc = await pendingAttachment(ctx, subject, item.id);
    // Only a pending upload is frozen; for any other state the decider answers (a repeat, a conflict, gone or expired).
    checked.push({ item, key: doc.status === 'pending' ? await freezeAndCheck(ctx, doc) : servedKey(doc) });
  }
  let position: LogPosition | null = null;
  for (const { item, key } of checked) {
    const res = await attachments.run(ctx, item.id, { type: 'CommitAttachment', data: { subject, is_internal: item.is_internal, committed_key: key } }, { orgId: organizationId });
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

/** The key a committed attachment's downloads are served from: its frozen copy (the upload key for commits before issue 25). */
export function servedKey(doc: AttachmentDoc): string {
  return doc.committed_key ?? doc.object_key;
}

/** Removes a visible attachment: its object moves out of its URLs' reach at once and is kept for the retention period (then purged by the worker). */
export async function removeAttachment(ctx: RequestContext, subject: AttachmentSubject, id: string): Promise<Record<string, never>> {
  const doc = await visibleAttachment(ctx, subject, id);
  // Object first: once this answers, no issued URL serves the file; should the append fail, a retry moves nothing and appends.
  // The upload's own copy goes too (on the file store it is the same file under another name, kept under retainedKey).
  await ctx.services.objects.move(servedKey(doc), retainedKey(doc.object_key));
  if (doc.committed_key) await ctx.services.objects.delete(doc.object_key);
  const res = await attachments.run(ctx, id, { type: 'RemoveAttachment', data: { subject } }, { orgId: doc.organization_id });
  await ctx.waitFor(res.position, [billingAttachmentsProjection]);
  return {};
}
