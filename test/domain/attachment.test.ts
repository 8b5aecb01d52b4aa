// Attachment decider (given/when/then) and the content check by magic bytes.
import { expect } from 'chai';
import { type AttachmentEvent, attachmentDecider } from '../../src/domain/billing/attachment.ts';
import { contentMatches } from '../../src/domain/billing/attachment-content.ts';
import { given } from './given.ts';

const ID = '0190c6a2-0000-7000-8000-0000000000a1';
const CUS = { type: 'customer' as const, id: '0190c6a2-0000-7000-8000-0000000000c1' };
const INV = { type: 'invoice' as const, id: '0190c6a2-0000-7000-8000-0000000000b1' };
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-15T09:10:00.000Z';
const LATE = '2026-01-15T09:15:00.001Z';
const file = { attachment_id: ID, subject: CUS, organization_id: '0190c6a2-0000-7000-8000-0000000000f1', object_key: `attachments/x/${ID}`, filename: 'a.pdf', content_type: 'application/pdf', size: 10, expires_at: '2026-01-15T09:15:00.000Z' };
const prepared: AttachmentEvent = { type: 'AttachmentPrepared', data: { ...file, prepared_at: T0 } };
const FROZEN = `committed/attachments/x/${ID}`;
const committed: AttachmentEvent = { type: 'AttachmentCommitted', data: { is_internal: true, committed_at: T1, committed_key: FROZEN } };
const removed: AttachmentEvent = { type: 'AttachmentRemoved', data: { removed_at: T1 } };

describe('attachment decider', () => {
  it('prepares once', () => {
    given(attachmentDecider, []).when({ type: 'PrepareAttachment', data: { ...file, now: T0 } }).then([prepared]);
    given(attachmentDecider, [prepared]).when({ type: 'PrepareAttachment', data: { ...file, now: T0 } }).thenError('attachment_exists');
  });

  it('commits a pending upload of the same subject before it expires; a retry with the same flag is nothing', () => {
    given(attachmentDecider, [prepared]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: true, committed_key: FROZEN, now: T1 } }).then([committed]);
    given(attachmentDecider, [prepared, committed]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: true, committed_key: FROZEN, now: T1 } }).thenNothing();
    given(attachmentDecider, [prepared, committed]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: false, committed_key: FROZEN, now: T1 } }).thenError('attachment_committed');
    given(attachmentDecider, [prepared]).when({ type: 'CommitAttachment', data: { subject: INV, is_internal: false, committed_key: FROZEN, now: T1 } }).thenError('attachment_not_found');
    given(attachmentDecider, [prepared]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: false, committed_key: FROZEN, now: LATE } }).thenError('attachment_expired');
    given(attachmentDecider, []).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: false, committed_key: FROZEN, now: T1 } }).thenError('attachment_not_found');
  });

  it('removes only a committed attachment of the same subject, once', () => {
    given(attachmentDecider, [prepared, committed]).when({ type: 'RemoveAttachment', data: { subject: CUS, now: T1 } }).then([removed]);
    given(attachmentDecider, [prepared]).when({ type: 'RemoveAttachment', data: { subject: CUS, now: T1 } }).thenError('attachment_not_found');
    given(attachmentDecider, [prepared, committed]).when({ type: 'RemoveAttachment', data: { subject: INV, now: T1 } }).thenError('attachment_not_found');
    given(attachmentDecider, [prepared, committed, removed]).when({ type: 'RemoveAttachment', data: { subject: CUS, now: T1 } }).thenError('attachment_not_found');
    given(attachmentDecider, [prepared, committed, removed]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: true, committed_key: FROZEN, now: T1 } }).thenError('attachment_not_found');
  });
});

describe('attachment expiry', () => {
  const expired: AttachmentEvent = { type: 'AttachmentExpired', data: { expired_at: LATE } };
  it('expires only a pending upload past its expiry, once; an expired upload cannot be committed', () => {
    given(attachmentDecider, [prepared]).when({ type: 'ExpireAttachment', data: { now: LATE } }).then([expired]);
    given(attachmentDecider, [prepared]).when({ type: 'ExpireAttachment', data: { now: T1 } }).thenNothing();
    given(attachmentDecider, [prepared, committed]).when({ type: 'ExpireAttachment', data: { now: LATE } }).thenNothing();
    given(attachmentDecider, [prepared, expired]).when({ type: 'ExpireAttachment', data: { now: LATE } }).thenNothing();
    given(attachmentDecider, [prepared, expired]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: false, committed_key: FROZEN, now: T1 } }).thenError('attachment_expired');
  });
});

describe('attachment retention', () => {
  const DAY = 86_400_000;
  const at = (days: number, ms = 0) => new Date(Date.parse(T1) + days * DAY + ms).toISOString();
  const purged: AttachmentEvent = { type: 'AttachmentPurged', data: { purged_at: at(30), retention_days: 30 } };
  it('purges a removed attachment once its retention is over, once; never a kept or pending one', () => {
    given(attachmentDecider, [prepared, committed, removed]).when({ type: 'PurgeAttachment', data: { retention_days: 30, now: at(30, -1) } }).thenNothing();
    given(attachmentDecider, [prepared, committed, removed]).when({ type: 'PurgeAttachment', data: { retention_days: 30, now: at(30) } }).then([purged]);
    given(attachmentDecider, [prepared, committed, removed, purged]).when({ type: 'PurgeAttachment', data: { retention_days: 30, now: at(31) } }).thenNothing();
    given(attachmentDecider, [prepared, committed]).when({ type: 'PurgeAttachment', data: { retention_days: 0, now: at(99) } }).thenNothing();
    given(attachmentDecider, [prepared]).when({ type: 'PurgeAttachment', data: { retention_days: 0, now: at(99) } }).thenNothing();
    given(attachmentDecider, [prepared, committed, removed, purged]).when({ type: 'RemoveAttachment', data: { subject: CUS, now: at(31) } }).thenError('attachment_not_found');
    given(attachmentDecider, [prepared, committed, removed, purged]).when({ type: 'CommitAttachment', data: { subject: CUS, is_internal: true, committed_key: FROZEN, now: at(31) } }).thenError('attachment_not_found');
  });
});

describe('attachment content check', () => {
  const b = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
  it('accepts each allowed type by its leading bytes and refuses the others', () => {
    const samples = {
      'application/pdf': b('%PDF-1.4\n'),
      'image/png': b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      'image/jpeg': b([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
      'image/webp': b('RIFF', [0x10, 0, 0, 0], 'WEBPVP8 '),
      'image/heic': b([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0]),
    } as const;
    for (const [type, bytes] of Object.entries(samples)) {
      for (const [other, otherBytes] of Object.entries(samples)) expect(contentMatches(type as keyof typeof samples, otherBytes, true), `${type} given ${other}`).to.equal(type === other);
      expect(contentMatches(type as keyof typeof samples, b('MZ', [0x90, 0]), true), type).to.equal(false);
      // A PDF header is text itself; binary formats are not.
      if (type !== 'application/pdf') expect(contentMatches('text/plain', bytes, true), `text given ${type}`).to.equal(false);
    }
  });

  it('text and CSV: UTF-8 without binary control bytes; a character cut by the sample end is fine, unless it is the whole file', () => {
    expect(contentMatches('text/csv', Buffer.from('a,b\r\n1,"ü"\n'), true)).to.equal(true);
    expect(contentMatches('text/plain', Buffer.from('tab\there\n'), true)).to.equal(true);
    expect(contentMatches('text/plain', Buffer.from([0x61, 0x00]), true)).to.equal(false);
    expect(contentMatches('text/plain', Buffer.from([0x61, 0xff, 0x62]), true)).to.equal(false);
    const cut = Buffer.from('abc€').subarray(0, 5);
    expect(contentMatches('text/plain', cut, false)).to.equal(true);
    expect(contentMatches('text/plain', cut, true)).to.equal(false);
  });
});
