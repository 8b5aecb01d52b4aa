// What the webhook delivery worker reads: the endpoints as the outbox stands, and each one's queue after a log position
// (billing_webhook_targets, _messages, _redeliveries, written by projections/billing/webhook-outbox.ts).
import type { Knex } from 'knex';
import type { SigningSecret, WebhookPayloadDoc } from '../../projections/billing/webhook-outbox.ts';

/** An endpoint as the delivery worker needs it. */
export interface DeliveryTarget {
  endpoint_id: string;
  organization_id: string | null;
  url: string;
  event_types: string[];
  enabled_at: string;
  from_position: string;
  secrets: SigningSecret[];
}

/** One item of an endpoint's queue, in log order. */
export interface QueuedDelivery {
  position: string;
  event_id: string;
  type: string;
  payload: WebhookPayloadDoc;
  /** Set when this is a redelivery asked for (its own delivery id). */
  redelivery_id: string | null;
}

/** Enabled endpoints. */
export async function deliveryTargets(knex: Knex): Promise<DeliveryTarget[]> {
  const rows = (await knex('billing_webhook_targets').where({ enabled: true }).select('id as endpoint_id', 'organization_id', 'url', 'event_types', 'enabled_at', 'from_position', 'secrets').orderBy('id')) as (DeliveryTarget & { enabled_at: Date | string })[];
  return rows.map((r) => ({ ...r, enabled_at: new Date(r.enabled_at).toISOString() }));
}

/** The next `limit` items of an endpoint's queue after `after`: its organization's public events of its types (every organization's for a staff endpoint), and redeliveries. */
export async function queuedAfter(knex: Knex, t: DeliveryTarget, after: string, limit: number): Promise<QueuedDelivery[]> {
  const events = knex('billing_webhook_messages').where('position', '>', after).whereIn('type', t.event_types).orderBy('position').limit(limit).select('position', 'id as event_id', 'type', 'payload');
  if (t.organization_id !== null) events.where({ organization_id: t.organization_id, staff_only: false });
  const again = knex('billing_webhook_redeliveries as r')
    .join('billing_webhook_messages as m', 'm.id', 'r.event_id')
    .where('r.endpoint_id', t.endpoint_id)
    .where('r.position', '>', after)
    .orderBy('r.position')
    .limit(limit)
    .select('r.position', 'r.event_id', 'm.type', 'm.payload', 'r.id as redelivery_id');
  const [a, b] = (await Promise.all([events, again])) as [QueuedDelivery[], QueuedDelivery[]];
  return [...a.map((r) => ({ ...r, redelivery_id: null })), ...b].sort((x, y) => (x.position < y.position ? -1 : x.position > y.position ? 1 : 0)).slice(0, limit);
}

/** Items waiting in an endpoint's queue after `after`, counted up to `cap`. */
async function queuedCount(knex: Knex, t: DeliveryTarget, after: string, cap: number): Promise<number> {
  const events = knex('billing_webhook_messages').where('position', '>', after).whereIn('type', t.event_types).select(knex.raw('1')).limit(cap);
  if (t.organization_id !== null) events.where({ organization_id: t.organization_id, staff_only: false });
  const again = knex('billing_webhook_redeliveries').where({ endpoint_id: t.endpoint_id }).where('position', '>', after).select(knex.raw('1')).limit(cap);
  const [a, b] = (await Promise.all([knex.from(events.as('e')).count('* as n'), knex.from(again.as('r')).count('* as n')])) as [{ n: string | number }[], { n: string | number }[]];
  return Number(a[0]?.n ?? 0) + Number(b[0]?.n ?? 0);
}

/** Events waiting for enabled endpoints (each counted up to `cap`): the backlog gauge. The cursors are the delivery worker's (webhook_delivery_cursors). */
export async function webhookBacklog(knex: Knex, cap = 10_000): Promise<number> {
  const cursors = new Map(((await knex('webhook_delivery_cursors').select('endpoint_id', 'position')) as { endpoint_id: string; position: string }[]).map((c) => [c.endpoint_id, c.position]));
  let total = 0;
  for (const t of await deliveryTargets(knex)) total += await queuedCount(knex, t, cursors.get(t.endpoint_id) ?? t.from_position, cap);
  return total;
}

/** The newest position in the outbox (messages and redeliveries): an endpoint found with nothing to send has nothing new until it moves. */
export async function outboxTop(knex: Knex): Promise<string> {
  const [m, r] = (await Promise.all([knex('billing_webhook_messages').max('position as p'), knex('billing_webhook_redeliveries').max('position as p')])) as [{ p: string | null }[], { p: string | null }[]];
  const a = m[0]?.p ?? '';
  const b = r[0]?.p ?? '';
  return a > b ? a : b;
}
