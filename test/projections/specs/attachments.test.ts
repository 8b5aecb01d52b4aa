// billing.attachments, given one attachment's life: pending after prepare, committed with its flag and committer, kept as removed, gone when purged.
import { backends } from '../../support/db.ts';
import type { AttachmentEvent } from '../../../src/domain/billing/attachment.ts';
import { billingAttachmentsProjection } from '../../../src/projections/billing/attachments.ts';
import { SPEC_ACTOR, on, projectionSpec } from '../spec.ts';

const ID = '0190c6a2-0000-7000-8000-0000000000a1';
const ORG = '0190c6a2-0000-7000-8000-0000000000f1';
const subject = { type: 'customer' as const, id: '0190c6a2-0000-7000-8000-0000000000c1' };
const STAFF = { type: 'staff' as const, id: '0190c6a2-0000-7000-8000-00000000f002' };
const prepared: AttachmentEvent = {
  type: 'AttachmentPrepared',
  data: { attachment_id: ID, subject, organization_id: ORG, object_key: `attachments/${ORG}/${ID}`, filename: 'a.pdf', content_type: 'application/pdf', size: 10, prepared_at: '2026-01-15T09:00:00.000Z', expires_at: '2026-01-15T09:15:00.000Z' },
};
const committed: AttachmentEvent = { type: 'AttachmentCommitted', data: { is_internal: true, committed_at: '2026-01-15T09:01:00.000Z' } };
const removed: AttachmentEvent = { type: 'AttachmentRemoved', data: { removed_at: '2026-01-15T09:02:00.000Z' } };
const pendingDoc = {
  id: ID, subject, organization_id: ORG, object_key: `attachments/${ORG}/${ID}`, filename: 'a.pdf', content_type: 'application/pdf', size: 10, is_internal: false,
  status: 'pending', prepared_by: SPEC_ACTOR, prepared_at: '2026-01-15T09:00:00.000Z', expires_at: '2026-01-15T09:15:00.000Z', committed_by: null, committed_at: null,
  removed_by: null, removed_at: null,
};

for (const backend of backends()) {
  describe(`billing attachment projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a prepared attachment is pending', async () => {
      await spec.given(billingAttachmentsProjection, on<AttachmentEvent>(`attachment-${ID}`, [prepared])).then({ billing_attachments: [pendingDoc] });
    });

    it('a committed attachment carries its flag, committer and time', async () => {
      await spec.given(billingAttachmentsProjection, [...on<AttachmentEvent>(`attachment-${ID}`, [prepared]), ...on<AttachmentEvent>(`attachment-${ID}`, [committed], { actor: STAFF })]).then({
        billing_attachments: [{ ...pendingDoc, status: 'committed', is_internal: true, committed_by: STAFF, committed_at: '2026-01-15T09:01:00.000Z' }],
      });
    });

    it('a commit names the frozen copy downloads are served from (commits before issue 25 name none)', async () => {
      const frozen: AttachmentEvent = { type: 'AttachmentCommitted', data: { is_internal: false, committed_at: '2026-01-15T09:01:00.000Z', committed_key: `committed/attachments/${ORG}/${ID}` } };
      await spec.given(billingAttachmentsProjection, on<AttachmentEvent>(`attachment-${ID}`, [prepared, frozen])).then({
        billing_attachments: [{ ...pendingDoc, status: 'committed', committed_by: SPEC_ACTOR, committed_at: '2026-01-15T09:01:00.000Z', committed_key: `committed/attachments/${ORG}/${ID}` }],
      });
    });

    it('an expired upload leaves the read model', async () => {
      const expired: AttachmentEvent = { type: 'AttachmentExpired', data: { expired_at: '2026-01-15T09:16:00.000Z' } };
      await spec.given(billingAttachmentsProjection, on<AttachmentEvent>(`attachment-${ID}`, [prepared, expired])).then({ billing_attachments: [] });
    });

    it('a removed attachment stays, marked removed with who and when, until its file is purged', async () => {
      const committedDoc = { ...pendingDoc, status: 'committed', is_internal: true, committed_by: STAFF, committed_at: '2026-01-15T09:01:00.000Z' };
      await spec
        .given(billingAttachmentsProjection, [...on<AttachmentEvent>(`attachment-${ID}`, [prepared]), ...on<AttachmentEvent>(`attachment-${ID}`, [committed], { actor: STAFF }), ...on<AttachmentEvent>(`attachment-${ID}`, [removed])])
        .then({ billing_attachments: [{ ...committedDoc, status: 'removed', removed_by: SPEC_ACTOR, removed_at: '2026-01-15T09:02:00.000Z' }] });
    });

    it('a purged attachment leaves the read model', async () => {
      const purged: AttachmentEvent = { type: 'AttachmentPurged', data: { purged_at: '2026-02-14T09:02:00.000Z', retention_days: 30 } };
      await spec.given(billingAttachmentsProjection, on<AttachmentEvent>(`attachment-${ID}`, [prepared, committed, removed, purged])).then({ billing_attachments: [] });
    });
  });
}
