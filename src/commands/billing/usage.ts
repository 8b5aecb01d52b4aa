// billing.usage.insert (extension): records marketplace orders as usage facts, idempotent on order_id.
// `recordUsage` is shared by the operation and `core-server usage import`.
import type { Knex } from 'knex';
import type { z } from 'zod';
import type { Issue } from '../../domain/errors.ts';
import { operation } from '../../contract/operation.ts';
import { UsageInsertRequest, UsageInsertResponse, UsageOrderDetail, UsageReplaceRequest, UsageVoidRequest } from '../../contract/schemas/billing-usage.ts';
import type { CommandContext } from '../../context.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { type UsageCorrection, type UsageOrder, differingFields, sameOrder, usageDecider, usageKey } from '../../domain/billing/usage.ts';
import { WrongExpectedVersionError } from '../../eventstore/port.ts';
import { nameId } from '../../ids.ts';
import { billingUsageProjection } from '../../projections/billing/usage.ts';
import { activeSubscriptionsOf, subscriptionOrNotFound } from '../../queries/billing/subscriptions.ts';
import { usageByOrderIds } from '../../queries/billing/usage.ts';
import { billingStates, orderDetail } from '../../queries/billing/usage-billing.ts';
import { invoicesOfOrders } from '../../queries/billing/invoice-orders.ts';
import { existingInvoices } from '../../queries/billing/invoices.ts';
import { billingInvoiceOrdersProjection } from '../../projections/billing/invoice-orders.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { usageInvoiceId } from '../../domain/billing/usage-month.ts';
import { usageOrders } from './handlers.ts';
import { loadAggregate } from '../run.ts';
import { assertWritable } from '../../domain/decider.ts';
import type { DomainError } from '../../domain/errors.ts';

/** A validated billing.usage.insert body. */
export type UsageBatch = z.output<typeof UsageInsertRequest>;
/** What billing.usage.insert answers. */
export type UsageBatchResult = z.output<typeof UsageInsertResponse>;

/** Appends in flight at once: enough to keep a connection pool busy, few enough not to starve other requests. */
const PARALLEL_APPENDS = 8;

/** A catalogued billing error that names the offending orders as `issues`. */
function ordersError(code: 'usage_conflict' | 'seller_not_subscriber' | 'no_active_subscription' | 'ambiguous_subscription' | 'occurred_in_future' | 'invalid_request', message: string, issues: Issue[]): DomainError {
  return billingErrors.error(code, message, { issues });
}

/** Which subscription each order of the batch belongs to (see docs/decisions.md "Usage facts"). */
async function subscriptionsOf(knex: Knex, batch: UsageBatch): Promise<string[]> {
  if (batch.subscription_id) {
    const sub = await subscriptionOrNotFound(knex, batch.subscription_id);
    const wrong = batch.orders.flatMap((o, i) => (o.seller === sub.organization_id ? [] : [{ path: `orders.${i}.seller`, message: `order ${o.order_id}: seller ${o.seller} is not the subscription's organization` }]));
    if (wrong.length) throw ordersError('seller_not_subscriber', `Every order's seller must be the organization of subscription ${sub.id}.`, wrong);
    return batch.orders.map(() => sub.id);
  }
  const bySeller = new Map<string, string[]>();
  for (const seller of new Set(batch.orders.map((o) => o.seller))) bySeller.set(seller, (await activeSubscriptionsOf(knex, seller)).map((s) => s.id));
  const none: Issue[] = [];
  const many: Issue[] = [];
  batch.orders.forEach((o, i) => {
    const subs = bySeller.get(o.seller) ?? [];
    if (subs.length === 0) none.push({ path: `orders.${i}.seller`, message: `order ${o.order_id}: seller ${o.seller} has no active subscription` });
    if (subs.length > 1) many.push({ path: `orders.${i}.seller`, message: `order ${o.order_id}: seller ${o.seller} has ${subs.length} active subscriptions; name one as subscription_id` });
  });
  if (none.length) throw ordersError('no_active_subscription', 'Some sellers have no active subscription to record usage under.', none);
  if (many.length) throw ordersError('ambiguous_subscription', 'Some sellers have several active subscriptions: send their orders with subscription_id.', many);
  return batch.orders.map((o) => bySeller.get(o.seller)?.[0] ?? '');
}

/** The batch as stored facts, one per distinct order id; the same id twice with other facts is a 400. */
function distinctOrders(batch: UsageBatch, subscriptions: string[], now: Date): { order: UsageOrder; index: number }[] {
  const seen = new Map<string, { order: UsageOrder; index: number }>();
  const issues: Issue[] = [];
  const future: Issue[] = [];
  batch.orders.forEach((o, i) => {
    const order: UsageOrder = {
      order_id: o.order_id, subscription_id: subscriptions[i] ?? '', seller: o.seller, buyer: o.buyer,
      amount: o.amount.amount, currency: o.amount.currency, occurred_at: new Date(o.occurred_at).toISOString(),
    };
    if (Date.parse(order.occurred_at) > now.getTime()) future.push({ path: `orders.${i}.occurred_at`, message: `order ${o.order_id} occurs in the future` });
    const first = seen.get(o.order_id);
    if (!first) seen.set(o.order_id, { order, index: i });
    else if (!sameOrder(first.order, order)) issues.push({ path: `orders.${i}`, message: `order ${o.order_id} appears again (first at orders.${first.index}) with other facts` });
  });
  if (issues.length) throw ordersError('invalid_request', 'An order id appears twice in the batch with different facts.', issues);
  if (future.length) throw ordersError('occurred_in_future', 'Orders cannot occur after now.', future);
  return [...seen.values()];
}

/** The event id of an order's recording: derived from the order id, so every retry (any request, any process) appends the same event. */
function usageEventId(orderId: string, i: number): string {
  return nameId('billing-usage-event', `${orderId}/${i}`);
}

/**
 * Appends one order to its own stream (expected: no stream). Losing a race to an identical recording is
 * `already_recorded`; to a different one, a conflict. The context is told where the order's stream is, for read-your-writes.
 */
async function appendOrder(ctx: CommandContext, order: UsageOrder): Promise<{ status: 'recorded' | 'already_recorded' | 'conflict'; stored?: UsageOrder }> {
  const stream = `usage-${usageKey(order.order_id)}`;
  const events = usageDecider.decide({ type: 'RecordUsage', data: { ...order, now: ctx.now.toISOString() } }, usageDecider.initialState());
  const metadata = { ...ctx.metadata, org_id: order.seller };
  for (const e of events) assertWritable(usageDecider.events, e);
  try {
    const res = await ctx.store.appendToStream(stream, events.map((e, i) => ({ id: usageEventId(order.order_id, i), type: e.type, data: e.data, metadata })), { expectedRevision: 'no_stream', now: ctx.now });
    ctx.reached?.(res.position);
    if (!res.duplicate) return { status: 'recorded' };
  } catch (err) {
    // Another request recorded this order first: compare below.
    if (!(err instanceof WrongExpectedVersionError)) throw err;
  }
  const loaded = await loadAggregate(ctx.store, usageDecider, stream);
  ctx.reached?.(loaded.position);
  const stored = loaded.state.order;
  if (stored && sameOrder(stored, order)) return { status: 'already_recorded' };
  return { status: 'conflict', ...(stored ? { stored } : {}) };
}

/**
 * Records a batch: checks everything first (subscriptions, facts, earlier recordings) so a refused batch
 * writes nothing, then appends each new order. Only a race lost mid-batch to a conflicting recording of the
 * same id (another request, at the same moment) leaves the rest of the batch recorded; the 409 names it.
 */
export async function recordUsage(ctx: CommandContext & { knex: Knex }, batch: UsageBatch): Promise<UsageBatchResult> {
  const subscriptions = await subscriptionsOf(ctx.knex, batch);
  const distinct = distinctOrders(batch, subscriptions, ctx.now);
  const orders = distinct.map((d) => d.order);
  const indexOf = new Map(distinct.map((d) => [d.order.order_id, d.index]));
  const existing = await usageByOrderIds(ctx.knex, orders.map((o) => o.order_id));
  const conflicts = distinct.flatMap(({ order: o, index }) => {
    const stored = existing.get(o.order_id);
    return stored && !sameOrder(stored, o) ? [{ path: `orders.${index}`, message: conflictText(stored, o) }] : [];
  });
  if (conflicts.length) throw ordersError('usage_conflict', 'Some orders were recorded earlier with other facts; usage facts do not change.', conflicts);
  // Where each order will be billed: its month's invoice, or (the invoice exists: late) the month's next supplementary invoice.
  const regular = new Map(orders.map((o) => [o.order_id, usageInvoiceId(o.subscription_id, o.occurred_at.slice(0, 7))]));
  const invoiced = await existingInvoices(ctx.knex, [...new Set(regular.values())]);
  const states = await billingStates(ctx.knex, [...existing.values()]);
  const status = new Map<string, 'recorded' | 'already_recorded'>();
  const fresh = orders.filter((o) => {
    if (existing.has(o.order_id)) status.set(o.order_id, 'already_recorded');
    return !existing.has(o.order_id);
  });
  const raced: Issue[] = [];
  for (let i = 0; i < fresh.length; i += PARALLEL_APPENDS) {
    const results = await Promise.all(fresh.slice(i, i + PARALLEL_APPENDS).map((o) => appendOrder(ctx, o)));
    results.forEach((r, j) => {
      const o = fresh[i + j];
      if (!o) return;
      if (r.status === 'conflict') raced.push({ path: `orders.${indexOf.get(o.order_id) ?? 0}`, message: r.stored ? conflictText(r.stored, o) : `order ${o.order_id} was recorded at the same time with other facts` });
      else status.set(o.order_id, r.status);
    });
  }
  if (raced.length) throw ordersError('usage_conflict', 'Some orders were recorded by another request at the same moment with other facts; the other orders of this batch are recorded.', raced);
  const items = orders.map((o) => {
    const state = existing.has(o.order_id) ? states.get(o.order_id) : undefined;
    return {
      order_id: o.order_id, subscription_id: o.subscription_id, status: status.get(o.order_id) ?? 'recorded', month: o.occurred_at.slice(0, 7),
      late: !state?.invoice_id && invoiced.has(regular.get(o.order_id) ?? ''),
      billing_state: state?.billing_state ?? 'unbilled', invoice_id: state?.invoice_id ?? null,
    };
  });
  return {
    recorded: items.filter((i) => i.status === 'recorded').length, already_recorded: items.filter((i) => i.status === 'already_recorded').length,
    late: items.filter((i) => i.late).length, items,
  };
}

function conflictText(stored: UsageOrder, given: UsageOrder): string {
  return `order ${given.order_id} was recorded earlier with a different ${differingFields(stored, given).join(', ')}`;
}

/** billing.usage.insert */
export const usageInsert = operation({
  id: 'billing.usage.insert',
  examples: {
    request: {
      orders: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          seller: '01932e74-64a5-79ba-8192-f1251866fea0',
          buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
          amount: { amount: 12000, currency: 'GBP' },
          occurred_at: '2026-01-15T09:30:00.000Z',
        },
      ],
    },
    response: {
      recorded: 1,
      already_recorded: 1,
      late: 1,
      items: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
          status: 'recorded',
          month: '2026-01',
          late: false,
          billing_state: 'unbilled',
          invoice_id: null,
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Records marketplace orders as usage facts (extension); idempotent on order_id. Billing staff only.',
  description:
    'A batch of 1-1,000 orders. Each order id is recorded once across the platform: sending it again with the same facts changes nothing '
    + '(`already_recorded`); with different facts the whole batch is refused with 409 `usage_conflict` naming each such order, and nothing is written. '
    + "An order belongs to `subscription_id` when given (its seller must be that subscription's organization), else to its seller's one active subscription. "
    + "Each item says where the order is billed: its `month`, `late` when that month's usage invoice already exists (the order then goes on the month's next supplementary invoice, "
    + 'never dropped), its `billing_state` and the `invoice_id` once it is on one.',
  request: UsageInsertRequest,
  response: UsageInsertResponse,
  error: 'billing.UsageInsertError',
  errors: billingErrors.list('invalid_request', 'subscription_not_found', 'seller_not_subscriber', 'no_active_subscription', 'ambiguous_subscription', 'occurred_in_future', 'usage_conflict', 'invalid_order'),
  access: 'billing_staff',
  write: true,
  readModels: [billingUsageProjection],
  async handle(ctx, req) {
    const result = await recordUsage({ ...ctx, knex: ctx.services.knex }, req);
    await ctx.readYourWrites();
    return result;
  },
});

/** The order id's seller, for the events' organization (null when the read model does not know the order yet). */
async function sellerOf(knex: Knex, orderId: string): Promise<string | null> {
  return (await usageByOrderIds(knex, [orderId])).get(orderId)?.seller ?? null;
}

/** The invoice an order is billed on, as known once the orders behind invoices reach everything committed before. */
async function invoiceOf(ctx: { services: Parameters<typeof caughtUp>[0] & { knex: Knex } }, orderId: string): Promise<string | null> {
  await caughtUp(ctx.services, [billingInvoiceOrdersProjection]);
  return (await invoicesOfOrders(ctx.services.knex, [orderId])).get(orderId) ?? null;
}

/** billing.usage.void */
export const usageVoid = operation({
  id: 'billing.usage.void',
  examples: {
    request: { order_id: '01931031-171c-7313-8102-495201e3e20f', reason: 'Agreed with the customer by phone' },
    response: {
      order_id: '01931031-171c-7313-8102-495201e3e20f',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      seller: '01932e74-64a5-79ba-8192-f1251866fea0',
      buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
      amount: { amount: 12000, currency: 'GBP' },
      occurred_at: '2026-01-15T09:30:00.000Z',
      month: '2026-01',
      recorded_at: '2026-01-15T09:30:00.000Z',
      revision: 1,
      billing_state: 'unbilled',
      invoice_id: null,
      held_reasons: 'held reasons',
      correction: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Voids a usage fact with a reason (extension): it is not rated or billed; its facts stay in history. Billing staff only.',
  description:
    'An event on the order\'s stream (`UsageVoided`). Voiding again changes nothing. A held order that is voided leaves the held list. '
    + 'An order already on an invoice is voided too: the invoice\'s billing.invoices.rerate.preview then shows its fee going to 0, and billing.invoices.rerate.apply credits it; '
    + 'until then billing.attention.list shows the invoice (`usage_correction_due`).',
  request: UsageVoidRequest,
  response: UsageOrderDetail,
  error: 'billing.UsageVoidError',
  errors: billingErrors.list('invalid_request', 'usage_not_found', 'projection_lag'),
  access: 'billing_staff',
  write: true,
  readModels: [billingUsageProjection],
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    await usageOrders.run(ctx, req.order_id, { type: 'VoidUsage', data: { reason: req.reason } }, { orgId: await sellerOf(knex, req.order_id), reason: req.reason });
    await ctx.readYourWrites();
    const detail = await orderDetail(knex, req.order_id);
    if (!detail) throw ctx.errors.error('usage_not_found', `No order ${req.order_id} is recorded.`);
    return detail;
  },
});

/** billing.usage.replace */
export const usageReplace = operation({
  id: 'billing.usage.replace',
  examples: {
    request: { order_id: '01931031-171c-7313-8102-495201e3e20f', reason: 'Agreed with the customer by phone', amount: { amount: 9000, currency: 'GBP' } },
    response: {
      order_id: '01931031-171c-7313-8102-495201e3e20f',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      seller: '01932e74-64a5-79ba-8192-f1251866fea0',
      buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
      amount: { amount: 12000, currency: 'GBP' },
      occurred_at: '2026-01-15T09:30:00.000Z',
      month: '2026-01',
      recorded_at: '2026-01-15T09:30:00.000Z',
      revision: 1,
      billing_state: 'unbilled',
      invoice_id: null,
      held_reasons: 'held reasons',
      correction: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Replaces a usage fact with corrected facts and a reason (extension): the replacement is rated in its place; the original stays in history. Billing staff only.',
  description:
    'Corrects the buyer, the amount (with its currency) or occurred_at of a recorded order (`UsageReplaced`, revision n+1); seller and subscription stay. The same facts again change nothing. '
    + 'A voided order is not replaced (409 `usage_voided`). A held order that is replaced is billed on its month\'s next supplementary '
    + 'invoice (or its regular invoice when that is not generated yet). An order already on an invoice is replaced too, keeping its month and currency (else 409 `usage_invoiced`): '
    + 'the invoice\'s billing.invoices.rerate.preview then rates it with the corrected facts and billing.invoices.rerate.apply bills the difference; until then billing.attention.list shows the invoice (`usage_correction_due`).',
  request: UsageReplaceRequest,
  response: UsageOrderDetail,
  error: 'billing.UsageReplaceError',
  errors: billingErrors.list('invalid_request', 'invalid_order', 'occurred_in_future', 'usage_not_found', 'usage_invoiced', 'usage_voided', 'projection_lag'),
  access: 'billing_staff',
  write: true,
  readModels: [billingUsageProjection],
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const occurredAt = req.occurred_at === undefined ? undefined : new Date(req.occurred_at).toISOString();
    if (occurredAt && Date.parse(occurredAt) > ctx.now.getTime()) {
      throw ctx.errors.error('occurred_in_future', 'Orders cannot occur after now.', { issues: [{ path: 'occurred_at', message: `order ${req.order_id} would occur in the future` }] });
    }
    const facts: UsageCorrection = {
      ...(req.buyer ? { buyer: req.buyer } : {}),
      ...(req.amount ? { amount: req.amount.amount, currency: req.amount.currency } : {}),
      ...(occurredAt ? { occurred_at: occurredAt } : {}),
    };
    const invoiceId = await invoiceOf(ctx, req.order_id);
    await usageOrders.run(ctx, req.order_id, { type: 'ReplaceUsage', data: { facts, reason: req.reason, invoice_id: invoiceId } }, { orgId: await sellerOf(knex, req.order_id), reason: req.reason });
    await ctx.readYourWrites();
    const detail = await orderDetail(knex, req.order_id);
    if (!detail) throw ctx.errors.error('usage_not_found', `No order ${req.order_id} is recorded.`);
    return detail;
  },
});

/** Write operations of usage facts. */
export const billingUsageCommands = [usageInsert, usageVoid, usageReplace];
