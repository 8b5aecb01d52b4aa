// Where each recorded order stands in billing (issue 26): composed from the usage facts, the orders behind invoices and the held
// orders of usage months, each read through its own query module; and billing.usage.list.
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { type UsageBillingState, type UsageOrderDetail, UsageListRequest, UsageOrderPage } from '../../contract/schemas/billing-usage.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { UsageDoc } from '../../projections/billing/usage.ts';
import { invoicesOfOrders } from './invoice-orders.ts';
import { heldOrders, usageMonthDocs } from './usage-months.ts';
import { usageByOrderIds, usagePage } from './usage.ts';

/** An order's billing state. */
export interface BillingOf {
  billing_state: z.infer<typeof UsageBillingState>;
  invoice_id: string | null;
  held_reasons: string | null;
}

/** `[from, to)` of a calendar month as ISO instants; December 9999 has no end a timestamp column holds (nothing is later). */
function range(period: string): { from: string; to?: string } {
  const [y, m] = period.split('-').map(Number);
  const from = new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, 1)).toISOString();
  const end = new Date(Date.UTC(y ?? 1970, m ?? 1, 1));
  return end.getUTCFullYear() > 9999 ? { from } : { from, to: end.toISOString() };
}

/**
 * The billing state of each of `docs`, by order id: voided (with the invoice it was on, if any: re-rating that invoice
 * credits it), on an invoice, held at its current revision (a replacement is no longer held: it waits for the next supplementary invoice), else unbilled.
 */
export async function billingStates(knex: Knex, docs: readonly UsageDoc[]): Promise<Map<string, BillingOf>> {
  const invoices = await invoicesOfOrders(knex, docs.map((d) => d.order_id));
  const months = await usageMonthDocs(knex, docs.map((d) => ({ subscription_id: d.subscription_id, period: d.occurred_at.slice(0, 7) })));
  const out = new Map<string, BillingOf>();
  for (const d of docs) {
    const invoice = invoices.get(d.order_id);
    const held = months.get(`${d.subscription_id}/${d.occurred_at.slice(0, 7)}`)?.held[d.order_id];
    if (d.correction?.kind === 'voided') out.set(d.order_id, { billing_state: 'voided', invoice_id: invoice ?? null, held_reasons: null });
    else if (invoice) out.set(d.order_id, { billing_state: 'invoiced', invoice_id: invoice, held_reasons: null });
    else if (held && held.revision === (d.revision ?? 0)) out.set(d.order_id, { billing_state: 'held', invoice_id: null, held_reasons: held.reasons });
    else out.set(d.order_id, { billing_state: 'unbilled', invoice_id: null, held_reasons: null });
  }
  return out;
}

/** The listing's view of orders. */
export async function orderDetailsOf(knex: Knex, docs: readonly UsageDoc[]): Promise<z.input<typeof UsageOrderDetail>[]> {
  const states = await billingStates(knex, docs);
  return docs.map((d) => {
    const b = states.get(d.order_id) ?? { billing_state: 'unbilled', invoice_id: null, held_reasons: null };
    return {
      order_id: d.order_id, subscription_id: d.subscription_id, seller: d.seller, buyer: d.buyer, amount: { amount: d.amount, currency: d.currency },
      occurred_at: d.occurred_at, month: d.occurred_at.slice(0, 7), recorded_at: d.recorded_at, revision: d.revision ?? 0, ...b, correction: d.correction ?? null,
    };
  });
}

/** One order's view, or null when it is not recorded. */
export async function orderDetail(knex: Knex, orderId: string): Promise<z.input<typeof UsageOrderDetail> | null> {
  const doc = (await usageByOrderIds(knex, [orderId])).get(orderId);
  return doc ? ((await orderDetailsOf(knex, [doc]))[0] ?? null) : null;
}

/** billing.usage.list */
export const usageList = operation({
  id: 'billing.usage.list',
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      period: '2026-01',
      order_id: '01931031-171c-7313-8102-495201e3e20f',
      billing_state: 'held',
    },
    response: {
      items: [
        {
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
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists recorded orders with where each stands in billing: unbilled, invoiced (with the invoice), voided or held (with why) (extension). Billing staff only.',
  description:
    'Filtered by subscription, month, order id, or `billing_state` `held` (the orders staff left out of an invoice because they cannot be rated, with their reasons: fix them with '
    + '`billing.usage.replace` or `billing.usage.void` and they are billed on the month\'s next supplementary invoice) or `voided`. Oldest first by occurred_at.',
  request: UsageListRequest,
  response: UsageOrderPage,
  error: 'billing.UsageListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const filter: Parameters<typeof usagePage>[1] = {
      ...(req.subscription_id ? { subscription_id: req.subscription_id } : {}),
      ...(req.period ? range(req.period) : {}),
      ...(req.order_id ? { order_ids: [req.order_id] } : {}),
    };
    if (req.billing_state === 'voided') filter.voided = true;
    if (req.billing_state === 'held') {
      const held = await heldOrders(knex, { ...(req.subscription_id ? { subscription_id: req.subscription_id } : {}), ...(req.period ? { period: req.period } : {}) });
      filter.order_ids = [...new Set(held.map((h) => h.order_id))].filter((id) => !req.order_id || id === req.order_id);
      filter.voided = false;
    }
    const page = await usagePage(knex, filter, { limit: req.limit, cursor: req.cursor });
    const items = await orderDetailsOf(knex, page.docs);
    // A held order fixed since (replaced, or billed once its configuration was) is no longer held.
    return { items: req.billing_state === 'held' ? items.filter((i) => i.billing_state === 'held') : items, pagination: page.pagination };
  },
});

/** Read operations of usage facts. */
export const billingUsageQueries = [usageList];
