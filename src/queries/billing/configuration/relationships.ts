// billing.configuration.relationships.list, reading billing_config_relationships.
import { z } from 'zod';
import { operation } from '../../../api/operation.ts';
import { RelationshipDetail, RelationshipListRequest } from '../../../api/schemas/billing-configuration.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import type { RelationshipDoc } from '../../../projections/billing/configuration/configuration.ts';
import { relationshipBody, relationshipDoc } from './details.ts';
import { configuredSubscription } from './snapshot.ts';

export const relationshipsList = operation({
  id: 'billing.configuration.relationships.list', surface: 'core', tags: ['Billing'],
  summary: 'Lists relationships for a subscription.',
  description: 'Oldest first, at most `limit` (default and maximum 1000); continue with starting_after = the last id. Filters: buyer, claim_status. Billing staff only.',
  request: RelationshipListRequest, response: z.array(RelationshipDetail), error: 'billing.RelationshipListError',
  errors: configurationErrors.list('subscription_not_found', 'relationship_not_found'), access: 'billing_staff',
  async handle(ctx, req) {
    await configuredSubscription(ctx, req.subscription_id);
    const q = ctx.services.knex('billing_config_relationships').where({ subscription_id: req.subscription_id }).select('doc').orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(req.limit);
    if (req.buyer) q.where({ buyer: req.buyer });
    if (req.claim_status) q.whereRaw(`doc->>'claim_status' = ?`, [req.claim_status]);
    if (req.starting_after) {
      const after = await relationshipDoc(ctx, req.starting_after);
      if (!after || after.subscription_id !== req.subscription_id) throw configurationErrors.error('relationship_not_found', `starting_after: no relationship ${req.starting_after} on this subscription.`);
      q.whereRaw('(created_at, id) > (?::timestamptz, ?::uuid)', [after.recorded_at, after.relationship_id]);
    }
    return ((await q) as { doc: RelationshipDoc }[]).map((r) => relationshipBody(r.doc, ctx.now));
  },
});
