// billing.configuration.pricing.preview-impact and .baselines.preview-impact (extensions, issue 26 section 5): what a
// pricing or baseline revision would change on the invoices already generated, before it is saved. The revision is
// decided exactly as .insert decides it (same checks and refusals) but not appended; each usage invoice whose month its
// range touches is rated with it and compared with what the invoice and its corrections bill. Writes nothing.
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { BaselineImpactRequest, PricingImpactRequest, RevisionImpact } from '../../contract/schemas/billing-corrections.ts';
import type { RequestContext } from '../../context.ts';
import { configurationErrors } from '../../domain/billing/configuration/errors.ts';
import type { RevisionEvent } from '../../domain/billing/configuration/revisions.ts';
import type { ConfigurationSnapshot } from '../../domain/billing/configuration/snapshot.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingConfigurationProjection } from '../../projections/billing/configuration/configuration.ts';
import { billingInvoiceCorrectionsProjection } from '../../projections/billing/invoice-corrections.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingUsageProjection } from '../../projections/billing/usage.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import { loadConfigurationSnapshot } from '../../queries/billing/configuration/snapshot.ts';
import { billedOrders, compareRatings } from '../../queries/billing/invoice-corrections.ts';
import { cursorParts, cursorShape, decodeCursor, encodeCursor } from '../../queries/pagination.ts';
import { configurations } from './configuration/handlers.ts';
import { revisionInput } from './configuration/revisions.ts';
import { monthRange } from './usage-invoices.ts';
import { usageInvoiceId } from '../../domain/billing/usage-month.ts';
import { getInvoiceDoc } from '../../queries/billing/invoices.ts';
import { usageMonths } from '../../queries/billing/usage.ts';

type Impact = z.input<typeof RevisionImpact>;
const IMPACT_ERRORS = ['subscription_not_found', 'subscription_canceled', 'currency_not_enabled', 'invalid_range', 'invalid_supersedes', 'revision_overlap', 'invalid_cursor', 'projection_lag'] as const;

const month = (iso: string) => iso.slice(0, 7);

/** The snapshot with the revision of `event` recorded last (what rating would see once it is saved). */
function withRevision(snapshot: ConfigurationSnapshot, event: RevisionEvent): ConfigurationSnapshot {
  const d = event.data;
  const common = {
    revision_id: d.revision_id, sequence: d.sequence, effective_from: d.effective_from, effective_to: d.effective_to, actor: d.actor, reason: d.reason,
    recorded_at: d.recorded_at, supersedes: d.supersedes.map((s) => s.revision_id),
  };
  if (event.type === 'BaselineRevisionRecorded')
    return { ...snapshot, baselines: [...snapshot.baselines, { ...common, monthly_exempt_amount: event.data.monthly_exempt_amount, currency: event.data.currency }] };
  return { ...snapshot, pricing: [...snapshot.pricing, { ...common, currency: event.data.currency, rates_bps: event.data.rates_bps, minimum_fee: event.data.minimum_fee }] };
}

/** The impact of the revision `event` (decided, not appended), one page of invoices (oldest month first) after `cursor`. */
async function impact(ctx: RequestContext, event: RevisionEvent | undefined, page: { limit: number; cursor?: string }): Promise<Impact> {
  if (!event) throw new Error('invariant broken: a revision decided no event');
  const after = page.cursor ? month(decodeCursor(page.cursor, cursorShape(cursorParts.day))[0]) : null;
  const d = event.data;
  const subscriptionId = d.subscription_id;
  const base: Omit<Impact, 'items' | 'examined' | 'pagination' | 'months'> = { subscription_id: subscriptionId, currency: d.currency, effective_from: d.effective_from, effective_to: d.effective_to };
  const knex = ctx.services.knex;
  const now = ctx.now.toISOString();
  const lastTouched = d.effective_to === null ? now : new Date(Math.min(Date.parse(d.effective_to) - 1, Date.parse(now))).toISOString();
  // The months the revision's range touches in which the subscription has usage (only those can have a usage invoice with orders).
  const touched = Date.parse(lastTouched) < Date.parse(d.effective_from) ? [] : (await usageMonths(knex, monthRange(month(d.effective_from)).from, monthRange(month(lastTouched)).to))
    .filter((u) => u.subscription_id === subscriptionId).map((u) => u.month);
  const from = touched[0] ?? null;
  const to = touched.at(-1) ?? null;
  const docs: { period: string; doc: InvoiceDoc }[] = [];
  for (const m of touched) {
    if (after !== null && m <= after) continue;
    const doc = await getInvoiceDoc(ctx.services.db, usageInvoiceId(subscriptionId, m));
    if (doc) docs.push({ period: m, doc });
    if (docs.length > page.limit) break;
  }
  const examined = docs.slice(0, page.limit);
  const snapshot = withRevision(await loadConfigurationSnapshot(ctx, subscriptionId), event);
  const items: Impact['items'] = [];
  for (const { period, doc } of examined) {
    if (doc.status === 'void') continue; // bills nothing: nothing to change
    const compared = await compareRatings(knex, doc, await billedOrders(knex, doc), snapshot, now);
    const oldTotal = compared.lines.reduce((s, l) => s + l.old_amount, 0);
    const newTotal = compared.lines.reduce((s, l) => s + l.new_amount, 0);
    if (compared.changes.length === 0 && compared.issues.length === 0) continue;
    items.push({
      invoice_id: doc.id, number: doc.number, status: doc.status, period, old_total: oldTotal, new_total: newTotal, difference: newTotal - oldTotal,
      changed_order_count: compared.changes.length, unrateable_order_count: compared.issues.length,
    });
  }
  const last = examined.at(-1);
  return {
    ...base, months: { from, to }, items, examined: examined.length,
    pagination: docs.length > page.limit && last ? { cursor: encodeCursor([`${last.period}-01`]) } : null,
  };
}

/** The subscription's revisions as its stream says now, once the read models the preview reads have caught up with the log. */
async function settled(ctx: RequestContext, subscriptionId: string) {
  // Configuration, usage, invoices and corrections recorded by anyone up to now are what the revision is compared with.
  await caughtUp(ctx.services, [billingConfigurationProjection, billingInvoiceCorrectionsProjection, billingUsageProjection, billingInvoicesProjection]);
  return configurations.load(ctx, subscriptionId);
}

const DESCRIPTION =
  'Takes the body the matching .insert takes (and a page): the revision is checked and decided exactly as .insert would (the same refusals) but not saved. '
  + 'Each usage invoice of the subscription for a month the revision\'s range touches is rated with it; listed are those it would change: old total (what the invoice and its corrections bill), '
  + 'new total, difference, orders that would differ or become unrateable. After saving the revision, billing.invoices.rerate.preview and .apply turn a difference into a correction. '
  + 'Writes nothing. Billing staff only.';

/** billing.configuration.pricing.preview-impact */
export const pricingPreviewImpact = operation({
  id: 'billing.configuration.pricing.preview-impact', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      effective_from: '2026-01-15',
      reason: 'Agreed with the customer by phone',
      currency: 'GBP',
      rates_bps: { platform_introduced: 1, pre_existing: 1 },
      minimum_fee: 1,
    },
    response: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      currency: 'GBP',
      effective_from: '2026-01-15T09:30:00.000Z',
      effective_to: 'effective to',
      months: { from: '2026-01-15T09:30:00.000Z', to: '2026-01-15T09:30:00.000Z' },
      items: [
        {
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          number: 'INV-2026-0042',
          status: 'status',
          period: '2026-01',
          old_total: 12000,
          new_total: 12000,
          difference: 1,
          changed_order_count: 1,
          unrateable_order_count: 1,
        },
      ],
      examined: 1,
      pagination: null,
    },
  },
  summary: 'Shows which usage invoices a pricing revision would change, and by how much, before it is saved (extension); writes nothing.',
  description: DESCRIPTION,
  request: PricingImpactRequest, response: RevisionImpact, error: 'billing.PricingImpactError',
  errors: configurationErrors.list(...IMPACT_ERRORS), access: 'billing_staff',
  async handle(ctx, req) {
    const { limit, cursor, ...body } = req;
    const input = await revisionInput(ctx, body);
    const state = await settled(ctx, input.subscription_id);
    // Decided as .insert decides it (every refusal the same), and not appended.
    const [event] = configurations.decide(ctx, { type: 'RevisePricing', data: { ...input, currency: body.currency, rates_bps: body.rates_bps, minimum_fee: body.minimum_fee } }, state);
    return impact(ctx, event, { limit, cursor });
  },
});

/** billing.configuration.baselines.preview-impact */
export const baselinesPreviewImpact = operation({
  id: 'billing.configuration.baselines.preview-impact', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      effective_from: '2026-01-15',
      reason: 'Agreed with the customer by phone',
      monthly_exempt_amount: 12000,
      currency: 'GBP',
    },
    response: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      currency: 'GBP',
      effective_from: '2026-01-15T09:30:00.000Z',
      effective_to: 'effective to',
      months: { from: '2026-01-15T09:30:00.000Z', to: '2026-01-15T09:30:00.000Z' },
      items: [
        {
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          number: 'INV-2026-0042',
          status: 'status',
          period: '2026-01',
          old_total: 12000,
          new_total: 12000,
          difference: 1,
          changed_order_count: 1,
          unrateable_order_count: 1,
        },
      ],
      examined: 1,
      pagination: null,
    },
  },
  summary: 'Shows which usage invoices a baseline revision would change, and by how much, before it is saved (extension); writes nothing.',
  description: DESCRIPTION,
  request: BaselineImpactRequest, response: RevisionImpact, error: 'billing.BaselineImpactError',
  errors: configurationErrors.list(...IMPACT_ERRORS), access: 'billing_staff',
  async handle(ctx, req) {
    const { limit, cursor, ...body } = req;
    const input = await revisionInput(ctx, body);
    const state = await settled(ctx, input.subscription_id);
    const [event] = configurations.decide(ctx, { type: 'ReviseBaseline', data: { ...input, monthly_exempt_amount: body.monthly_exempt_amount, currency: body.currency } }, state);
    return impact(ctx, event, { limit, cursor });
  },
});

/** Read-only previews of configuration revisions. */
export const revisionImpactOperations = [pricingPreviewImpact, baselinesPreviewImpact];
