// Schemas of billing.history.get: the audit timeline of one billing entity, replayed from the event log.
import { z } from 'zod';
import { PageRequest, RequestInstant, Timestamp, Uuid, page } from './common.ts';

/** Kinds of entity whose history can be read. */
export const HISTORY_SUBJECT_TYPES = ['customer', 'invoice', 'payment', 'credit_note_request', 'note', 'attachment', 'relationship', 'revision'] as const;

/** billing.HistorySubject */
export const HistorySubject = z
  .strictObject({
    type: z.enum(HISTORY_SUBJECT_TYPES).describe('What kind of entity: a payment\'s events live on its invoice\'s stream, a baseline or pricing revision\'s on its subscription\'s configuration stream; they are picked out of it.'),
    id: Uuid.describe('Id of the entity.'),
  })
  .meta({ id: 'billing.HistorySubject' });

/** billing.HistoryGetRequest */
export const HistoryGetRequest = z
  .strictObject({
    subject: HistorySubject,
    as_of: RequestInstant.optional().describe('Replay only what was recorded at or before this instant: `state` is the entity as it was then and the timeline stops there. Default: now.'),
    ...PageRequest,
  })
  .meta({ id: 'billing.HistoryGetRequest' });

/** Who made a change, with the name and email of a user or staff member when known. */
export const HistoryActor = z
  .object({
    type: z.enum(['user', 'staff', 'integration', 'system']),
    id: z.string(),
    name: z.string().nullable().describe('The user\'s name (users and staff); null otherwise or when unknown.'),
    email: z.string().nullable().describe('The user\'s email (users and staff); null otherwise or when unknown.'),
  })
  .meta({ id: 'billing.HistoryActor' });

/** One changed field: `path` is dotted (`lines.0.amount`); a missing side is null. */
export const HistoryChange = z
  .object({
    path: z.string().describe('Dotted path of the field in `state` (`status`, `lines.0.amount`).'),
    before: z.unknown().describe('Value before the event (null when the field did not exist).'),
    after: z.unknown().describe('Value after the event (null when the field was removed).'),
  })
  .meta({ id: 'billing.HistoryChange' });

/** billing.HistoryEntry: one recorded event with who, when, why and what it changed. */
export const HistoryEntry = z
  .object({
    event_id: Uuid,
    type: z.string().describe('Event type, e.g. InvoiceFinalized.'),
    revision: z.int().describe('0-based position of the event in its stream.'),
    recorded_at: Timestamp.describe('When the event was appended.'),
    actor: HistoryActor,
    reason: z.string().nullable().describe('Why, as the actor said (a request\'s reason field or its Svc-Reason header); null when none was given.'),
    request_id: z.string().nullable().describe('The request that appended it (matches X-Request-Id and the logs).'),
    data: z.record(z.string(), z.unknown()).describe('The event\'s data as stored (read through its current schema).'),
    changes: z.array(HistoryChange).describe('Fields of `state` the event changed (at most 200).'),
    unreadable: z.string().nullable().describe('Why the stored event does not read as its type: it is shown as stored and changes nothing; null when it reads.'),
    skipped_by: z
      .array(z.object({ projection: z.string(), reason: z.string(), actor: z.string(), skipped_at: Timestamp }))
      .describe('Read models an operator told to leave this event out, with who, when and why (empty for almost every event).'),
  })
  .meta({ id: 'billing.HistoryEntry' });

/** billing.HistoryGetResponse: the timeline page and the replayed state. */
export const HistoryGetResponse = page(HistoryEntry, 'billing.HistoryTimeline')
  .extend({
    subject: HistorySubject,
    stream: z.string().describe('The event stream replayed (`invoice-<id>`; a payment\'s is its invoice\'s).'),
    as_of: Timestamp.nullable().describe('The instant asked for, in UTC; null when now.'),
    exists: z.boolean().describe('Whether the entity existed at `as_of` (false: it was created later).'),
    state: z.record(z.string(), z.unknown()).nullable().describe('The entity as its events leave it at `as_of`, replayed through its aggregate (null when it did not exist yet).'),
    event_count: z.int().describe('How many events the timeline has in all (up to `as_of`).'),
  })
  .meta({ id: 'billing.HistoryGetResponse' });
