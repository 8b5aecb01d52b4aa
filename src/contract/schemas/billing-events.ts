// Schemas of the billing event feed (billing.events.get / .list).
import { z } from 'zod';
import { PageRequest, RequestInstant, Timestamp, Uuid, page } from './common.ts';

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
