// billing.webhook-endpoints.get and .list, reading billing_webhook_endpoints (written by projections/billing/webhook-endpoints.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { type RequestContext, callerOrg, hasRole } from '../../context.ts';
import { Uuid } from '../../contract/schemas/common.ts';
import { WebhookEndpoint, WebhookEndpointListPage, WebhookEndpointListRequest } from '../../contract/schemas/billing-webhooks.ts';
import type { WebhookEndpointDoc } from '../../projections/billing/webhook-endpoints.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';
import { canSeeOrganization } from './customers.ts';
import { exampleIds, exampleWebhookEndpoint } from '../../contract/examples/billing.ts';

/** One endpoint's document, or null. */
export async function webhookEndpointDoc(knex: Knex, id: string): Promise<WebhookEndpointDoc | null> {
  const row = (await knex('billing_webhook_endpoints').where({ id }).first('doc')) as { doc: WebhookEndpointDoc } | undefined;
  return row?.doc ?? null;
}

/** The endpoint if the caller may manage it (its organization's owner/admin, or billing staff; a staff endpoint: staff only); else 404 like a missing one. */
export async function visibleWebhookEndpoint(ctx: RequestContext, id: string): Promise<WebhookEndpointDoc> {
  const doc = await webhookEndpointDoc(ctx.services.knex, id);
  const staff = hasRole(ctx.auth, 'billing_staff');
  if (!doc || !(staff || (doc.organization_id !== null && canSeeOrganization(ctx, doc.organization_id)))) throw billingErrors.error('webhook_endpoint_not_found', `No webhook endpoint ${id} in this organization.`);
  return doc;
}

/** Endpoints disabled by the service because deliveries failed for 3 days (Needs attention). */
export async function failingWebhookEndpoints(knex: Knex, limit: number): Promise<WebhookEndpointDoc[]> {
  const rows = (await knex('billing_webhook_endpoints').whereRaw(`doc->>'disabled_reason' = 'failing'`).select('doc').orderBy('id').limit(limit)) as { doc: WebhookEndpointDoc }[];
  return rows.map((r) => r.doc);
}

export const webhookEndpointsGet = operation({
  id: 'billing.webhook-endpoints.get',
  examples: {
    request: exampleIds.webhookEndpoint,
    response: exampleWebhookEndpoint,
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Returns one webhook endpoint (never its secret).',
  description: "The body is the endpoint's UUID as a JSON string. Organization owners and admins see their organization's endpoints; billing staff see every one.",
  request: Uuid,
  response: WebhookEndpoint,
  error: 'billing.WebhookEndpointGetError',
  errors: billingErrors.list('webhook_endpoint_not_found'),
  access: 'org_admin',
  handle: (ctx, id) => visibleWebhookEndpoint(ctx, id),
});

export const webhookEndpointsList = operation({
  id: 'billing.webhook-endpoints.list',
  examples: {
    request: { organization_id: exampleIds.organization },
    response: {
      items: [
        exampleWebhookEndpoint,
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Lists webhook endpoints, oldest first: the organization's own, or (billing staff) every organization's and the staff endpoints.",
  request: WebhookEndpointListRequest,
  response: WebhookEndpointListPage,
  error: 'billing.WebhookEndpointListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_admin',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_webhook_endpoints').select('id', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) q.where({ organization_id: callerOrg(ctx.auth) });
    else if (req.organization_id) q.where({ organization_id: req.organization_id });
    const res = await keysetPage<{ id: string; doc: WebhookEndpointDoc }>(q, { columns: ['id'], shape: cursorShape(cursorParts.uuid), limit: req.limit, cursor: req.cursor, key: (r) => [r.id] });
    return { items: res.rows.map((r) => r.doc), pagination: res.pagination };
  },
});

/** Read operations of webhook endpoints. */
export const billingWebhookEndpointQueries = [webhookEndpointsGet, webhookEndpointsList];
