// Attachment expiry worker: uploads prepared but never committed are deleted once their URL expired, and recorded as expired.
import type { Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { attachments } from '../../commands/billing/handlers.ts';
import { IdSource } from '../../ids.ts';
import { expiredUploads } from '../../queries/billing/attachments.ts';

/** What one pass did: the attachments recorded as expired. */
export interface AttachmentExpiryResult {
  expired: string[];
}

/** Deletes the object of each stale pending attachment, then appends AttachmentExpired (the audit trail); a repeated pass is a no-op. */
export async function runAttachmentExpiryPass(services: Services): Promise<AttachmentExpiryResult> {
  const now = services.clock.now();
  const result: AttachmentExpiryResult = { expired: [] };
  for (const doc of await expiredUploads(services.knex, now)) {
    // Object first: should the append fail, the next pass finds the row again; a commit after expiry is refused meanwhile.
    await services.objects.delete(doc.object_key);
    const ctx = {
      store: services.store,
      ids: IdSource.random(now),
      now,
      metadata: { org_id: doc.organization_id, actor: { type: 'system' as const, id: 'attachment-expiry-worker' }, request_id: null, correlation_id: null, causation_id: null },
    };
    const res = await attachments.run(ctx, doc.id, { type: 'ExpireAttachment', data: {} }, { orgId: doc.organization_id, reason: 'upload never committed' });
    if (res.events.length) result.expired.push(doc.id);
  }
  if (result.expired.length) services.logger.info({ expired: result.expired.length }, 'expired uncommitted attachment uploads');
  return result;
}

/** The attachment expiry worker as the composition root runs it. */
export const attachmentExpiryWorker: Worker<AttachmentExpiryResult> = { name: 'billing.attachment-expiry', runOnce: runAttachmentExpiryPass };
