// Outbound webhooks (issue 29): endpoints, the outbox the projection engine fills from the log, and the delivery worker.
import { billingWebhookCommands } from '../commands/billing/webhook-endpoints.ts';
import { billingWebhookEndpointQueries } from '../queries/billing/webhook-endpoints.ts';
import { billingWebhookDeliveryQueries } from '../queries/billing/webhook-deliveries.ts';
import { billingWebhookEndpointsProjection } from '../projections/billing/webhook-endpoints.ts';
import { billingWebhookOutboxProjection } from '../projections/billing/webhook-outbox.ts';
import { webhookWorker } from '../workers/billing/webhooks.ts';
import type { Area } from './area.ts';

/** Typed webhook operations. */
export const billingWebhookOperations = [...billingWebhookCommands, ...billingWebhookEndpointQueries, ...billingWebhookDeliveryQueries];

/** The webhooks area as the composition root assembles it. */
export const billingWebhooks: Area = { name: 'billing-webhooks', operations: billingWebhookOperations, projections: [billingWebhookEndpointsProjection, billingWebhookOutboxProjection], workers: [webhookWorker] };
