// billing.configuration.baselines.insert and .pricing.insert: append or supersede an effective-dated revision (an audit record each).
import { operation } from '../../../contract/operation.ts';
import { BaselineDetail, BaselineWriteRequest, PricingRevisionDetail, PricingWriteRequest } from '../../../contract/schemas/billing-configuration.ts';
import { ProjectionLagError, type RequestContext } from '../../../context.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import type { RevisionInput } from '../../../domain/billing/configuration/revisions.ts';
import { billingConfigurationProjection } from '../../../projections/billing/configuration/configuration.ts';
import type { RevisionDoc } from '../../../projections/billing/configuration/configuration.ts';
import { enabledCurrencyCodes } from '../../../queries/billing/currencies.ts';
import { baselineBody, pricingBody } from '../../../queries/billing/configuration/details.ts';
import { revisionDocs } from '../../../queries/billing/configuration/configuration.ts';
import { configurations } from './handlers.ts';
import { writableSubscription } from './relationships.ts';

const WRITE_ERRORS = ['subscription_not_found', 'subscription_canceled', 'currency_not_enabled', 'invalid_range', 'invalid_supersedes', 'revision_overlap'] as const;
const SUPERSEDE =
  'effective_from is inclusive, effective_to exclusive (absent: open-ended). A range that overlaps revisions in force is refused (409 revision_overlap) unless they are named in supersedes: then the new revision takes over that part of them (ending or splitting them), and records what it took over. Reversed ranges are 400 invalid_range. Actor, reason and recorded_at form the audit record; earlier answers stay available through as_of. Billing staff only.';

/** The common part of a revision command, after the subscription and currency checks (the impact preview builds the same). */
export async function revisionInput(ctx: RequestContext, req: { subscription_id: string; effective_from: string; effective_to?: string | null; supersedes: string[]; reason: string; currency: string }): Promise<Omit<RevisionInput, 'now'>> {
  const sub = await writableSubscription(ctx, req.subscription_id);
  if (!(await enabledCurrencyCodes(ctx.services.knex)).has(req.currency)) throw configurationErrors.error('currency_not_enabled', `${req.currency} is not enabled for billing.`);
  return {
    revision_id: ctx.ids.next(),
    subscription_id: sub.id,
    organization_id: sub.organization_id,
    effective_from: new Date(req.effective_from).toISOString(),
    effective_to: req.effective_to ? new Date(req.effective_to).toISOString() : null,
    supersedes: [...new Set(req.supersedes)],
    actor: ctx.metadata.actor,
    reason: req.reason,
  };
}

/** The stored revision just written. */
async function written(ctx: RequestContext, id: string): Promise<RevisionDoc> {
  const doc = (await revisionDocs(ctx.services.knex, [id])).get(id);
  if (!doc) throw new ProjectionLagError([billingConfigurationProjection.name]);
  return doc;
}

export const baselinesInsert = operation({
  id: 'billing.configuration.baselines.insert', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      effective_from: '2026-01-15',
      reason: 'Agreed with the customer by phone',
      monthly_exempt_amount: 12000,
      currency: 'GBP',
    },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      sequence: 1,
      effective_from: '2026-01-15T09:30:00.000Z',
      effective_to: null,
      actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      reason: 'Agreed with the customer by phone',
      recorded_at: '2026-01-15T09:30:00.000Z',
      supersedes: [{ revision_id: '0193f476-7cdf-7c0e-8804-1514e5a94be8', effective_from: '2026-01-15T09:30:00.000Z', effective_to: null }],
      monthly_exempt_amount: 12000,
      currency: 'GBP',
    },
  },
  summary: 'Appends or supersedes an effective-dated baseline revision; writes an audit record.',
  description: `The seller's pre-existing monthly volume exempt from fees. ${SUPERSEDE}`,
  request: BaselineWriteRequest, response: BaselineDetail, error: 'billing.BaselineWriteError',
  errors: configurationErrors.list(...WRITE_ERRORS), access: 'billing_staff', write: true, readModels: [billingConfigurationProjection],
  async handle(ctx, req) {
    const input = await revisionInput(ctx, req);
    const res = await configurations.run(ctx, input.subscription_id, { type: 'ReviseBaseline', data: { ...input, monthly_exempt_amount: req.monthly_exempt_amount, currency: req.currency } }, { orgId: input.organization_id, reason: req.reason });
    await ctx.readYourWrites();
    const id = res.events[0]?.data.revision_id ?? input.revision_id;
    const doc = await written(ctx, id);
    if (doc.kind !== 'baseline') throw ctx.errors.error('invalid_request', `Revision ${id} is not a baseline.`);
    return baselineBody(doc);
  },
});

export const pricingInsert = operation({
  id: 'billing.configuration.pricing.insert', surface: 'core', tags: ['Billing'],
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
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      sequence: 1,
      effective_from: '2026-01-15T09:30:00.000Z',
      effective_to: null,
      actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      reason: 'Agreed with the customer by phone',
      recorded_at: '2026-01-15T09:30:00.000Z',
      supersedes: [{ revision_id: '0193f476-7cdf-7c0e-8804-1514e5a94be8', effective_from: '2026-01-15T09:30:00.000Z', effective_to: null }],
      currency: 'GBP',
      rates_bps: { platform_introduced: 1, pre_existing: 1 },
      minimum_fee: 1,
    },
  },
  summary: 'Appends or supersedes an effective-dated pricing policy; writes an audit record.',
  description: `Fee rates in basis points (0-10,000) per classification, minimum fee per charged order and currency. ${SUPERSEDE}`,
  request: PricingWriteRequest, response: PricingRevisionDetail, error: 'billing.PricingWriteError',
  errors: configurationErrors.list(...WRITE_ERRORS), access: 'billing_staff', write: true, readModels: [billingConfigurationProjection],
  async handle(ctx, req) {
    const input = await revisionInput(ctx, req);
    const res = await configurations.run(ctx, input.subscription_id, { type: 'RevisePricing', data: { ...input, currency: req.currency, rates_bps: req.rates_bps, minimum_fee: req.minimum_fee } }, { orgId: input.organization_id, reason: req.reason });
    await ctx.readYourWrites();
    const id = res.events[0]?.data.revision_id ?? input.revision_id;
    const doc = await written(ctx, id);
    if (doc.kind !== 'pricing') throw ctx.errors.error('invalid_request', `Revision ${id} is not a pricing revision.`);
    return pricingBody(doc);
  },
});
