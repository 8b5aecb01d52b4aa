// billing.webhook-endpoints.insert, .update, .disable, .enable, .remove, .rotate-secret; the worker's .disable-failing;
// billing.webhook-deliveries.redeliver. Organization owners/admins manage their own endpoints, billing staff every one.
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { Empty, Uuid } from '../../contract/schemas/common.ts';
import {
  WebhookEndpoint, WebhookEndpointInsertRequest, WebhookEndpointRef, WebhookEndpointUpdateRequest, WebhookEndpointWithSecret,
  WebhookRedeliverRequest, WebhookRedeliverResponse, WebhookSecretRotation,
} from '../../contract/schemas/billing-webhooks.ts';
import { type RequestContext, callerOrg, hasRole } from '../../context.ts';
import { SECRET_OVERLAP_MS, newWebhookSecret } from '../../domain/billing/webhook-endpoint.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { getOrganization } from '../../queries/identity/identity.ts';
import { visibleWebhookEndpoint, webhookEndpointDoc } from '../../queries/billing/webhook-endpoints.ts';
import { deliveryOf } from '../../queries/billing/webhook-deliveries.ts';
import { billingWebhookEndpointsProjection } from '../../projections/billing/webhook-endpoints.ts';
import { billingWebhookOutboxProjection } from '../../projections/billing/webhook-outbox.ts';
import { webhookEndpoints } from './handlers.ts';
import { exampleIds, exampleWebhookEndpoint } from '../../contract/examples/billing.ts';

/** Whose events a new endpoint receives: staff choose (none: every organization's), others get their own organization. */
async function ownerOf(ctx: RequestContext, asked: string | undefined): Promise<string | null> {
  if (hasRole(ctx.auth, 'billing_staff')) {
    if (asked === undefined) return null;
    if (!(await getOrganization(ctx.services.knex, asked))) throw billingErrors.error('organization_not_found', `No organization ${asked}.`, { issues: [{ path: 'organization_id', message: 'no such organization' }] });
    return asked;
  }
  const own = callerOrg(ctx.auth);
  if (asked !== undefined && asked !== own) throw billingErrors.error('organization_not_found', `No organization ${asked} you can register endpoints for.`, { issues: [{ path: 'organization_id', message: 'not your organization' }] });
  return own;
}

/** The endpoint as the read model shows it after this call's writes. */
async function endpointAfter(ctx: RequestContext, id: string) {
  await ctx.readYourWrites();
  const doc = await webhookEndpointDoc(ctx.services.knex, id);
  if (!doc) throw billingErrors.error('webhook_endpoint_not_found', `No webhook endpoint ${id}.`);
  return doc;
}

const allowHttp = (ctx: RequestContext) => ctx.services.config.webhooks.allowHttpLoopback;

export const webhookEndpointsInsert = operation({
  id: 'billing.webhook-endpoints.insert',
  examples: {
    request: { url: 'https://hooks.acme-repairs.example/billing', event_types: ['invoice.finalized', 'invoice.paid'] },
    response: { ...exampleWebhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Registers a webhook endpoint; the answer shows its signing secret, this once.',
  description:
    'From then on every public event of the chosen types (billing.events.list, plus lookup and import completions) is POSTed to `url`, signed as Standard Webhooks say ' +
    '(`webhook-id`, `webhook-timestamp`, `webhook-signature`), at least once, in log order. An organization\'s endpoint receives only its own events, never staff-only ones; ' +
    "a billing staff endpoint without `organization_id` receives every organization's.",
  request: WebhookEndpointInsertRequest,
  response: WebhookEndpointWithSecret,
  error: 'billing.WebhookEndpointInsertError',
  errors: billingErrors.list('invalid_webhook_url', 'organization_not_found', 'webhook_endpoint_exists'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection],
  async handle(ctx, req) {
    const organizationId = await ownerOf(ctx, req.organization_id);
    const id = ctx.ids.next();
    const secret = newWebhookSecret();
    await webhookEndpoints.run(ctx, id, {
      type: 'RegisterEndpoint',
      data: { endpoint_id: id, organization_id: organizationId, url: req.url, event_types: req.event_types, description: req.description, secret, allow_http_loopback: allowHttp(ctx) },
    }, { orgId: organizationId, expectNew: true });
    return { ...(await endpointAfter(ctx, id)), secret };
  },
});

export const webhookEndpointsUpdate = operation({
  id: 'billing.webhook-endpoints.update',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: exampleWebhookEndpoint,
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Changes an endpoint's URL, event types or description (what is not given stays).",
  description: 'Events not delivered yet go to the new URL, filtered by the new types.',
  request: WebhookEndpointUpdateRequest,
  response: WebhookEndpoint,
  error: 'billing.WebhookEndpointUpdateError',
  errors: billingErrors.list('webhook_endpoint_not_found', 'invalid_webhook_url'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection],
  async handle(ctx, req) {
    const doc = await visibleWebhookEndpoint(ctx, req.id);
    await webhookEndpoints.run(ctx, req.id, { type: 'UpdateEndpoint', data: { url: req.url, event_types: req.event_types, description: req.description, allow_http_loopback: allowHttp(ctx) } }, { orgId: doc.organization_id });
    return endpointAfter(ctx, req.id);
  },
});

export const webhookEndpointsDisable = operation({
  id: 'billing.webhook-endpoints.disable',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: { ...exampleWebhookEndpoint, status: 'disabled', disabled_reason: 'manual', disabled_at: '2026-01-20T09:00:00.000Z', updated_at: '2026-01-20T09:00:00.000Z' },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Pauses deliveries to an endpoint; events keep queueing for it.',
  request: WebhookEndpointRef,
  response: WebhookEndpoint,
  error: 'billing.WebhookEndpointDisableError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection],
  async handle(ctx, req) {
    const doc = await visibleWebhookEndpoint(ctx, req.id);
    await webhookEndpoints.run(ctx, req.id, { type: 'DisableEndpoint', data: { reason: 'manual', detail: 'disabled by a person' } }, { orgId: doc.organization_id });
    return endpointAfter(ctx, req.id);
  },
});

export const webhookEndpointsEnable = operation({
  id: 'billing.webhook-endpoints.enable',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: exampleWebhookEndpoint,
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Resumes deliveries to a disabled endpoint, oldest undelivered event first (also after the service disabled it for failing).',
  request: WebhookEndpointRef,
  response: WebhookEndpoint,
  error: 'billing.WebhookEndpointEnableError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection],
  async handle(ctx, req) {
    const doc = await visibleWebhookEndpoint(ctx, req.id);
    await webhookEndpoints.run(ctx, req.id, { type: 'EnableEndpoint', data: {} }, { orgId: doc.organization_id });
    return endpointAfter(ctx, req.id);
  },
});

export const webhookEndpointsRemove = operation({
  id: 'billing.webhook-endpoints.remove',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Removes an endpoint: nothing more is delivered to it.',
  request: WebhookEndpointRef,
  response: Empty,
  error: 'billing.WebhookEndpointRemoveError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection, billingWebhookOutboxProjection],
  async handle(ctx, req) {
    const doc = await visibleWebhookEndpoint(ctx, req.id);
    await webhookEndpoints.run(ctx, req.id, { type: 'RemoveEndpoint', data: {} }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return {};
  },
});

export const webhookEndpointsRotateSecret = operation({
  id: 'billing.webhook-endpoints.rotate-secret',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: {
      id: exampleIds.webhookEndpoint,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      previous_secret_expires_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Gives an endpoint a new signing secret, shown this once; the old one still signs for 24 hours.',
  description: 'Until `previous_secret_expires_at` every delivery carries two signatures (`v1,<new> v1,<old>`), so a receiver verifying with either secret accepts it.',
  request: WebhookEndpointRef,
  response: WebhookSecretRotation,
  error: 'billing.WebhookEndpointRotateSecretError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookEndpointsProjection, billingWebhookOutboxProjection],
  async handle(ctx, req) {
    const doc = await visibleWebhookEndpoint(ctx, req.id);
    const secret = newWebhookSecret();
    await webhookEndpoints.run(ctx, req.id, { type: 'RotateSecret', data: { secret } }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return { id: req.id, secret, previous_secret_expires_at: new Date(ctx.now.getTime() + SECRET_OVERLAP_MS).toISOString() };
  },
});

export const webhookEndpointsDisableFailing = operation({
  id: 'billing.webhook-endpoints.disable-failing',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Disables an endpoint whose deliveries failed for 3 days.',
  description: 'Internal: the webhook delivery worker invokes it as the system (job `webhook-worker`); the endpoint is then listed in billing.attention.list.',
  request: z.strictObject({ id: Uuid, detail: z.string().max(1000) }),
  response: Empty,
  error: 'billing.WebhookEndpointDisableError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'system',
  write: true,
  readModels: [billingWebhookEndpointsProjection],
  async handle(ctx, req) {
    await webhookEndpoints.run(ctx, req.id, { type: 'DisableEndpoint', data: { reason: 'failing', detail: req.detail } }, { orgId: ctx.auth.organizationId ?? null, reason: 'deliveries failed for 3 days' });
    await ctx.readYourWrites();
    return {};
  },
});

export const webhookDeliveriesRedeliver = operation({
  id: 'billing.webhook-deliveries.redeliver',
  examples: {
    request: { id: exampleIds.webhookEndpoint },
    response: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Sends one earlier delivery again (same `webhook-id` and body), after what the endpoint has pending.',
  description: 'A delivered delivery older than WEBHOOK_RETENTION_DAYS (default 30) is deleted and is 404 webhook_delivery_not_found; its event stays in billing.events.list.',
  request: WebhookRedeliverRequest,
  response: WebhookRedeliverResponse,
  error: 'billing.WebhookDeliveryRedeliverError',
  errors: billingErrors.list('webhook_delivery_not_found', 'webhook_endpoint_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingWebhookOutboxProjection],
  async handle(ctx, req) {
    const delivery = await deliveryOf(ctx.services.knex, req.id);
    if (!delivery) throw ctx.errors.error('webhook_delivery_not_found', `No webhook delivery ${req.id}.`);
    const endpoint = await visibleWebhookEndpoint(ctx, delivery.endpoint_id).catch(() => {
      throw ctx.errors.error('webhook_delivery_not_found', `No webhook delivery ${req.id} in this organization.`);
    });
    const id = ctx.ids.next();
    await webhookEndpoints.run(ctx, endpoint.id, { type: 'RequestRedelivery', data: { redelivery_id: id, delivery_id: req.id, event_id: delivery.event_id } }, { orgId: endpoint.organization_id });
    await ctx.readYourWrites();
    return { id };
  },
});

/** Write operations of outbound webhooks. */
export const billingWebhookCommands = [
  webhookEndpointsInsert, webhookEndpointsUpdate, webhookEndpointsDisable, webhookEndpointsEnable, webhookEndpointsRemove, webhookEndpointsRotateSecret, webhookEndpointsDisableFailing, webhookDeliveriesRedeliver,
];
