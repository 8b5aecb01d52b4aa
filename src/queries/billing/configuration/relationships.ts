// billing.configuration.relationships.list: a subscription's relationships, oldest first, filtered and sliced.
import { z } from 'zod';
import { operation } from '../../../contract/operation.ts';
import { RelationshipDetail, RelationshipListRequest } from '../../../contract/schemas/billing-configuration.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import type { RelationshipDoc } from '../../../projections/billing/configuration/configuration.ts';
import { relationshipBody } from './details.ts';
import { relationshipDoc, relationshipSlice } from './configuration.ts';
import { configuredSubscription } from './snapshot.ts';

export const relationshipsList = operation({
  id: 'billing.configuration.relationships.list', surface: 'core', tags: ['Billing'],
  examples: {
    request: { subscription_id: '01938c3e-00eb-7021-83ca-a1174cd5d9dd' },
    response: [
      {
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
    ],
  },
  summary: 'Lists relationships for a subscription.',
  description: 'Oldest first, at most `limit` (default and maximum 1000); continue with starting_after = the last id. Filters: buyer, claim_status. Billing staff only.',
  request: RelationshipListRequest, response: z.array(RelationshipDetail), error: 'billing.RelationshipListError',
  errors: configurationErrors.list('subscription_not_found', 'relationship_not_found'), access: 'billing_staff',
  async handle(ctx, req) {
    await configuredSubscription(ctx, req.subscription_id);
    let after: RelationshipDoc | undefined;
    if (req.starting_after) {
      const doc = await relationshipDoc(ctx.services.knex, req.starting_after);
      if (!doc || doc.subscription_id !== req.subscription_id) throw ctx.errors.error('relationship_not_found', `starting_after: no relationship ${req.starting_after} on this subscription.`);
      after = doc;
    }
    const docs = await relationshipSlice(ctx.services.knex, req.subscription_id, { limit: req.limit, buyer: req.buyer, claim_status: req.claim_status, after });
    return docs.map((d) => relationshipBody(d, ctx.now));
  },
});
