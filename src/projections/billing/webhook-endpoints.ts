// billing_webhook_endpoints: the webhook endpoints as billing.webhook-endpoints.get/list show them (never the secret),
// read by queries/billing/webhook-endpoints.ts.
import { type WebhookEndpointEvent, type WebhookEventType, webhookEndpointCodec } from '../../domain/billing/webhook-endpoint.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { replacing } from '../documents/declaration.ts';

/** The stored endpoint: exactly the billing.WebhookEndpoint body. */
export interface WebhookEndpointDoc {
  id: string;
  organization_id: string | null;
  url: string;
  event_types: WebhookEventType[];
  description: string;
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: string | null;
  secret_rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Builds billing_webhook_endpoints; a removed endpoint's row goes. */
export const billingWebhookEndpointsProjection = documentProjection({
  name: 'billing.webhook-endpoints',
  version: 1,
  tables: [
    documentTable<WebhookEndpointDoc, WebhookEndpointEvent>({
      table: 'billing_webhook_endpoints',
      events: webhookEndpointCodec,
      columns: (d) => ({ organization_id: d.organization_id }),
      handlers: {
        WebhookEndpointRegistered: replacing((d) => ({
          id: d.endpoint_id, organization_id: d.organization_id, url: d.url, event_types: d.event_types, description: d.description,
          status: 'enabled', disabled_reason: null, disabled_at: null, secret_rotated_at: null, created_at: d.registered_at, updated_at: d.registered_at,
        })),
        WebhookEndpointUpdated: (doc, d) => doc && { ...doc, url: d.url ?? doc.url, event_types: d.event_types ?? doc.event_types, description: d.description ?? doc.description, updated_at: d.updated_at },
        WebhookEndpointDisabled: (doc, d) => doc && { ...doc, status: 'disabled', disabled_reason: d.reason, disabled_at: d.disabled_at, updated_at: d.disabled_at },
        WebhookEndpointEnabled: (doc, d) => doc && { ...doc, status: 'enabled', disabled_reason: null, disabled_at: null, updated_at: d.enabled_at },
        WebhookEndpointSecretRotated: (doc, d) => doc && { ...doc, secret_rotated_at: d.rotated_at, updated_at: d.rotated_at },
        WebhookEndpointRemoved: () => null,
      },
    }),
  ],
});
