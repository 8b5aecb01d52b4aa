// billing.invoices.generate (extension): a draft invoice from a subscription's usage of one calendar month, rated by
// the configuration's pure rating module; each metered line keeps the revisions that rated its orders.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { InvoiceDetail } from '../../contract/schemas/billing-invoices.ts';
import { InvoiceGenerateRequest } from '../../contract/schemas/billing-usage.ts';
import type { CommandContext, RequestContext } from '../../context.ts';
import { type RatedOrder, rateOrders, ratingOrder } from '../../domain/billing/configuration/rating.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { InvoiceLine, RatedOrderRow } from '../../domain/billing/invoice-events.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { IdSource, nameId } from '../../ids.ts';
import { billingInvoiceOrdersProjection } from '../../projections/billing/invoice-orders.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingUsageProjection } from '../../projections/billing/usage.ts';
import { billingConfigurationProjection } from '../../projections/billing/configuration/configuration.ts';
import { loadConfigurationSnapshot } from '../../queries/billing/configuration/snapshot.ts';
import { customerOfOrganization } from '../../queries/billing/customers.ts';
import { visibleInvoice } from '../../queries/billing/invoices.ts';
import { subscriptionOrNotFound } from '../../queries/billing/subscriptions.ts';
import { unrateableError, unrateableIssues, usageOfPeriod } from '../../queries/billing/usage.ts';
import { invoices } from './handlers.ts';

/** The id of the usage invoice of a subscription and month: one per pair, so generating again finds it. */
export function usageInvoiceId(subscriptionId: string, period: string): string {
  return nameId('billing-usage-invoice', `${subscriptionId}/${period}`);
}

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

/**
 * Generates the draft of `subscriptionId` for `period` (a month that has ended). Everything is read and rated
 * first; the draft and the orders behind its lines are then one append with ids derived from the invoice id, so a
 * crash leaves all or nothing and any retry (or a second generate) finds the draft and changes nothing.
 */
export async function generateUsageInvoice(
  ctx: CommandContext & { knex: Knex; waitFor: RequestContext['waitFor'] },
  subscriptionId: string,
  period: string,
): Promise<{ invoiceId: string; position: LogPosition | null }> {
  // Usage recorded and configuration changed by anyone (an import in another process) up to now is read, not a lagging view of it.
  await ctx.waitFor(await ctx.store.lastCommittedPosition(), [billingUsageProjection, billingConfigurationProjection]);
  const sub = await subscriptionOrNotFound(ctx.knex, subscriptionId);
  const { from, to } = monthRange(period);
  if (ctx.now.getTime() < Date.parse(to)) throw billingErrors.error('period_not_ended', `The period ${period} ends at ${to}; its invoice is generated after that.`);
  const usage = await usageOfPeriod(ctx.knex, sub.id, from, to);
  // Usage recorded for a month before the start (a backfill) is still invoiced; an empty month before it is nonsense.
  const start = startMonth(sub);
  if (period < start && usage.length === 0) throw billingErrors.error('period_before_subscription', `The subscription starts in ${start} and has no usage in ${period}; there is nothing to invoice.`);
  const invoiceId = usageInvoiceId(sub.id, period);
  const customer = await customerOfOrganization(ctx.knex, sub.organization_id);
  if (!customer) throw billingErrors.error('customer_not_found', `The subscription's organization ${sub.organization_id} has no billing customer to invoice.`);
  if (customer.status === 'removed') throw billingErrors.error('customer_removed', 'The subscription\'s billing customer was removed; it cannot be invoiced.');
  const orders = ratingOrder(usage);
  const snapshot = await loadConfigurationSnapshot({ services: { knex: ctx.knex } }, sub.id);
  const ratings = rateOrders(snapshot, orders, ctx.now.toISOString());
  const issues = unrateableIssues(orders, ratings);
  if (issues.length) throw unrateableError(issues, `no invoice was generated for ${period}`);
  const rated = ratings.filter((r): r is RatedOrder => r.status === 'rated');
  const currencies = [...new Set(rated.map((r) => r.currency))];
  if (currencies.length > 1) throw billingErrors.error('mixed_currencies', `The orders of ${period} are priced in ${currencies.join(' and ')}; one invoice has one currency.`);
  const { lines, rows } = meteredLines(sub.id, period, rated);
  const res = await invoices.run({ ...ctx, ids: new IdSource(`usage-invoice:${invoiceId}`, Date.parse(to)) }, invoiceId, {
    type: 'DraftUsageInvoice',
    data: {
      invoice_id: invoiceId, organization_id: sub.organization_id, customer_id: customer.id, currency: currencies[0] ?? customer.currency,
      lines, orders: rows, memo: `Marketplace fees for ${period} (subscription ${sub.id})`,
    },
  }, { orgId: sub.organization_id });
  return { invoiceId, position: res.position };
}

/** billing.invoices.generate */
export const invoicesGenerate = operation({
  id: 'billing.invoices.generate',
  surface: 'core',
  tags: ['Billing'],
  summary: "Generates the draft invoice of a subscription's usage for one calendar month (extension). Billing staff only.",
  description:
    'Rates every order of the month under the configuration as known now; each metered line groups the orders rated alike and keeps the revision ids that rated them. '
    + 'Fails closed: when any order cannot be rated, 409 `usage_unrateable` names them and nothing is written. One invoice per subscription and month: generating again returns it unchanged. '
    + 'A month before the subscription started (the month of the earlier of its creation and its current period\'s start) with no usage recorded is 409 `period_before_subscription`.',
  request: InvoiceGenerateRequest,
  response: InvoiceDetail,
  error: 'billing.InvoiceGenerateError',
  errors: billingErrors.list('invalid_request', 'subscription_not_found', 'customer_not_found', 'customer_removed', 'period_not_ended', 'period_before_subscription', 'usage_unrateable', 'mixed_currencies', 'too_many_lines', 'amount_too_large', 'invalid_line'),
  access: 'billing_staff',
  write: true,
  async handle(ctx, req) {
    const { invoiceId, position } = await generateUsageInvoice({ ...ctx, knex: ctx.services.knex }, req.subscription, req.period);
    await ctx.waitFor(position, [billingInvoicesProjection, billingInvoiceOrdersProjection]);
    return visibleInvoice(ctx, invoiceId);
  },
});

/** Write operations of usage invoices. */
export const billingUsageInvoiceCommands = [invoicesGenerate];
