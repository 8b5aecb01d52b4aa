// billing.configuration.resolve.get and billing.configuration.preview.get: answers from stored configuration, writing nothing.
import { operation } from '../../../contract/operation.ts';
import {
  ConfigurationPreviewRequest,
  ConfigurationPreviewResponse,
  ConfigurationResolveRequest,
  ConfigurationResolveResponse,
} from '../../../contract/schemas/billing-configuration.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import { type RatedOrder, rateOrders } from '../../../domain/billing/configuration/rating.ts';
import { resolve } from '../../../domain/billing/configuration/snapshot.ts';
import type { RevisionDoc } from '../../../projections/billing/configuration/configuration.ts';
import { baselineBody, pricingBody } from './details.ts';
import { configuredSubscription, loadConfigurationSnapshot, snapshotOf } from './snapshot.ts';
import { resolveDocs } from './configuration.ts';

/** The `as_of` of a request as an ISO instant: now by default; never after now (what is not yet known cannot be asked). */
export function asOfOf(now: Date, asOf: string | undefined): string {
  if (asOf === undefined) return now.toISOString();
  const t = new Date(asOf);
  if (t.getTime() > now.getTime()) throw configurationErrors.error('invalid_as_of', `as_of ${asOf} is in the future; ask for now or earlier.`);
  return t.toISOString();
}

export const configurationResolveGet = operation({
  id: 'billing.configuration.resolve.get', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      event: { seller: '01932e74-64a5-79ba-8192-f1251866fea0', buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab', occurred_at: '2026-01-15T09:30:00.000Z' },
    },
    response: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      event: { seller: '01932e74-64a5-79ba-8192-f1251866fea0', buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab', occurred_at: '2026-01-15T09:30:00.000Z' },
      as_of: '2026-01-15T09:30:00.000Z',
      classification: null,
      unclassifiable_reason: null,
      relationship: null,
      baseline: null,
      pricing: null,
    },
  },
  summary: 'Resolves stored classification, baseline and pricing for an event and period.',
  description: 'For one event (seller, buyer, occurred_at): the relationship and its classification, and the baseline and pricing revisions in force at occurred_at (effective time), as known at as_of (recorded time, default now). No relationship registered: platform_introduced. Billing staff only.',
  request: ConfigurationResolveRequest, response: ConfigurationResolveResponse, error: 'billing.ConfigurationResolveError',
  errors: configurationErrors.list('subscription_not_found', 'invalid_as_of'), access: 'billing_staff',
  async handle(ctx, req) {
    const asOf = asOfOf(ctx.now, req.as_of);
    const occurredAt = new Date(req.event.occurred_at).toISOString();
    const event = { seller: req.event.seller, buyer: req.event.buyer, occurred_at: occurredAt };
    // One relationship and at most one revision per kind: the snapshot narrowed to what this answer needs (two queries).
    const subscription = await configuredSubscription(ctx, req.subscription_id);
    const found = await resolveDocs(ctx.services.knex, subscription.id, event, occurredAt, asOf);
    const docs = { subscription, relationships: found.relationship ? [found.relationship] : [], revisions: [found.baseline, found.pricing].filter((d) => d !== null) };
    const r = resolve(snapshotOf(docs), event, asOf);
    const byId = new Map<string, RevisionDoc>(docs.revisions.map((d) => [d.revision_id, d]));
    const baseline = r.baseline && byId.get(r.baseline.revision_id);
    const pricing = r.pricing && byId.get(r.pricing.revision_id);
    return {
      subscription_id: req.subscription_id,
      event,
      as_of: asOf,
      classification: r.classification,
      unclassifiable_reason: r.unclassifiable_reason,
      relationship: r.relationship && {
        id: r.relationship.relationship_id,
        seller: r.relationship.seller,
        buyer: r.relationship.buyer,
        created_at: r.relationship.recorded_at,
        claim_status: r.relationship.claim_status,
        evidence_ids: r.relationship.evidence_ids,
      },
      baseline: baseline?.kind === 'baseline' ? baselineBody(baseline) : null,
      pricing: pricing?.kind === 'pricing' ? pricingBody(pricing) : null,
    };
  },
});

export const configurationPreviewGet = operation({
  id: 'billing.configuration.preview.get', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      samples: [
        {
          seller: '01932e74-64a5-79ba-8192-f1251866fea0',
          buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
          amount: 12000,
          occurred_at: '2026-01-15T09:30:00.000Z',
        },
      ],
    },
    response: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      as_of: '2026-01-15T09:30:00.000Z',
      items: [
        {
          order_id: '01931031-171c-7313-8102-495201e3e20f',
          seller: '01932e74-64a5-79ba-8192-f1251866fea0',
          buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
          amount: 12000,
          occurred_at: '2026-01-15T09:30:00.000Z',
          classification: 'platform_introduced',
          relationship_id: null,
          currency: 'GBP',
          rate_bps: 1,
          exempt_amount: 12000,
          chargeable_amount: 12000,
          minimum_fee: 1,
          fee: 1,
          baseline_revision_id: null,
          pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
        },
      ],
      totals: [{ currency: 'GBP', amount: 12000, fee: 1 }],
    },
  },
  summary: 'Rates hypothetical samples against stored configuration; writes nothing; fails closed when evidence is missing.',
  description: 'Rates the samples together exactly as invoicing rates the same orders (as known at as_of, default now). Fails closed: if any sample cannot be classified (a pre_existing claim without committed evidence or without a decision) or has no pricing in force, the answer is 409 usage_unrateable (as generate and re-rate answer for the same thing) whose issues name each such sample (samples.<index>) and why; no rating is given. Billing staff only.',
  request: ConfigurationPreviewRequest, response: ConfigurationPreviewResponse, error: 'billing.ConfigurationPreviewError',
  errors: configurationErrors.list('subscription_not_found', 'invalid_as_of', 'usage_unrateable'), access: 'billing_staff',
  async handle(ctx, req) {
    const asOf = asOfOf(ctx.now, req.as_of);
    const orders = req.samples.map((s, i) => ({ order_id: s.order_id ?? `sample-${i}`, seller: s.seller, buyer: s.buyer, amount: s.amount, occurred_at: new Date(s.occurred_at).toISOString() }));
    const seen = new Map<string, number>();
    orders.forEach((o, i) => {
      const first = seen.get(o.order_id);
      if (first !== undefined) throw ctx.errors.error('invalid_request', 'Sample order ids must be unique.', { issues: [{ path: `samples.${i}.order_id`, message: `${o.order_id} is also sample ${first}` }] });
      seen.set(o.order_id, i);
    });
    // Only the relationships of the samples' pairs (a seller may have thousands); every revision (the timeline needs them).
    const pairs = [...new Map(orders.map((o) => [`${o.seller}/${o.buyer}`, { seller: o.seller, buyer: o.buyer }])).values()];
    const snapshot = await loadConfigurationSnapshot(ctx, req.subscription_id, { pairs });
    const ratings = rateOrders(snapshot, orders, asOf);
    const issues = ratings.flatMap((r, i) => (r.status === 'unrateable' ? r.reasons.map((why) => ({ path: `samples.${i}`, message: `${r.order_id}: ${why.code}: ${why.message}` })) : []));
    if (issues.length > 0) throw ctx.errors.error('usage_unrateable', `${new Set(issues.map((i) => i.path)).size} sample(s) cannot be rated; nothing is rated.`, { issues });
    const items = ratings.filter((r): r is RatedOrder => r.status === 'rated').map(({ status: _status, ...rest }) => rest);
    const totals = new Map<string, { currency: string; amount: number; fee: number }>();
    for (const it of items) {
      const t = totals.get(it.currency) ?? { currency: it.currency, amount: 0, fee: 0 };
      totals.set(it.currency, { currency: it.currency, amount: t.amount + it.amount, fee: t.fee + it.fee });
    }
    return { subscription_id: req.subscription_id, as_of: asOf, items, totals: [...totals.values()] };
  },
});
