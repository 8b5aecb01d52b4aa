// billing.invoices.generate (extension): a draft invoice from a subscription's usage of one calendar month, rated by
// the configuration's pure rating module; each metered line keeps the revisions that rated its orders.
import { operation } from '../../contract/operation.ts';
import { InvoiceDetail } from '../../contract/schemas/billing-invoices.ts';
import { InvoiceGenerateRequest } from '../../contract/schemas/billing-usage.ts';
import type { CommandContext, Services } from '../../context.ts';
import { type RatedOrder, baselineConsumption, rateOrders, ratingOrder } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { InvoiceLine, RatedOrderRow } from '../../domain/billing/invoice-events.ts';
import { IdSource } from '../../ids.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingInvoiceOrdersProjection } from '../../projections/billing/invoice-orders.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingUsageProjection } from '../../projections/billing/usage.ts';
import { billingConfigurationProjection } from '../../projections/billing/configuration/configuration.ts';
import { loadConfigurationSnapshot } from '../../queries/billing/configuration/snapshot.ts';
import { customerOfOrganization } from '../../queries/billing/customers.ts';
import { visibleInvoice } from '../../queries/billing/invoices.ts';
import { monthDocuments } from '../../queries/billing/month-documents.ts';
import { supplementId, usageInvoiceId } from '../../domain/billing/usage-month.ts';
import { ordersOfInvoices } from '../../queries/billing/invoice-orders.ts';
import { usageMonthDoc } from '../../queries/billing/usage-months.ts';
import { billingUsageMonthsProjection } from '../../projections/billing/usage-months.ts';
import { subscriptionOrNotFound } from '../../queries/billing/subscriptions.ts';
import { unrateableError, unrateableIssues, usageOfPeriod } from '../../queries/billing/usage.ts';
import { invoices, usageMonths } from './handlers.ts';

/** `[start, end)` of a calendar month `YYYY-MM` (UTC), as ISO instants. */
export function monthRange(period: string): { from: string; to: string } {
  const [y, m] = period.split('-').map(Number);
  const start = Date.UTC(y ?? 1970, (m ?? 1) - 1, 1);
  const end = Date.UTC(y ?? 1970, m ?? 1, 1);
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
}

/**
 * The first month a subscription can be invoiced for without usage: the month (UTC) of the earlier of when it was
 * recorded and its current period's start. An earlier month would only make an empty draft.
 */
export function startMonth(sub: { created_at: string; current_period_start: string }): string {
  return new Date(Math.min(Date.parse(sub.created_at), Date.parse(sub.current_period_start))).toISOString().slice(0, 7);
}

/** What makes orders share a line: the same classification rated by the same revisions at the same rate. */
function lineKey(r: RatedOrder): string {
  return [r.classification, r.pricing_revision_id, r.baseline_revision_id ?? '', r.rate_bps, r.minimum_fee, r.currency].join('|');
}

/** Metered lines (in order of their first order) and each order's row, from ratings in rating order. */
export function meteredLines(subscriptionId: string, period: string, rated: readonly RatedOrder[]): { lines: InvoiceLine[]; rows: RatedOrderRow[] } {
  const index = new Map<string, number>();
  const lines: InvoiceLine[] = [];
  const rows: RatedOrderRow[] = [];
  for (const r of rated) {
    const key = lineKey(r);
    let line = index.get(key);
    if (line === undefined) {
      line = lines.length;
      index.set(key, line);
      lines.push({
        kind: 'metered', description: '', quantity: 1, unit_amount: 0, amount: 0,
        metered: {
          subscription_id: subscriptionId, period, classification: r.classification, rate_bps: r.rate_bps, minimum_fee: r.minimum_fee,
          pricing_revision_id: r.pricing_revision_id, baseline_revision_id: r.baseline_revision_id, order_count: 0, order_amount: 0, exempt_amount: 0, chargeable_amount: 0,
        },
      });
    }
    const l = lines[line];
    if (!l?.metered) continue;
    l.amount += r.fee;
    l.metered.order_count++;
    l.metered.order_amount += r.amount;
    l.metered.exempt_amount += r.exempt_amount;
    l.metered.chargeable_amount += r.chargeable_amount;
    rows.push({ order_id: r.order_id, line, relationship_id: r.relationship_id, exempt_amount: r.exempt_amount, fee: r.fee });
  }
  for (const l of lines) {
    l.unit_amount = l.amount;
    if (l.metered) l.description = describe(l.metered);
  }
  return { lines, rows };
}

function describe(m: NonNullable<InvoiceLine['metered']>): string {
  const rate = `${Math.trunc(m.rate_bps / 100)}.${String(m.rate_bps % 100).padStart(2, '0')}%`;
  const exempt = m.exempt_amount > 0 ? `, ${m.exempt_amount} exempt under the baseline` : '';
  return `Marketplace fees ${m.period}: ${m.order_count} ${m.classification.replace('_', '-')} order(s) at ${rate}${exempt}`;
}

/** What a generation did: drafted the month's invoice or a supplementary one, or found nothing new to bill (the month's last document). */
export interface Generated {
  invoiceId: string;
  kind: 'regular' | 'supplementary' | 'unchanged';
  /** Orders held by this generation (hold_unrateable). */
  held: number;
}

/**
 * Generates the next document of `subscriptionId` for `period` (a month that has ended): the month's invoice when it
 * does not exist, else a supplementary invoice of the orders not billed yet (late, or fixed after being held), rated
 * after the billed ones so the baseline they consumed is not granted again. Everything is read and rated first; the
 * draft and the orders behind its lines are then one append with ids derived from the invoice id, so a crash leaves
 * all or nothing and any retry (or a racing generate) finds the draft and changes nothing. An order is on one document
 * at most: a document's orders are those no earlier document of the month holds, as read once every earlier one is.
 */
export async function generateUsageInvoice(ctx: GenerateContext, subscriptionId: string, period: string, opts: { holdUnrateable?: boolean } = {}): Promise<Generated> {
  const { refused, ...result } = await draftNext(ctx, subscriptionId, period, opts);
  // A month that is invoiced (or has nothing left to invoice) is no longer refused.
  if (refused) await usageMonths.run(ctx, { subscription_id: subscriptionId, period }, { type: 'ClearRefusal', data: { subscription_id: subscriptionId, period } });
  return result;
}

type GenerateContext = CommandContext & { services: Pick<Services, 'knex' | 'db' | 'store' | 'runner' | 'config'> };

// The decision of generateUsageInvoice, and whether a refusal of the month is recorded.
async function draftNext(ctx: GenerateContext, subscriptionId: string, period: string, opts: { holdUnrateable?: boolean }): Promise<Generated & { refused: boolean }> {
  // Usage recorded, configuration changed and documents generated by anyone (another process) up to now are read, not a lagging view of them.
  await caughtUp(ctx.services, [billingUsageProjection, billingConfigurationProjection, billingInvoicesProjection, billingInvoiceOrdersProjection, billingUsageMonthsProjection]);
  const { knex } = ctx.services;
  const sub = await subscriptionOrNotFound(knex, subscriptionId);
  const { from, to } = monthRange(period);
  if (ctx.now.getTime() < Date.parse(to)) throw billingErrors.error('period_not_ended', `The period ${period} ends at ${to}; its invoice is generated after that.`);
  const usage = await usageOfPeriod(knex, sub.id, from, to);
  const docs = await monthDocuments(knex, sub.id, period);
  // Usage recorded for a month before the start (a backfill) is still invoiced; an empty month before it is nonsense.
  const start = startMonth(sub);
  if (docs.length === 0 && period < start && usage.length === 0) throw billingErrors.error('period_before_subscription', `The subscription starts in ${start} and has no usage in ${period}; there is nothing to invoice.`);
  const billed = await ordersOfInvoices(knex, docs);
  const pending = ratingOrder(usage.filter((o) => !billed.has(o.order_id)));
  const last = docs.at(-1);
  const month = await usageMonthDoc(knex, sub.id, period);
  const refused = month?.refusal != null;
  if (last && pending.length === 0) return { invoiceId: last, kind: 'unchanged', held: 0, refused };
  const snapshot = await loadConfigurationSnapshot(ctx, sub.id);
  const ratings = rateOrders(snapshot, pending, ctx.now.toISOString(), baselineConsumption(snapshot, usage.filter((o) => billed.has(o.order_id)), ctx.now.toISOString()));
  const issues = unrateableIssues(pending, ratings);
  const byId = new Map(pending.map((o) => [o.order_id, o]));
  const unrateable = new Map(issues.map((i) => [i.path.slice('orders.'.length), i.message]));
  // Orders staff held at these very facts stay held without asking again; any other unrateable order needs their decision.
  const fresh = issues.filter((i) => {
    const id = i.path.slice('orders.'.length);
    return month?.held[id]?.revision !== byId.get(id)?.revision;
  });
  if (fresh.length && !opts.holdUnrateable) throw unrateableError(fresh, `no invoice was generated for ${period}`);
  const rated = ratings.filter((r): r is RatedOrder => r.status === 'rated' && !unrateable.has(r.order_id));
  const currencies = [...new Set(rated.map((r) => r.currency))];
  if (currencies.length > 1) throw billingErrors.error('mixed_currencies', `The orders of ${period} are priced in ${currencies.join(' and ')}; one invoice has one currency.`);
  const customer = await customerOfOrganization(knex, sub.organization_id);
  if (!customer) throw billingErrors.error('customer_not_found', `The subscription's organization ${sub.organization_id} has no billing customer to invoice.`);
  if (customer.status === 'removed') throw billingErrors.error('customer_removed', 'The subscription\'s billing customer was removed; it cannot be invoiced.');
  if (fresh.length) {
    const orders = fresh.map((i) => {
      const id = i.path.slice('orders.'.length);
      return { order_id: id, revision: byId.get(id)?.revision ?? 0, reasons: i.message };
    });
    await usageMonths.run(ctx, { subscription_id: sub.id, period }, { type: 'HoldOrders', data: { subscription_id: sub.id, period, orders } }, { orgId: sub.organization_id });
  }
  if (last && rated.length === 0) return { invoiceId: last, kind: 'unchanged', held: fresh.length, refused };
  const seq = docs.length;
  const invoiceId = seq === 0 ? usageInvoiceId(sub.id, period) : supplementId(sub.id, period, seq);
  const { lines, rows } = meteredLines(sub.id, period, rated);
  await invoices.run({ ...ctx, ids: new IdSource(`usage-invoice:${invoiceId}`, Date.parse(to)) }, invoiceId, {
    type: 'DraftUsageInvoice',
    data: {
      invoice_id: invoiceId, organization_id: sub.organization_id, customer_id: customer.id, currency: currencies[0] ?? customer.currency,
      lines, orders: rows,
      memo: seq === 0
        ? `Marketplace fees for ${period} (subscription ${sub.id})`
        : `Supplementary marketplace fees for ${period} (subscription ${sub.id}): ${rows.length} order(s) recorded or fixed after the month was invoiced`,
      metadata: seq === 0 ? {} : { usage_period: period, usage_supplement: String(seq), usage_subscription: sub.id },
    },
  }, { orgId: sub.organization_id });
  return { invoiceId, kind: seq === 0 ? 'regular' : 'supplementary', held: fresh.length, refused };
}

/** billing.invoices.generate */
export const invoicesGenerate = operation({
  id: 'billing.invoices.generate',
  examples: {
    request: { subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd', period: '2026-01' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      number: 'INV-2026-0042',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      status: 'draft',
      currency: 'GBP',
      lines: [
        {
          kind: 'manual',
          description: 'Monthly platform fee',
          quantity: 1,
          unit_amount: 12000,
          amount: 12000,
        },
      ],
      subtotal: 12000,
      total: 12000,
      amount_paid: 0,
      amount_credited: 0,
      amount_credited_to_balance: 0,
      amount_remaining: 12000,
      memo: 'Thank you for your business.',
      metadata: {},
      issue_date: null,
      due_date: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Generates the draft invoice of a subscription's usage for one calendar month, or its next supplementary invoice (extension). Billing staff only.",
  description:
    'Rates every order of the month under the configuration as known now; each metered line groups the orders rated alike and keeps the revision ids that rated them. '
    + 'Fails closed: when any order cannot be rated, 409 `usage_unrateable` names them and nothing is written, unless `hold_unrateable` is true: the staff decision to invoice '
    + 'without them, holding them (`billing.usage.list` with `billing_state: held`) until they are fixed. One invoice per subscription and month: generating again returns it unchanged. '
    + 'Orders recorded after it (late) or fixed after being held are billed on a supplementary invoice of the month (metadata `usage_supplement` = 1, 2, ...), rated after the orders '
    + 'already billed so the baseline is not exempted twice; generating then answers that draft, and with nothing left to bill the month\'s last document. Each order is on one invoice. '
    + 'A month before the subscription started (the month of the earlier of its creation and its current period\'s start) with no usage recorded is 409 `period_before_subscription`.',
  request: InvoiceGenerateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceGenerateError',
  errors: billingErrors.list('invalid_request', 'subscription_not_found', 'customer_not_found', 'customer_removed', 'period_not_ended', 'period_before_subscription', 'usage_unrateable', 'mixed_currencies', 'too_many_lines', 'amount_too_large', 'invalid_line'),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoicesProjection, billingInvoiceOrdersProjection, billingUsageMonthsProjection],
  async handle(ctx, req) {
    const { invoiceId } = await generateUsageInvoice(ctx, req.subscription_id, req.period, { holdUnrateable: req.hold_unrateable ?? false });
    await ctx.readYourWrites();
    return visibleInvoice(ctx, invoiceId);
  },
});

/** Write operations of usage invoices. */
export const billingUsageInvoiceCommands = [invoicesGenerate];
