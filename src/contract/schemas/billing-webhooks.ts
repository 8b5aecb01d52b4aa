// Schemas of outbound webhooks: endpoints (billing.webhook-endpoints.*) and their deliveries (billing.webhook-deliveries.*).
import { z } from 'zod';
import { PageRequest, Timestamp, Uuid, page } from './common.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/billing/webhook-endpoint.ts';

export const WebhookEventType = z
  .enum(WEBHOOK_EVENT_TYPES)
  .describe('A public event type: those of billing.events.list, plus `lookup.completed` (an assemblies search answered), `import.completed` and `import.failed` (a catalogue import).')
  .meta({ id: 'billing.WebhookEventType' });

const Url = z.string().trim().min(1).max(2000).describe('Where deliveries are POSTed: https (plain http only to a loopback address, in development).');
const EventTypes = z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length).describe('The event types this endpoint receives.');
const Description = z.string().trim().max(500).describe('Your own note of what the endpoint is for.');

export const WebhookEndpoint = z
  .object({
    id: Uuid,
    organization_id: Uuid.nullable().describe("The organization whose events it receives; null: a billing staff endpoint receiving every organization's events."),
    url: z.string(),
    event_types: z.array(WebhookEventType),
    description: z.string(),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.enum(['manual', 'failing']).nullable().describe('`failing`: every delivery failed for 3 days, so the service disabled it (billing.attention.list shows it).'),
    disabled_at: Timestamp.nullable(),
    secret_rotated_at: Timestamp.nullable().describe('When the secret was last rotated; the previous one signs too until 24 hours after.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.WebhookEndpoint' });

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().describe('The signing secret (`whsec_` + base64), shown this once: verify deliveries with it (Standard Webhooks).'),
}).meta({ id: 'billing.WebhookEndpointWithSecret' });

export const WebhookEndpointInsertRequest = z
  .strictObject({
    url: Url,
    event_types: EventTypes,
    description: Description.default(''),
    organization_id: Uuid.optional().describe('Billing staff: the organization whose events it receives (omit for every organization). Others: their own organization.'),
  })
  .meta({ id: 'billing.WebhookEndpointInsertRequest' });

export const WebhookEndpointUpdateRequest = z
  .strictObject({ id: Uuid, url: Url.optional(), event_types: EventTypes.optional(), description: Description.optional() })
  .meta({ id: 'billing.WebhookEndpointUpdateRequest' });

export const WebhookEndpointRef = z.strictObject({ id: Uuid.describe('Webhook endpoint id.') }).meta({ id: 'billing.WebhookEndpointRef' });

export const WebhookEndpointListRequest = z
  .strictObject({ ...PageRequest, organization_id: Uuid.optional().describe("Billing staff: only this organization's endpoints.") })
  .meta({ id: 'billing.WebhookEndpointListRequest' });

export const WebhookEndpointListPage = page(WebhookEndpoint, 'billing.WebhookEndpointListPage');

export const WebhookSecretRotation = z
  .object({
    id: Uuid,
    secret: z.string().describe('The new signing secret, shown this once.'),
    previous_secret_expires_at: Timestamp.describe('Until then deliveries carry a signature by each secret.'),
  })
  .meta({ id: 'billing.WebhookSecretRotation' });

export const WebhookAttempt = z
  .object({
    attempted_at: Timestamp,
    status_code: z.int().nullable().describe('The HTTP status the endpoint answered; null when no answer came (refused, timed out).'),
    latency_ms: z.int(),
    response_excerpt: z.string().describe('The first 500 characters of the answer body, or why there was none.'),
    ok: z.boolean().describe('A 2xx answer.'),
  })
  .meta({ id: 'billing.WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: Uuid.describe('Delivery id (pass to billing.webhook-deliveries.redeliver).'),
    endpoint_id: Uuid,
    webhook_id: z.string().describe('The `webhook-id` header: the same for every attempt and redelivery of one event.'),
    event_id: Uuid,
    event_type: WebhookEventType,
    redelivery: z.boolean().describe('Asked for again with billing.webhook-deliveries.redeliver.'),
    status: z.enum(['pending', 'delivered', 'failing']),
    attempts: z.array(WebhookAttempt).describe('Every attempt, newest first (the last 20).'),
    next_attempt_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'billing.WebhookDelivery' });

export const WebhookDeliveryListRequest = z
  .strictObject({ ...PageRequest, endpoint_id: Uuid.describe('The endpoint whose deliveries to list.') })
  .meta({ id: 'billing.WebhookDeliveryListRequest' });

export const WebhookDeliveryListPage = page(WebhookDelivery, 'billing.WebhookDeliveryListPage', 'Deliveries attempted or queued, oldest first.');

export const WebhookRedeliverRequest = z.strictObject({ id: Uuid.describe('Delivery id.') }).meta({ id: 'billing.WebhookRedeliverRequest' });

export const WebhookRedeliverResponse = z
  .object({ id: Uuid.describe('The new delivery (same webhook-id and body), queued behind what the endpoint has pending.') })
  .meta({ id: 'billing.WebhookRedeliverResponse' });

/** The body of a delivery: the same public shape as billing.events.get. */
export const WebhookPayload = z
  .object({
    id: Uuid.describe('Event id (the `webhook-id` header too).'),
    type: WebhookEventType,
    occurred_at: Timestamp,
    subject: z.object({ type: z.enum(['customer', 'invoice', 'payment', 'credit_note_request', 'lookup', 'import']), id: Uuid }),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'billing.WebhookPayload' });
