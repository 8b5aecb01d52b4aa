// Attachment aggregate (`attachment-<id>`): a file on a customer, an invoice or a billing relationship (evidence), prepared, uploaded, committed, removed.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { DataSubjectErasedSchema, personal } from '../personal.ts';

/** What an attachment belongs to. */
export const AttachmentSubjectSchema = z.object({ type: z.enum(['customer', 'invoice', 'relationship']), id: EventId });
/** What an attachment belongs to. */
export type AttachmentSubject = z.infer<typeof AttachmentSubjectSchema>;

/** Events of an attachment stream. */
export const attachmentEvents = eventSchemas({
  AttachmentPrepared: z.object({
    attachment_id: z.string(),
    subject: AttachmentSubjectSchema,
    organization_id: EventId,
    object_key: z.string(),
    /** A file name often names a person ("passport-jane-doe.pdf"): the attachment's own key, erased with its customer. */
    filename: personal(z.string(), { kind: 'attachment' }),
    content_type: z.string(),
    size: z.number(),
    prepared_at: EventInstant,
    expires_at: EventInstant,
  }),
  // committed_key: where commit froze the checked bytes, the only key downloads are served from (absent on commits before
  // issue 25, which serve the upload key).
  AttachmentCommitted: z.object({ is_internal: z.boolean(), committed_at: EventInstant, committed_key: z.string().optional() }),
  AttachmentRemoved: z.object({ removed_at: EventInstant }),
  AttachmentExpired: z.object({ expired_at: z.string() }),
  AttachmentPurged: z.object({ purged_at: z.string(), retention_days: z.number() }),
  /** The attachment's file name was erased with the customer it belongs to (issue 32). */
  AttachmentNameErased: DataSubjectErasedSchema,
});

/** An attachment event (derived from `attachmentEvents`). */
export type AttachmentEvent = EventOf<typeof attachmentEvents>;

/** How attachment events are read. */
export const attachmentCodec = eventCodec(attachmentEvents);

type Prepared = EventOf<typeof attachmentEvents> & { type: 'AttachmentPrepared' };

/** What may be asked of an attachment. */
export type AttachmentCommand =
  | { type: 'PrepareAttachment'; data: Omit<Prepared['data'], 'prepared_at'> & { now: string } }
  | { type: 'CommitAttachment'; data: { subject: AttachmentSubject; is_internal: boolean; committed_key: string; now: string } }
  | { type: 'RemoveAttachment'; data: { subject: AttachmentSubject; now: string } }
  | { type: 'ExpireAttachment'; data: { now: string } }
  | { type: 'PurgeAttachment'; data: { retention_days: number; now: string } }
  | { type: 'EraseAttachmentName'; data: Omit<z.infer<typeof DataSubjectErasedSchema>, 'erased_at'> & { now: string } };

/** What the attachment decider needs. */
export interface AttachmentState {
  status: 'none' | 'pending' | 'committed' | 'removed' | 'expired' | 'purged';
  subject: AttachmentSubject | null;
  expiresAt: string;
  isInternal: boolean;
  removedAt: string | null;
  erased: boolean;
}

const DAY_MS = 86_400_000;

/** Whether a removed attachment's retention is over at `now`: `retentionDays` whole days after its removal. */
export function retentionOver(removedAt: string, retentionDays: number, now: Date): boolean {
  return Date.parse(removedAt) + retentionDays * DAY_MS <= now.getTime();
}

function sameSubject(a: AttachmentSubject | null, b: AttachmentSubject): boolean {
  return a !== null && a.type === b.type && a.id === b.id;
}

/** Pure attachment decider: commit only a pending upload of the same subject before it expires; remove only a committed one; expire only a stale pending one; purge only a removed one past its retention. */
export const attachmentDecider: Decider<AttachmentCommand, AttachmentEvent, AttachmentState> = {
  events: attachmentCodec,
  initialState: () => ({ status: 'none', subject: null, expiresAt: '', isInternal: false, removedAt: null, erased: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'AttachmentPrepared':
        return { status: 'pending', subject: event.data.subject, expiresAt: event.data.expires_at, isInternal: false, removedAt: null, erased: false };
      case 'AttachmentCommitted':
        return { ...state, status: 'committed', isInternal: event.data.is_internal };
      case 'AttachmentRemoved':
        return { ...state, status: 'removed', removedAt: event.data.removed_at };
      case 'AttachmentExpired':
        return { ...state, status: 'expired' };
      case 'AttachmentPurged':
        return { ...state, status: 'purged' };
      case 'AttachmentNameErased':
        return { ...state, erased: true };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'PrepareAttachment': {
        if (state.status !== 'none') throw billingErrors.error('attachment_exists', 'The attachment already exists.');
        const { now, ...data } = command.data;
        return [{ type: 'AttachmentPrepared', data: { ...data, prepared_at: now } }];
      }
      case 'CommitAttachment': {
        const { subject, is_internal, committed_key, now } = command.data;
        if (!sameSubject(state.subject, subject) || state.status === 'none' || state.status === 'removed' || state.status === 'purged') throw billingErrors.error('attachment_not_found', 'No such attachment.');
        if (state.status === 'committed') {
          if (state.isInternal === is_internal) return [];
          throw billingErrors.error('attachment_committed', 'The attachment is already committed.');
        }
        if (state.status === 'expired' || Date.parse(now) > Date.parse(state.expiresAt)) throw billingErrors.error('attachment_expired', 'The upload expired; prepare it again.');
        return [{ type: 'AttachmentCommitted', data: { is_internal, committed_at: now, committed_key } }];
      }
      case 'RemoveAttachment':
        if (state.status !== 'committed' || !sameSubject(state.subject, command.data.subject)) throw billingErrors.error('attachment_not_found', 'No such attachment.');
        return [{ type: 'AttachmentRemoved', data: { removed_at: command.data.now } }];
      case 'ExpireAttachment':
        // Only an upload never committed, once its URL has expired; anything else is left alone (a repeated pass is a no-op).
        if (state.status !== 'pending' || !(Date.parse(command.data.now) > Date.parse(state.expiresAt))) return [];
        return [{ type: 'AttachmentExpired', data: { expired_at: command.data.now } }];
      case 'PurgeAttachment':
        // Only a removed attachment whose retention is over; anything else (kept, already purged) is left alone, so a repeated pass is a no-op.
        if (state.status !== 'removed' || state.removedAt === null || !retentionOver(state.removedAt, command.data.retention_days, new Date(command.data.now))) return [];
        return [{ type: 'AttachmentPurged', data: { purged_at: command.data.now, retention_days: command.data.retention_days } }];
      case 'EraseAttachmentName': {
        if (state.status === 'none' || state.erased) return [];
        const { now, ...erasure } = command.data;
        return [{ type: 'AttachmentNameErased', data: { ...erasure, erased_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
