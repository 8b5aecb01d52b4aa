// Reads of billing_usage_months (written by projections/billing/usage-months.ts): held orders per subscription month, and the
// months the usage invoice worker could not invoice (billing.usage.refusals.list).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { UsageRefusalListRequest, UsageRefusalPage } from '../../contract/schemas/billing-usage.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { usageMonthKey } from '../../domain/billing/usage-month.ts';
import type { UsageMonthDoc } from '../../projections/billing/usage-months.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';

/** One subscription month's held orders and refusal, or null when neither was ever recorded. */
export async function usageMonthDoc(knex: Knex, subscriptionId: string, period: string): Promise<UsageMonthDoc | null> {
  const row = (await knex('billing_usage_months').where('id', usageMonthKey(subscriptionId, period)).select('doc').first()) as { doc: UsageMonthDoc } | undefined;
  return row?.doc ?? null;
}

/** The months of `pairs` that have a document, by `subscription/period`. */
export async function usageMonthDocs(knex: Knex, pairs: { subscription_id: string; period: string }[]): Promise<Map<string, UsageMonthDoc>> {
  const ids = [...new Set(pairs.map((p) => usageMonthKey(p.subscription_id, p.period)))];
  const out = new Map<string, UsageMonthDoc>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = (await knex('billing_usage_months').whereIn('id', ids.slice(i, i + 1000)).select('doc')) as { doc: UsageMonthDoc }[];
    for (const r of rows) out.set(`${r.doc.subscription_id}/${r.doc.period}`, r.doc);
  }
  return out;
}

/** Every order ever held in the matching months (the caller checks the revision is still the held one). */
export async function heldOrders(knex: Knex, filter: { subscription_id?: string; period?: string }): Promise<{ order_id: string; revision: number; reasons: string }[]> {
  const q = knex('billing_usage_months').select('doc');
  if (filter.subscription_id) q.where('subscription_id', filter.subscription_id);
  if (filter.period) q.where('period', filter.period);
  const rows = (await q) as { doc: UsageMonthDoc }[];
  return rows.flatMap((r) => Object.entries(r.doc.held).map(([order_id, h]) => ({ order_id, revision: h.revision, reasons: h.reasons })));
}

/** The refused months, oldest refusal first, at most `cap`. */
export async function refusedMonthDocs(knex: Knex, cap: number): Promise<UsageMonthDoc[]> {
  return ((await knex('billing_usage_months').where('refused', true).orderBy([{ column: 'refused_since' }, { column: 'id' }]).limit(cap).select('doc')) as { doc: UsageMonthDoc }[]).map((r) => r.doc);
}

/** Months in which staff ever held orders, at most `cap` (whether those orders are still held is the caller's to check). */
export async function heldMonthDocs(knex: Knex, cap: number): Promise<UsageMonthDoc[]> {
  return ((await knex('billing_usage_months').whereRaw(`doc->'held' <> '{}'::jsonb`).orderBy('id').limit(cap).select('doc')) as { doc: UsageMonthDoc }[]).map((r) => r.doc);
}

/** How many subscription months the usage invoice worker could not invoice (the `usage_months_refused` gauge). */
export async function refusedMonthCount(knex: Knex): Promise<number> {
  const row = (await knex('billing_usage_months').where('refused', true).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** billing.usage.refusals.list */
export const usageRefusalsList = operation({
  id: 'billing.usage.refusals.list',
  examples: {
    request: { subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd' },
    response: {
      items: [
        {
          subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
          period: '2026-01',
          code: 'usage_unrateable',
          message: 'Usage in EUR cannot be rated: the subscription is billed in GBP and no EUR/GBP rate is recorded for January 2026.',
          issues: [{ path: 'orders[0].currency', message: 'no EUR/GBP exchange rate as of 2026-01-31' }],
          since: '2026-02-01T02:00:00.000Z',
          refused_at: '2026-01-15T09:30:00.000Z',
          held_order_count: 1,
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the subscription months the usage invoice worker could not invoice, and why (extension). Billing staff only.',
  description:
    'One row per month whose last pass was refused (unrateable orders, mixed currencies, no customer...), oldest refusal first, with the code, the message and the orders named. '
    + 'A month leaves the list once it is invoiced (by the worker or `billing.invoices.generate`, e.g. with `hold_unrateable`). The gauge `usage_months_refused` counts them.',
  request: UsageRefusalListRequest,
  response: UsageRefusalPage,
  error: 'billing.UsageRefusalListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_usage_months').where('refused', true).select('id', 'refused_since', 'doc');
    if (req.subscription_id) q.where('subscription_id', req.subscription_id);
    const page = await keysetPage<{ id: string; refused_since: Date; doc: UsageMonthDoc }>(q, {
      columns: ['refused_since', 'id'], shape: cursorShape(cursorParts.instant, cursorParts.uuid), limit: req.limit, cursor: req.cursor,
      key: (r) => [new Date(r.refused_since).toISOString(), r.id],
    });
    return {
      items: page.rows.flatMap(({ doc }) => (doc.refusal ? [{
        subscription_id: doc.subscription_id, period: doc.period, code: doc.refusal.code, message: doc.refusal.message, issues: doc.refusal.issues,
        since: doc.refusal.since, refused_at: doc.refusal.refused_at, held_order_count: Object.keys(doc.held).length,
      }] : [])),
      pagination: page.pagination,
    };
  },
});

/** Read operations of usage months. */
export const billingUsageMonthQueries = [usageRefusalsList];
