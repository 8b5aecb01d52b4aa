// API bodies of stored relationships and revisions (billing.RelationshipDetail, billing.BaselineDetail, billing.PricingRevisionDetail).
import type { z } from 'zod';
import type { BaselineDetail, PricingRevisionDetail, RelationshipDetail } from '../../../contract/schemas/billing-configuration.ts';
import { classify, relationshipAsOf } from '../../../domain/billing/configuration/snapshot.ts';
import { configurationErrors } from '../../../domain/billing/configuration/errors.ts';
import type { RelationshipDoc, RevisionDoc } from '../../../projections/billing/configuration/configuration.ts';
import type { SnapshotSource } from './snapshot.ts';
import { relationshipFacts } from './snapshot.ts';
import { relationshipDoc } from './configuration.ts';

/** billing.RelationshipDetail of a stored relationship, classified as known at `now`. */
export function relationshipBody(doc: RelationshipDoc, now: Date): z.input<typeof RelationshipDetail> {
  const known = relationshipAsOf(relationshipFacts(doc), now.getTime());
  return {
    id: doc.relationship_id,
    subscription_id: doc.subscription_id,
    seller: doc.seller,
    buyer: doc.buyer,
    classification: classify(known).classification,
    claim_status: doc.claim_status,
    claims: doc.claims,
    evidence_count: doc.evidence.length,
    created_at: doc.recorded_at,
    updated_at: doc.updated_at,
  };
}

/** A stored relationship by id, or 404 relationship_not_found. */
export async function relationshipOrNotFound(src: SnapshotSource, id: string): Promise<RelationshipDoc> {
  const doc = await relationshipDoc(src.services.knex, id);
  if (!doc) throw configurationErrors.error('relationship_not_found', `No relationship ${id}.`);
  return doc;
}

/** The common fields of a revision body. */
function revisionCommon(doc: RevisionDoc) {
  return {
    id: doc.revision_id,
    subscription_id: doc.subscription_id,
    sequence: doc.sequence,
    effective_from: doc.effective_from,
    effective_to: doc.effective_to,
    actor: doc.actor,
    reason: doc.reason,
    recorded_at: doc.recorded_at,
    supersedes: doc.superseded,
  };
}

/** billing.BaselineDetail of a stored baseline revision. */
export function baselineBody(doc: RevisionDoc & { kind: 'baseline' }): z.input<typeof BaselineDetail> {
  return { ...revisionCommon(doc), monthly_exempt_amount: doc.monthly_exempt_amount, currency: doc.currency };
}

/** billing.PricingRevisionDetail of a stored pricing revision. */
export function pricingBody(doc: RevisionDoc & { kind: 'pricing' }): z.input<typeof PricingRevisionDetail> {
  return { ...revisionCommon(doc), currency: doc.currency, rates_bps: doc.rates_bps, minimum_fee: doc.minimum_fee };
}
