// billing.configuration.relationships.insert (idempotent per pair) and .update (extension: the pre_existing claim and its decision).
import { operation } from '../../../contract/operation.ts';
import { RelationshipDetail, RelationshipInsertRequest, RelationshipUpdateRequest } from '../../../contract/schemas/billing-configuration.ts';
import type { RequestContext } from '../../../context.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import { type RelationshipCommand, relationshipIdOf } from '../../../domain/billing/configuration/relationship.ts';
import type { Unstamped } from '../../run.ts';
import { billingConfigurationProjection } from '../../../projections/billing/configuration/configuration.ts';
import type { SubscriptionDoc } from '../../../projections/billing/subscriptions.ts';
import { relationshipBody, relationshipOrNotFound } from '../../../queries/billing/configuration/details.ts';
import { configuredSubscription } from '../../../queries/billing/configuration/snapshot.ts';
import { getOrganization } from '../../../queries/identity/identity.ts';
import { relationships } from './handlers.ts';

/** The subscription a configuration write is for: 404 when unknown, 409 when canceled. */
export async function writableSubscription(ctx: RequestContext, id: string): Promise<SubscriptionDoc> {
  const sub = await configuredSubscription(ctx, id);
  if (sub.status === 'canceled') throw configurationErrors.error('subscription_canceled', `Subscription ${id} is canceled; its configuration no longer changes.`);
  return sub;
}

export const relationshipsInsert = operation({
  id: 'billing.configuration.relationships.insert', surface: 'core', tags: ['Billing'],
  examples: {
    request: {
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      seller: '01932e74-64a5-79ba-8192-f1251866fea0',
      buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
    },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      seller: '01932e74-64a5-79ba-8192-f1251866fea0',
      buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
      classification: null,
      claim_status: 'none',
      claims: [
        {
          status: 'claimed',
          actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          reason: 'Agreed with the customer by phone',
          recorded_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      evidence_count: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  summary: 'Registers a canonical seller/buyer relationship; idempotent.',
  description: 'Registers (subscription, seller, buyer): the seller is the subscription\'s organization, the buyer another existing organization. Registering the same pair again returns the same relationship and records nothing. New relationships are platform_introduced. Billing staff only.',
  request: RelationshipInsertRequest, response: RelationshipDetail, error: 'billing.RelationshipInsertError',
  errors: configurationErrors.list('subscription_not_found', 'subscription_canceled', 'organization_not_found', 'invalid_relationship'), access: 'billing_staff', write: true, readModels: [billingConfigurationProjection],
  async handle(ctx, req) {
    if (req.seller === req.buyer) throw ctx.errors.error('invalid_relationship', 'A relationship needs two different organizations: seller and buyer are the same.');
    const sub = await writableSubscription(ctx, req.subscription_id);
    if (req.seller !== sub.organization_id) throw ctx.errors.error('invalid_relationship', `The seller must be the subscription's organization (${sub.organization_id}).`);
    if (!(await getOrganization(ctx.services.knex, req.buyer))) throw ctx.errors.error('organization_not_found', `No organization ${req.buyer}.`);
    const id = relationshipIdOf(sub.id, req.seller, req.buyer);
    await relationships.run(ctx, id, { type: 'RegisterRelationship', data: { subscription_id: sub.id, organization_id: sub.organization_id, seller: req.seller, buyer: req.buyer } }, { orgId: sub.organization_id });
    await ctx.readYourWrites();
    return relationshipBody(await relationshipOrNotFound(ctx, id), ctx.now);
  },
});

const ACTIONS: Record<'claim_pre_existing' | 'accept_claim' | 'reject_claim', (reason: string) => Unstamped<RelationshipCommand>> = {
  claim_pre_existing: (reason) => ({ type: 'ClaimPreExisting', data: { reason } }),
  accept_claim: (reason) => ({ type: 'DecideClaim', data: { decision: 'accepted', reason } }),
  reject_claim: (reason) => ({ type: 'DecideClaim', data: { decision: 'rejected', reason } }),
};

export const relationshipsUpdate = operation({
  id: 'billing.configuration.relationships.update', surface: 'core', tags: ['Billing'],
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70', action: 'claim_pre_existing', reason: 'Agreed with the customer by phone' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
      seller: '01932e74-64a5-79ba-8192-f1251866fea0',
      buyer: '01939b16-5e49-7a3c-8629-a2dce8f7d7ab',
      classification: null,
      claim_status: 'none',
      claims: [
        {
          status: 'claimed',
          actor: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          reason: 'Agreed with the customer by phone',
          recorded_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      evidence_count: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  summary: 'Records a seller\'s pre_existing claim or the staff decision on it (extension).',
  description: 'claim_pre_existing (when unclaimed or after a rejection; repeating a pending claim records nothing), accept_claim (needs committed evidence: 409 evidence_required) or reject_claim (both need a pending claim: 409 invalid_claim_transition). Each is an event with actor and reason. Billing staff only.',
  request: RelationshipUpdateRequest, response: RelationshipDetail, error: 'billing.RelationshipUpdateError',
  errors: configurationErrors.list('relationship_not_found', 'subscription_not_found', 'subscription_canceled', 'invalid_claim_transition', 'evidence_required'), access: 'billing_staff', write: true, readModels: [billingConfigurationProjection],
  async handle(ctx, req) {
    const doc = await relationshipOrNotFound(ctx, req.id);
    await writableSubscription(ctx, doc.subscription_id);
    await relationships.run(ctx, req.id, ACTIONS[req.action](req.reason), { orgId: doc.organization_id, reason: req.reason });
    await ctx.readYourWrites();
    return relationshipBody(await relationshipOrNotFound(ctx, req.id), ctx.now);
  },
});
