// billing_attachments: one document per pending, committed or removed attachment (a removed one stays until purged after its retention; expired and purged ones leave the read model, not the log).
import type { Actor } from '../../eventstore/port.ts';
import { type AttachmentEvent, type AttachmentSubject, attachmentCodec } from '../../domain/billing/attachment.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { ERASED } from '../../domain/personal.ts';

/** The stored attachment: the billing.Attachment body plus where it lives and who may see it. */
export interface AttachmentDoc {
  id: string;
  subject: AttachmentSubject;
  organization_id: string;
  /** Where the upload URL writes. */
  object_key: string;
  /** Where commit froze the checked bytes, served by download URLs; absent when committed before issue 25 (the upload key then). */
  committed_key?: string;
  filename: string;
  content_type: string;
  size: number;
  is_internal: boolean;
  status: 'pending' | 'committed' | 'removed';
  prepared_by: Actor;
  prepared_at: string;
  expires_at: string;
  committed_by: Actor | null;
  committed_at: string | null;
  removed_by: Actor | null;
  removed_at: string | null;
}

/** Builds billing_attachments from attachment events. */
export const billingAttachmentsProjection = documentProjection({
  name: 'billing.attachments',
  version: 2,
  tables: [
    documentTable<AttachmentDoc, AttachmentEvent>({
      table: 'billing_attachments',
      events: attachmentCodec,
      columns: (d) => ({
        subject_type: d.subject.type,
        subject_id: d.subject.id,
        organization_id: d.organization_id,
        status: d.status,
        expires_at: d.expires_at,
        removed_at: d.removed_at,
        created_at: d.committed_at ?? d.prepared_at,
      }),
      handlers: {
        AttachmentPrepared: (_doc, d, e) => ({
          id: d.attachment_id,
          subject: d.subject,
          organization_id: d.organization_id,
          object_key: d.object_key,
          filename: d.filename,
          content_type: d.content_type,
          size: d.size,
          is_internal: false,
          status: 'pending',
          prepared_by: e.metadata.actor,
          prepared_at: d.prepared_at,
          expires_at: d.expires_at,
          committed_by: null,
          committed_at: null,
          removed_by: null,
          removed_at: null,
        }),
        AttachmentCommitted: (doc, d, e) => doc && { ...doc, status: 'committed', is_internal: d.is_internal, committed_by: e.metadata.actor, committed_at: d.committed_at, ...(d.committed_key ? { committed_key: d.committed_key } : {}) },
        AttachmentRemoved: (doc, d, e) => doc && { ...doc, status: 'removed', removed_by: e.metadata.actor, removed_at: d.removed_at },
        AttachmentExpired: () => null,
        AttachmentPurged: () => null,
        // The live row loses the file name at once (a rebuild reads it as "[erased]" from the log).
        AttachmentNameErased: (doc) => doc && { ...doc, filename: ERASED },
      },
    }),
  ],
});
