// Reads of billing_usage (written by projections/billing/usage.ts): orders by id, a subscription's orders of a period in rating order,
// and the fail-closed refusal when some of them cannot be rated.
import type { Knex } from 'knex';
import type { Issue } from '../../domain/errors.ts';
import type { OrderRating } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { UsageOrder } from '../../domain/billing/usage.ts';
import type { UsageDoc } from '../../projections/billing/usage.ts';
import type { DomainError } from '../../domain/errors.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';

/** The recorded orders among `orderIds`, by order id. */
export async function usageByOrderIds(knex: Knex, orderIds: string[]): Promise<Map<string, UsageDoc>> {
  const out = new Map<string, UsageDoc>();
  for (let i = 0; i < orderIds.length; i += 5000) {
    const rows = (await knex('billing_usage').whereIn('order_id', orderIds.slice(i, i + 5000)).select('doc')) as { doc: UsageDoc }[];
    for (const r of rows) out.set(r.doc.order_id, r.doc);
  }
  return out;
}

/** Up to `limit` orders staff voided or replaced (the partial index billing_usage_corrected finds them), by order id. */
export async function correctedOrderIds(knex: Knex, limit: number): Promise<string[]> {
  const res = await knex.raw('select order_id from billing_usage where voided or revision > 0 order by order_id limit ?', [limit]);
  return (res.rows as { order_id: string }[]).map((r) => r.order_id);
}

/** An order's current facts with the revision they are (0 as recorded, n after the n-th replacement). */
export type RevisedOrder = UsageOrder & { revision: number };

/**
 * The orders of a subscription with `from <= occurred_at < to` that are not voided, with their current facts, in
 * `(occurred_at, order_id)` order, read from the indexed columns only (no documents: a month may hold hundreds of
 * thousands of orders).
 */
export async function usageOfPeriod(knex: Knex, subscriptionId: string, from: string, to: string): Promise<RevisedOrder[]> {
  const res = await knex.raw(
    `select order_id, seller_id::text as seller, buyer_id::text as buyer, amount::text as amount, currency, revision,
            to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at
     from billing_usage where subscription_id = ? and occurred_at >= ? and occurred_at < ? and not voided
     order by occurred_at, order_id`,
    [subscriptionId, from, to],
  );
  return (res.rows as (Omit<RevisedOrder, 'amount' | 'subscription_id'> & { amount: string })[]).map((r) => ({ ...r, subscription_id: subscriptionId, amount: Number(r.amount), revision: Number(r.revision) }));
}

/** How many orders of a subscription in `[from, to)` are not voided. */
export async function usageCountOfPeriod(knex: Knex, subscriptionId: string, from: string, to: string): Promise<number> {
  const row = (await knex('billing_usage').where('subscription_id', subscriptionId).where('occurred_at', '>=', from).where('occurred_at', '<', to).where('voided', false).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** Filters of the usage listing. */
export interface UsageFilter {
  subscription_id?: string;
  /** `[from, to)` of occurred_at. */
  from?: string;
  to?: string;
  order_ids?: string[];
  voided?: boolean;
}

/** A page of orders by (occurred_at, id), filtered. */
export async function usagePage(knex: Knex, filter: UsageFilter, page: { limit: number; cursor?: string }): Promise<{ docs: UsageDoc[]; pagination: { cursor: string } | null }> {
  const q = knex('billing_usage').select('id', 'occurred_at', 'doc');
  if (filter.subscription_id) q.where('subscription_id', filter.subscription_id);
  if (filter.from) q.where('occurred_at', '>=', filter.from);
  if (filter.to) q.where('occurred_at', '<', filter.to);
  if (filter.order_ids) q.whereIn('order_id', filter.order_ids);
  if (filter.voided !== undefined) q.where('voided', filter.voided);
  const res = await keysetPage<{ id: string; occurred_at: Date; doc: UsageDoc }>(q, {
    columns: ['occurred_at', 'id'], shape: cursorShape(cursorParts.instant, cursorParts.uuid), limit: page.limit, cursor: page.cursor,
    key: (r) => [new Date(r.occurred_at).toISOString(), r.id],
  });
  return { docs: res.rows.map((r) => r.doc), pagination: res.pagination };
}

/** Subscriptions with recorded orders in `[from, to)`, each with the calendar months (`YYYY-MM`, UTC) those orders fall in. */
export async function usageMonths(knex: Knex, from: string, to: string): Promise<{ subscription_id: string; month: string }[]> {
  const res = await knex.raw(
    `select distinct subscription_id::text as subscription_id, to_char(occurred_at at time zone 'UTC', 'YYYY-MM') as month
     from billing_usage where occurred_at >= ? and occurred_at < ? and not voided order by 1, 2`,
    [from, to],
  );
  return res.rows as { subscription_id: string; month: string }[];
}

/** Unrateable orders named in one refusal; the message gives the full count. */
const MAX_NAMED_ORDERS = 100;

/** The order ids an invoice cannot be made with, and why: unrateable by the configuration, or in another currency than their pricing. */
export function unrateableIssues(orders: readonly UsageOrder[], ratings: readonly OrderRating[]): Issue[] {
  const issues: Issue[] = [];
  ratings.forEach((r, i) => {
    const o = orders[i];
    if (r.status === 'unrateable') issues.push({ path: `orders.${r.order_id}`, message: r.reasons.map((x) => `${x.code}: ${x.message}`).join('; ') });
    else if (o && o.currency !== r.currency) issues.push({ path: `orders.${r.order_id}`, message: `currency_mismatch: the order is in ${o.currency}, its pricing ${r.pricing_revision_id} in ${r.currency}` });
  });
  return issues;
}

/** The 409 that refuses to rate when any order cannot be rated: fails closed, naming the orders. */
export function unrateableError(issues: Issue[], what: string): DomainError {
  return billingErrors.error('usage_unrateable', `${issues.length} order(s) cannot be rated, so ${what}; they are named in issues${issues.length > MAX_NAMED_ORDERS ? ` (the first ${MAX_NAMED_ORDERS})` : ''}.`, {
    issues: issues.slice(0, MAX_NAMED_ORDERS),
  });
}
