// billing.subscriptions.insert and .update (extension, minimal): platform staff subscribe an organization to prices.
import { operation } from '../../contract/operation.ts';
import type { CommandContext } from '../../context.ts';
import { Subscription, SubscriptionCreateRequest, SubscriptionUpdateRequest } from '../../contract/schemas/billing-entitlements.ts';
import type { PriceStatuses } from '../../domain/billing/subscription.ts';
import { subscriptionOrNotFound } from '../../queries/billing/subscriptions.ts';
import { getOrganization } from '../../queries/identity/identity.ts';
import { prices, subscriptions } from './handlers.ts';
import { billingSubscriptionsProjection } from '../../projections/billing/subscriptions.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Whether each price exists and is active, from the prices' own streams. */
async function priceStatuses(ctx: CommandContext, ids: string[]): Promise<PriceStatuses> {
  const out: PriceStatuses = {};
  for (const id of new Set(ids)) {
    const state = await prices.load(ctx, id);
    out[id] = !state.fields ? 'none' : state.fields.active ? 'active' : 'archived';
  }
  return out;
}

/** An RFC 3339 timestamp in the one form events store. */
const iso = (t: string) => new Date(t).toISOString();

export const subscriptionsInsert = operation({
  id: 'billing.subscriptions.insert',
  examples: {
    request: {
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      items: [{ price_id: '0193d163-e55e-7cce-8908-b2e0f27cea4b', quantity: 1 }],
      current_period_start: '2026-01-15T09:30:00.000Z',
      current_period_end: '2026-01-15T09:30:00.000Z',
    },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      items: [{ price_id: '0193d163-e55e-7cce-8908-b2e0f27cea4b', quantity: 1 }],
      status: 'active',
      current_period_start: '2026-01-15T09:30:00.000Z',
      current_period_end: '2026-01-15T09:30:00.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Subscribes an organization to active prices (extension). Platform staff only.',
  request: SubscriptionCreateRequest,
  response: Subscription,
  error: 'billing.SubscriptionInsertError',
  errors: billingErrors.list('organization_not_found', 'price_not_found', 'price_inactive', 'invalid_quantity', 'invalid_subscription', 'subscription_exists'),
  access: 'platform_staff',
  write: true,
  readModels: [billingSubscriptionsProjection],
  async handle(ctx, req) {
    const id = ctx.ids.next();
    const organization = await getOrganization(ctx.services.knex, req.organization_id);
    await subscriptions.run(ctx, id, {
      type: 'CreateSubscription',
      data: {
        subscription_id: id, organization_id: req.organization_id, items: req.items, status: 'active',
        current_period_start: iso(req.current_period_start), current_period_end: iso(req.current_period_end),
        organization_exists: organization !== null, prices: await priceStatuses(ctx, req.items.map((i) => i.price_id)),
      },
    }, { orgId: req.organization_id });
    await ctx.readYourWrites();
    return subscriptionOrNotFound(ctx.services.knex, id);
  },
});

export const subscriptionsUpdate = operation({
  id: 'billing.subscriptions.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      items: [{ price_id: '0193d163-e55e-7cce-8908-b2e0f27cea4b', quantity: 1 }],
      status: 'active',
      current_period_start: '2026-01-15T09:30:00.000Z',
      current_period_end: '2026-01-15T09:30:00.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes items, period or status of a subscription (extension); canceled is final. Platform staff only.',
  request: SubscriptionUpdateRequest,
  response: Subscription,
  error: 'billing.SubscriptionUpdateError',
  errors: billingErrors.list('subscription_not_found', 'subscription_canceled', 'price_not_found', 'price_inactive', 'invalid_quantity', 'invalid_subscription'),
  access: 'platform_staff',
  write: true,
  readModels: [billingSubscriptionsProjection],
  async handle(ctx, req) {
    const { id, items, status, current_period_start, current_period_end } = req;
    const changes = {
      ...(items ? { items } : {}), ...(status ? { status } : {}),
      ...(current_period_start ? { current_period_start: iso(current_period_start) } : {}), ...(current_period_end ? { current_period_end: iso(current_period_end) } : {}),
    };
    const doc = await subscriptionOrNotFound(ctx.services.knex, id);
    await subscriptions.run(ctx, id, { type: 'UpdateSubscription', data: { changes, prices: await priceStatuses(ctx, (items ?? []).map((i) => i.price_id)) } }, { orgId: doc.organization_id });
    await ctx.readYourWrites();
    return subscriptionOrNotFound(ctx.services.knex, id);
  },
});

/** Write operations of subscriptions. */
export const billingSubscriptionCommands = [subscriptionsInsert, subscriptionsUpdate];
