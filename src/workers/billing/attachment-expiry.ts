// Attachment expiry and retention worker: for each upload never committed whose URL expired, and each removed attachment past its
// retention period (ATTACHMENT_RETENTION_DAYS), invokes billing.attachments.expire or .purge as the system (job
// `attachment-expiry-worker`), caused by the attachment's last event. A repeated pass is a no-op.
import { type Services, systemAuth } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { attachments } from '../../commands/billing/handlers.ts';
import { attachmentsExpire, attachmentsPurge } from '../../commands/billing/attachment-expiry.ts';
import { newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { expiredUploads, retentionEnded } from '../../queries/billing/attachments.ts';

/** What one pass did: the attachments recorded as expired, and those whose files were purged after their retention. */
export interface AttachmentExpiryResult {
  expired: string[];
  purged: string[];
}

/** Deletes the object of each stale pending attachment and of each removed one past retention, then appends the event; a repeated pass is a no-op. */
export async function runAttachmentExpiryPass(services: Services): Promise<AttachmentExpiryResult> {
  const now = services.clock.now();
  const result: AttachmentExpiryResult = { expired: [], purged: [] };
  const pass = newId();
  const caller = async (doc: { id: string; organization_id: string }) => ({
    auth: systemAuth('attachment-expiry-worker', doc.organization_id), requestId: pass, causation: await causedBy(services.store, attachments.stream(doc.id)),
  });
  for (const doc of await expiredUploads(services.knex, now)) {
    const { body } = await services.invoke(attachmentsExpire, { attachment_id: doc.id, object_key: doc.object_key }, await caller(doc));
    if (body.changed) result.expired.push(doc.id);
  }
  for (const doc of await retentionEnded(services.knex, now, services.config.attachmentRetentionDays)) {
    const { body } = await services.invoke(attachmentsPurge, { attachment_id: doc.id, object_key: doc.object_key }, await caller(doc));
    if (body.changed) result.purged.push(doc.id);
  }
  if (result.expired.length || result.purged.length) services.logger.info({ expired: result.expired.length, purged: result.purged.length }, 'attachment files deleted');
  return result;
}

/** The attachment expiry worker as the composition root runs it. */
export const attachmentExpiryWorker: Worker<AttachmentExpiryResult> = { name: 'billing.attachment-expiry', runOnce: runAttachmentExpiryPass };
