// billing.configuration/configuration, given a relationship's story and two revisions: the relationship keeps claims and
// evidence with their times, revisions keep what they superseded, history has one entry per revision, claim and decision.
import { backends } from '../../support/db.ts';
import type { RelationshipEvent } from '../../../src/domain/billing/configuration/relationship.ts';
import type { RevisionEvent } from '../../../src/domain/billing/configuration/revisions.ts';
import { billingConfigurationProjection } from '../../../src/projections/billing/configuration/configuration.ts';
import { SPEC_ACTOR, on, projectionSpec } from '../spec.ts';

const SUB = '0190c6a2-0000-7000-8000-0000000000b1';
const ORG = '0190c6a2-0000-7000-8000-0000000000f1';
const BUYER = '0190c6a2-0000-7000-8000-0000000000f2';
const REL = '0190c6a2-0000-5000-8000-0000000000a1';
const P1 = '0190c6a2-0000-7000-8000-0000000000d1';
const P2 = '0190c6a2-0000-7000-8000-0000000000d2';
const STAFF = { type: 'staff' as const, id: '0190c6a2-0000-7000-8000-00000000f002' };
const ref = { relationship_id: REL, subscription_id: SUB };
const eventId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const story: RelationshipEvent[] = [
  { type: 'RelationshipRegistered', data: { ...ref, organization_id: ORG, seller: ORG, buyer: BUYER, registered_at: '2026-01-15T09:00:00.000Z' } },
  { type: 'RelationshipClaimed', data: { ...ref, reason: 'since 2019', claimed_at: '2026-01-15T09:01:00.000Z' } },
  { type: 'RelationshipEvidenceCommitted', data: { ...ref, evidence_id: '0190c6a2-0000-7000-8000-0000000000e1', committed_at: '2026-01-15T09:02:00.000Z' } },
  { type: 'RelationshipClaimDecided', data: { ...ref, decision: 'accepted', reason: 'contract seen', decided_at: '2026-01-15T09:03:00.000Z' } },
];

const revision = { subscription_id: SUB, organization_id: ORG, actor: STAFF, currency: 'GBP', rates_bps: { platform_introduced: 500, pre_existing: 100 }, minimum_fee: 0 };
const p1: RevisionEvent = { type: 'PricingRevisionRecorded', data: { ...revision, revision_id: P1, sequence: 1, effective_from: '2026-01-01T00:00:00.000Z', effective_to: null, reason: 'launch', recorded_at: '2026-01-15T09:04:00.000Z', supersedes: [] } };
const taken = { revision_id: P1, effective_from: '2026-03-01T00:00:00.000Z', effective_to: '2026-04-01T00:00:00.000Z' };
const p2: RevisionEvent = { type: 'PricingRevisionRecorded', data: { ...revision, revision_id: P2, sequence: 2, effective_from: '2026-03-01T00:00:00.000Z', effective_to: '2026-04-01T00:00:00.000Z', reason: 'spring', recorded_at: '2026-01-15T09:05:00.000Z', supersedes: [taken] } };

const relationshipDoc = {
  ...ref, organization_id: ORG, seller: ORG, buyer: BUYER, recorded_at: '2026-01-15T09:00:00.000Z', claim_status: 'accepted', updated_at: '2026-01-15T09:03:00.000Z',
  claims: [
    { status: 'claimed', actor: SPEC_ACTOR, reason: 'since 2019', recorded_at: '2026-01-15T09:01:00.000Z' },
    { status: 'accepted', actor: STAFF, reason: 'contract seen', recorded_at: '2026-01-15T09:03:00.000Z' },
  ],
  evidence: [{ evidence_id: '0190c6a2-0000-7000-8000-0000000000e1', committed_at: '2026-01-15T09:02:00.000Z' }],
};
const p1Doc = { ...p1.data, kind: 'pricing', superseded: [], supersedes: [] };
const p2Doc = { ...p2.data, kind: 'pricing', superseded: [taken], supersedes: [P1] };
const entry = { subscription_id: SUB, superseded: [], revision: null, revision_id: null };

for (const backend of backends()) {
  describe(`billing configuration projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a relationship keeps its claims (who, why, when) and evidence commits; history has the claim and the decision', async () => {
      const given = [...on<RelationshipEvent>(`billingrelationship-${REL}`, story.slice(0, 3)), ...on<RelationshipEvent>(`billingrelationship-${REL}`, story.slice(3), { actor: STAFF })];
      await spec.given(billingConfigurationProjection, given).then({
        billing_config_relationships: [relationshipDoc],
        billing_config_history: [
          { ...entry, id: eventId(2), kind: 'relationship_claim', recorded_at: '2026-01-15T09:01:00.000Z', actor: SPEC_ACTOR, reason: 'since 2019', relationship_id: REL, claim_status: 'claimed' },
          { ...entry, id: eventId(4), kind: 'relationship_decision', recorded_at: '2026-01-15T09:03:00.000Z', actor: STAFF, reason: 'contract seen', relationship_id: REL, claim_status: 'accepted' },
        ],
      });
    });

    it('revisions are stored as recorded, each with what it superseded, and each is a history entry', async () => {
      await spec.given(billingConfigurationProjection, on<RevisionEvent>(`billingconfiguration-${SUB}`, [p1, p2], { actor: STAFF })).then({
        billing_config_revisions: [p1Doc, p2Doc],
        billing_config_history: [
          { ...entry, id: eventId(1), kind: 'pricing', recorded_at: p1.data.recorded_at, actor: STAFF, reason: 'launch', revision_id: P1, relationship_id: null, claim_status: null, revision: p1Doc },
          { ...entry, id: eventId(2), kind: 'pricing', recorded_at: p2.data.recorded_at, actor: STAFF, reason: 'spring', revision_id: P2, relationship_id: null, claim_status: null, superseded: [taken], revision: p2Doc },
        ],
      });
    });
  });
}
