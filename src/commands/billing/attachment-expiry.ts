// billing.attachments.expire and billing.attachments.purge (internal): the attachment expiry worker's work on one attachment, as
// the system. Uploads never committed are deleted once their URL expired; removed attachments' files are deleted once their
// retention period (ATTACHMENT_RETENTION_DAYS) is over. Both are events, so the audit shows them; repeating either is a no-op.
import { operation } from '../../contract/operation.ts';
import { AttachmentExpiryDone, AttachmentExpiryRequest } from '../../contract/schemas/billing-system.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { committedKey } from '../../storage/port.ts';
import { retainedKey } from './attachments.ts';
import { attachments } from './handlers.ts';

/** billing.attachments.expire */
export const attachmentsExpire = operation({
  id: 'billing.attachments.expire',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Deletes the file of an upload never committed once its URL expired, and records the attachment as expired.',
  description: 'Internal: invoked by the attachment expiry worker as the system (job `attachment-expiry-worker`).',
  request: AttachmentExpiryRequest,
  response: AttachmentExpiryDone,
  error: 'billing.AttachmentExpiryError',
  errors: billingErrors.list('attachment_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { objects } = ctx.services;
    const orgId = ctx.auth.organizationId ?? '';
    // Object first: should the append fail, the next pass finds the row again; a commit after expiry is refused meanwhile.
    // A commit refused for its content left a frozen copy: it goes too.
    await objects.delete(req.object_key);
    await objects.delete(committedKey(req.object_key));
    const res = await attachments.run(ctx, req.attachment_id, { type: 'ExpireAttachment', data: {} }, { orgId, reason: 'upload never committed' });
    return { changed: res.events.length > 0 };
  },
});

/** billing.attachments.purge */
export const attachmentsPurge = operation({
  id: 'billing.attachments.purge',
  surface: 'internal',
  tags: ['Billing'],
  summary: "Deletes a removed attachment's files once its retention period is over, and records the purge.",
  description: 'Internal: invoked by the attachment expiry worker as the system (job `attachment-expiry-worker`).',
  request: AttachmentExpiryRequest,
  response: AttachmentExpiryDone,
  error: 'billing.AttachmentExpiryError',
  errors: billingErrors.list('attachment_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { objects } = ctx.services;
    const orgId = ctx.auth.organizationId ?? '';
    // Its upload and frozen keys too: nothing should be left there, but no copy of a removed file may outlive its retention.
    await objects.delete(retainedKey(req.object_key));
    await objects.delete(req.object_key);
    await objects.delete(committedKey(req.object_key));
    const res = await attachments.run(ctx, req.attachment_id, { type: 'PurgeAttachment', data: { retention_days: ctx.services.config.attachmentRetentionDays } }, { orgId, reason: 'retention period over' });
    return { changed: res.events.length > 0 };
  },
});

/** Billing's internal operations of attachment expiry and retention. */
export const billingAttachmentExpiryCommands = [attachmentsExpire, attachmentsPurge];
