// Schemas of the billing event feed (billing.events.get / .list).
import { z } from 'zod';
import { PageRequest, RequestInstant, Timestamp, Uuid, page } from './common.ts';

export { FEED_EVENT_TYPES, type FeedEventType } from '../../domain/billing/feed-event-types.ts';

/** What a billing event is about. */
export const EventSubject = z
  .object({
    type: z.enum(['customer', 'invoice', 'payment', 'credit_note_request']).describe('Kind of resource the event is about.'),
    id: Uuid.describe('Id of that resource.'),
  })
  .meta({ id: 'billing.EventSubject' });

export const EventDetailItem = z
  .object({
    id: Uuid.describe('Event id; stable across read-model rebuilds.'),
    type: z.string().describe('Dotted event type, e.g. `customer.created`, `invoice.finalized`, `payment.recorded`.'),
    occurred_at: Timestamp.describe('When the event was recorded.'),
    subject: EventSubject,
    data: z.record(z.string(), z.unknown()).describe('Public details of the change; fields depend on `type`.'),
  })
  .meta({ id: 'billing.EventDetailItem' });

const EventType = z.string().regex(/^[a-z_]+\.[a-z_]+$/, 'must be a dotted event type such as invoice.finalized').describe('An event type.');

export const EventListRequest = z
  .strictObject({
    ...PageRequest,
    types: z.array(EventType).min(1).max(50).optional().describe('Only events of these types.'),
    subject: z.strictObject({ type: EventSubject.shape.type, id: Uuid }).optional().describe('Only events about this resource.'),
    subject_type: EventSubject.shape.type.optional().describe('Only events about this kind of resource.'),
    occurred_from: RequestInstant.optional().describe('Only events recorded at or after this time.'),
    occurred_before: RequestInstant.optional().describe('Only events recorded before this time.'),
    organization_id: Uuid.optional().describe("Billing staff: only this organization's events."),
  })
  .meta({ id: 'billing.EventListRequest' });

export const EventListPage = page(EventDetailItem, 'billing.EventListPage');

/** billing.ActivityListRequest: the organization-wide activity of billing staff's console, newest first. */
export const ActivityListRequest = z
  .strictObject({
    ...PageRequest,
    actor_id: z.string().trim().min(1).max(200).optional().describe('Only changes made by this user, staff member or integration (its id).'),
    subject_type: EventSubject.shape.type.optional().describe('Only changes of this kind of resource.'),
    organization_id: Uuid.optional().describe("Only this organization's changes."),
    occurred_from: RequestInstant.optional().describe('Only changes recorded at or after this time.'),
    occurred_before: RequestInstant.optional().describe('Only changes recorded before this time.'),
  })
  .meta({ id: 'billing.ActivityListRequest' });

/** billing.ActivityItem: a feed event with who made it (and their name) and why. */
export const ActivityItem = EventDetailItem.extend({
  organization_id: Uuid.nullable().describe('The organization the change belongs to.'),
  actor: z.object({
    type: z.enum(['user', 'staff', 'integration', 'system']),
    id: z.string().nullable(),
    name: z.string().nullable().describe("The person's name (users and staff); null otherwise or when unknown."),
    email: z.string().nullable(),
  }),
  reason: z.string().nullable().describe('Why, as the actor said; null when none was given.'),
}).meta({ id: 'billing.ActivityItem' });

export const ActivityListPage = page(ActivityItem, 'billing.ActivityListPage');
