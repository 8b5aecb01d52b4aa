// billing.subscriptions.list, reading billing_subscriptions (written by projections/billing/subscriptions.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasRole } from '../../context.ts';
import { Subscription, SubscriptionListRequest } from '../../contract/schemas/billing-entitlements.ts';
import type { SubscriptionDoc } from '../../projections/billing/subscriptions.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** One subscription by id, or null. */
export async function subscriptionById(knex: Knex, id: string): Promise<SubscriptionDoc | null> {
  const row = await knex('billing_subscriptions').where({ id }).first('doc');
  return row ? (row.doc as SubscriptionDoc) : null;
}

/** The given subscriptions that exist, by id. */
export async function subscriptionsByIds(knex: Knex, ids: string[]): Promise<Map<string, SubscriptionDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('billing_subscriptions').whereIn('id', ids).select('doc')) as { doc: SubscriptionDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

/** One subscription by id; 404 when there is none. */
export async function subscriptionOrNotFound(knex: Knex, id: string): Promise<SubscriptionDoc> {
  const sub = await subscriptionById(knex, id);
  if (!sub) throw billingErrors.error('subscription_not_found', `No subscription ${id}.`);
  return sub;
}

/** The active subscriptions of an organization. */
export async function activeSubscriptionsOf(knex: Knex, organizationId: string): Promise<SubscriptionDoc[]> {
  return ((await knex('billing_subscriptions').where({ organization_id: organizationId, status: 'active' }).select('doc').orderBy(['created_at', 'id'])) as { doc: SubscriptionDoc }[]).map((r) => r.doc);
}

export const subscriptionsList = operation({
  id: 'billing.subscriptions.list',
  examples: {
    request: { organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: [
      {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        items: [{ price_id: '0193d163-e55e-7cce-8908-b2e0f27cea4b', quantity: 1 }],
        status: 'active',
        current_period_start: '2026-01-15T09:30:00.000Z',
        current_period_end: '2026-01-15T09:30:00.000Z',
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
    ],
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists subscriptions, oldest first (extension): an organization its own, staff any.',
  request: SubscriptionListRequest,
  response: z.array(Subscription),
  error: 'billing.SubscriptionListError',
  errors: billingErrors.list(),
  access: 'org_user',
  async handle(ctx, req) {
    // Billing staff too: the console shows a customer's subscriptions and opens their billing configuration (issue 28 §3).
    const staff = hasRole(ctx.auth, 'platform_staff') || hasRole(ctx.auth, 'billing_staff');
    if (!staff && req.organization_id && req.organization_id !== ctx.auth.organizationId) throw forbidden("Only platform and billing staff read another organization's subscriptions.");
    const organizationId = staff ? req.organization_id : ctx.auth.organizationId;
    const q = ctx.services.knex('billing_subscriptions').select('doc').orderBy(['created_at', 'id']).limit(500);
    if (organizationId) q.where({ organization_id: organizationId });
    return ((await q) as { doc: SubscriptionDoc }[]).map((r) => r.doc);
  },
});

/** Read operations of subscriptions. */
export const billingSubscriptionQueries = [subscriptionsList];
