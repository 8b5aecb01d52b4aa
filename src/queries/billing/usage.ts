// Reads of billing_usage (written by projections/billing/usage.ts): orders by id, a subscription's orders of a period in rating order,
// and the fail-closed refusal when some of them cannot be rated.
import type { Knex } from 'knex';
import type { Issue } from '../../domain/errors.ts';
import type { OrderRating } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { UsageOrder } from '../../domain/billing/usage.ts';
import type { UsageDoc } from '../../projections/billing/usage.ts';
import type { DomainError } from '../../domain/errors.ts';

/** The recorded orders among `orderIds`, by order id. */
export async function usageByOrderIds(knex: Knex, orderIds: string[]): Promise<Map<string, UsageDoc>> {
  const out = new Map<string, UsageDoc>();
  for (let i = 0; i < orderIds.length; i += 5000) {
    const rows = (await knex('billing_usage').whereIn('order_id', orderIds.slice(i, i + 5000)).select('doc')) as { doc: UsageDoc }[];
    for (const r of rows) out.set(r.doc.order_id, r.doc);
  }
  return out;
}

/**
 * The orders of a subscription with `from <= occurred_at < to`, in `(occurred_at, order_id)` order, read from
 * the indexed columns only (no documents: a month may hold hundreds of thousands of orders).
 */
export async function usageOfPeriod(knex: Knex, subscriptionId: string, from: string, to: string): Promise<UsageOrder[]> {
  const res = await knex.raw(
    `select order_id, seller_id::text as seller, buyer_id::text as buyer, amount::text as amount, currency,
            to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at
     from billing_usage where subscription_id = ? and occurred_at >= ? and occurred_at < ?
     order by occurred_at, order_id`,
    [subscriptionId, from, to],
  );
  return (res.rows as (Omit<UsageOrder, 'amount' | 'subscription_id'> & { amount: string })[]).map((r) => ({ ...r, subscription_id: subscriptionId, amount: Number(r.amount) }));
}

/** Subscriptions with recorded orders in `[from, to)`, each with the calendar months (`YYYY-MM`, UTC) those orders fall in. */
export async function usageMonths(knex: Knex, from: string, to: string): Promise<{ subscription_id: string; month: string }[]> {
  const res = await knex.raw(
    `select distinct subscription_id::text as subscription_id, to_char(occurred_at at time zone 'UTC', 'YYYY-MM') as month
     from billing_usage where occurred_at >= ? and occurred_at < ? order by 1, 2`,
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
