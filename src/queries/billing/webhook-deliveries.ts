// billing.webhook-deliveries.list: the delivery worker's record of each delivery and attempt (webhook_deliveries,
// webhook_delivery_attempts: operations state the worker writes, see workers/billing/webhook-ledger.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { WebhookDeliveryListPage, WebhookDeliveryListRequest } from '../../contract/schemas/billing-webhooks.ts';
import type { WebhookEventType } from '../../domain/billing/webhook-endpoint.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';
import { visibleWebhookEndpoint } from './webhook-endpoints.ts';

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  webhook_id: string;
  event_type: WebhookEventType;
  redelivery: boolean;
  status: 'pending' | 'delivered' | 'failing';
  next_attempt_at: Date | string | null;
  created_at: Date | string;
}

const iso = (v: Date | string) => new Date(v).toISOString();

/** One delivery (which endpoint, which event), or null. */
export async function deliveryOf(knex: Knex, id: string): Promise<Pick<DeliveryRow, 'endpoint_id' | 'event_id'> | null> {
  return ((await knex('webhook_deliveries').where({ id }).first('endpoint_id', 'event_id')) as Pick<DeliveryRow, 'endpoint_id' | 'event_id'> | undefined) ?? null;
}

export const webhookDeliveriesList = operation({
  id: 'billing.webhook-deliveries.list',
  examples: {
    request: { endpoint_id: '01937785-c5c2-7f24-86ab-3abb7a2e89f6' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          endpoint_id: '01937785-c5c2-7f24-86ab-3abb7a2e89f6',
          webhook_id: '0193e676-5510-72d0-88db-49632b59020a',
          event_id: '019330c2-f3bb-7f6d-84a5-5f8ae6e46141',
          event_type: 'invoice.paid',
          redelivery: false,
          status: 'pending',
          attempts: [{ attempted_at: '2026-01-15T09:30:00.000Z', status_code: 503, latency_ms: 120, response_excerpt: 'Service Unavailable', ok: false }],
          next_attempt_at: null,
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Lists an endpoint's deliveries, oldest first, each with its attempts (status, latency, the answer's first characters).",
  description: "The endpoint's organization owners/admins and billing staff. A delivery appears once it was first attempted (or redelivery was asked). Delivered deliveries are kept WEBHOOK_RETENTION_DAYS (default 30) after their first attempt, then deleted with their attempts; pending and failing ones stay.",
  request: WebhookDeliveryListRequest,
  response: WebhookDeliveryListPage,
  error: 'billing.WebhookDeliveryListError',
  errors: billingErrors.list('webhook_endpoint_not_found', 'invalid_cursor'),
  access: 'org_admin',
  async handle(ctx, req) {
    await visibleWebhookEndpoint(ctx, req.endpoint_id);
    const { knex } = ctx.services;
    const q = knex('webhook_deliveries').where({ endpoint_id: req.endpoint_id }).select('*');
    const res = await keysetPage<DeliveryRow & Record<string, unknown>>(q, { columns: ['created_at', 'id'], shape: cursorShape(cursorParts.instant, cursorParts.uuid), limit: req.limit, cursor: req.cursor, key: (r) => [iso(r.created_at), r.id] });
    const ids = res.rows.map((r) => r.id);
    const attempts = ids.length
      ? ((await knex('webhook_delivery_attempts').whereIn('delivery_id', ids).orderBy('attempted_at', 'desc').select('*')) as { delivery_id: string; attempted_at: Date | string; status_code: number | null; latency_ms: number; response_excerpt: string; ok: boolean }[])
      : [];
    return {
      items: res.rows.map((r) => ({
        id: r.id, endpoint_id: r.endpoint_id, webhook_id: r.webhook_id, event_id: r.event_id, event_type: r.event_type, redelivery: r.redelivery, status: r.status,
        attempts: attempts.filter((a) => a.delivery_id === r.id).slice(0, 20).map((a) => ({ attempted_at: iso(a.attempted_at), status_code: a.status_code, latency_ms: a.latency_ms, response_excerpt: a.response_excerpt, ok: a.ok })),
        next_attempt_at: r.next_attempt_at === null ? null : iso(r.next_attempt_at),
        created_at: iso(r.created_at),
      })),
      pagination: res.pagination,
    };
  },
});

/** Read operations of webhook deliveries. */
export const billingWebhookDeliveryQueries = [webhookDeliveriesList];
