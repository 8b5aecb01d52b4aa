// Attachment expiry and retention worker: uploads never committed are deleted once their URL expired; removed attachments'
// files are deleted once their retention period (ATTACHMENT_RETENTION_DAYS) is over. Both are events, so the audit shows them.
import type { CommandContext, Services } from '../../context.ts';
import type { Worker } from '../worker.ts';
import { attachments } from '../../commands/billing/handlers.ts';
import { retainedKey } from '../../commands/billing/attachments.ts';
import { committedKey } from '../../storage/port.ts';
import { IdSource } from '../../ids.ts';
import { expiredUploads, retentionEnded } from '../../queries/billing/attachments.ts';
import { systemMetadata } from '../../pipeline/invoke.ts';

/** What one pass did: the attachments recorded as expired, and those whose files were purged after their retention. */
export interface AttachmentExpiryResult {
  expired: string[];
  purged: string[];
}

function systemContext(services: Services, now: Date, organizationId: string): CommandContext {
  return {
    store: services.store,
    ids: IdSource.random(now),
    now,
    metadata: systemMetadata({ job: 'attachment-expiry-worker', orgId: organizationId }),
  };
}

/** Deletes the object of each stale pending attachment and of each removed one past retention, then appends the event; a repeated pass is a no-op. */
export async function runAttachmentExpiryPass(services: Services): Promise<AttachmentExpiryResult> {
  const now = services.clock.now();
  const retentionDays = services.config.attachmentRetentionDays;
  const result: AttachmentExpiryResult = { expired: [], purged: [] };
  for (const doc of await expiredUploads(services.knex, now)) {
    // Object first: should the append fail, the next pass finds the row again; a commit after expiry is refused meanwhile.
    // A commit refused for its content left a frozen copy: it goes too.
    await services.objects.delete(doc.object_key);
    await services.objects.delete(committedKey(doc.object_key));
    const res = await attachments.run(systemContext(services, now, doc.organization_id), doc.id, { type: 'ExpireAttachment', data: {} }, { orgId: doc.organization_id, reason: 'upload never committed' });
    if (res.events.length) result.expired.push(doc.id);
  }
  for (const doc of await retentionEnded(services.knex, now, retentionDays)) {
    // Its upload and frozen keys too: nothing should be left there, but no copy of a removed file may outlive its retention.
    await services.objects.delete(retainedKey(doc.object_key));
    await services.objects.delete(doc.object_key);
    await services.objects.delete(committedKey(doc.object_key));
    const res = await attachments.run(systemContext(services, now, doc.organization_id), doc.id, { type: 'PurgeAttachment', data: { retention_days: retentionDays } }, { orgId: doc.organization_id, reason: 'retention period over' });
    if (res.events.length) result.purged.push(doc.id);
  }
  if (result.expired.length || result.purged.length) services.logger.info({ expired: result.expired.length, purged: result.purged.length }, 'attachment files deleted');
  return result;
}

/** The attachment expiry worker as the composition root runs it. */
export const attachmentExpiryWorker: Worker<AttachmentExpiryResult> = { name: 'billing.attachment-expiry', runOnce: runAttachmentExpiryPass };
