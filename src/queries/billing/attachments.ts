// Reads billing_attachments (written by projections/billing/attachments.ts): visibility, lists, download URLs.
import type { Knex } from 'knex';
import type { RequestContext } from '../../context.ts';
import { hasRole } from '../../context.ts';
import type { AttachmentSubject } from '../../domain/billing/attachment.ts';
import { DOWNLOAD_URL_SECONDS } from '../../domain/billing/attachment-content.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { AttachmentDoc } from '../../projections/billing/attachments.ts';
import { documentPage } from '../pagination.ts';
import { subjectOrganization } from './note-subjects.ts';

/** True when the caller may see internal attachments: billing staff, and owners and admins of the organization. */
export function seesInternal(ctx: RequestContext): boolean {
  return hasRole(ctx.auth, 'billing_staff') || (ctx.auth.kind === 'session' && (ctx.auth.membershipRole === 'owner' || ctx.auth.membershipRole === 'admin'));
}

/** The API body of a committed attachment. */
export function attachmentBody(doc: AttachmentDoc) {
  return {
    id: doc.id,
    filename: doc.filename,
    content_type: doc.content_type,
    size: doc.size,
    is_internal: doc.is_internal,
    uploaded_by: doc.prepared_by,
    created_at: doc.committed_at ?? doc.prepared_at,
  };
}

/** The attachment document, whatever its state, or undefined. */
export async function attachmentDoc(ctx: RequestContext, id: string): Promise<AttachmentDoc | undefined> {
  const row = await ctx.services.knex('billing_attachments').where({ id }).first('doc');
  return row?.doc as AttachmentDoc | undefined;
}

/** 404 unless the caller may see `subject`; `owner` given: the caller already checked it (relationship evidence, staff only). */
async function checkSubject(ctx: RequestContext, subject: AttachmentSubject, owner?: string): Promise<void> {
  if (owner !== undefined) return;
  if (subject.type === 'relationship') throw billingErrors.error('attachment_not_found', 'Relationship evidence is read through its own operations.');
  await subjectOrganization(ctx, { type: subject.type, id: subject.id });
}

function sameSubject(doc: AttachmentDoc, subject: AttachmentSubject): boolean {
  return doc.subject.type === subject.type && doc.subject.id === subject.id;
}

/** A pending attachment of the subject (the subject already checked visible), or 404. */
export async function pendingAttachment(ctx: RequestContext, subject: AttachmentSubject, id: string): Promise<AttachmentDoc> {
  const doc = await attachmentDoc(ctx, id);
  if (!doc || !sameSubject(doc, subject)) throw billingErrors.error('attachment_not_found', `No attachment ${id} on this ${subject.type}.`);
  return doc;
}

/** A committed attachment of a subject the caller may see, internal ones only for those who see internal files; else 404. */
export async function visibleAttachment(ctx: RequestContext, subject: AttachmentSubject, id: string, owner?: string): Promise<AttachmentDoc> {
  await checkSubject(ctx, subject, owner);
  const doc = await attachmentDoc(ctx, id);
  if (!doc || !sameSubject(doc, subject) || doc.status !== 'committed' || (doc.is_internal && !seesInternal(ctx)))
    throw billingErrors.error('attachment_not_found', `No attachment ${id} on this ${subject.type}.`);
  return doc;
}

/** One page of a subject's committed attachments the caller may see, oldest first. */
export async function listAttachments(ctx: RequestContext, subject: AttachmentSubject, limit: number, cursor?: string, owner?: string) {
  await checkSubject(ctx, subject, owner);
  const q = ctx.services.knex('billing_attachments').where({ subject_type: subject.type, subject_id: subject.id, status: 'committed' }).select('id', 'created_at', 'doc');
  if (!seesInternal(ctx)) q.whereRaw(`(doc->>'is_internal')::boolean = false`);
  const res = await documentPage<AttachmentDoc>(q, { limit, cursor });
  return { items: res.docs.map(attachmentBody), pagination: res.pagination };
}

/** A short-lived download URL of a visible attachment. */
export async function attachmentUrl(ctx: RequestContext, subject: AttachmentSubject, id: string, owner?: string) {
  const doc = await visibleAttachment(ctx, subject, id, owner);
  // Served from the copy frozen at commit, out of reach of the upload URL (commits before issue 25: the upload key).
  const url = await ctx.services.objects.presignDownload(doc.committed_key ?? doc.object_key, { filename: doc.filename, contentType: doc.content_type, expiresInSeconds: DOWNLOAD_URL_SECONDS });
  return { url: url.url, expires_at: url.expires_at.toISOString(), expires_in_seconds: DOWNLOAD_URL_SECONDS };
}

/** Pending attachments whose upload expired before `now` (the expiry worker's work list), oldest first. */
/** Every attachment of an organization still in the read model, for the data export. */
export async function organizationAttachments(knex: Knex, organizationId: string): Promise<AttachmentDoc[]> {
  const rows = (await knex('billing_attachments').where({ organization_id: organizationId }).orderBy('created_at').select('doc')) as { doc: AttachmentDoc }[];
  return rows.map((r) => r.doc);
}

export async function expiredUploads(knex: Knex, now: Date, limit = 500): Promise<AttachmentDoc[]> {
  const rows = await knex('billing_attachments').where({ status: 'pending' }).andWhere('expires_at', '<', now).orderBy('expires_at').limit(limit).pluck('doc');
  return rows as AttachmentDoc[];
}

/** Removed attachments whose retention ended by `now` (the retention worker's work list), oldest removal first. */
export async function retentionEnded(knex: Knex, now: Date, retentionDays: number, limit = 500): Promise<AttachmentDoc[]> {
  const removedBy = new Date(now.getTime() - retentionDays * 86_400_000);
  const rows = await knex('billing_attachments').where({ status: 'removed' }).andWhere('removed_at', '<=', removedBy).orderBy('removed_at').limit(limit).pluck('doc');
  return rows as AttachmentDoc[];
}
