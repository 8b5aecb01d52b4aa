// billing_config_relationships, billing_config_revisions and billing_config_history: the read models of
// billing configuration, read only by queries/billing/configuration/*. Documents keep both time axes.
import { eventCodec } from '../../../domain/decider.ts';
import { type RelationshipEvent, relationshipCodec, relationshipEvents } from '../../../domain/billing/configuration/relationship.ts';
import { type RevisionEvent, type Superseded, revisionCodec, revisionEvents } from '../../../domain/billing/configuration/revisions.ts';
import type { ActorRef, BaselineRevision, ClaimStatus, PricingRevision, RelationshipFacts } from '../../../domain/billing/configuration/snapshot.ts';
import { documentProjection, documentTable } from '../../documents/projection.ts';

/** A stored relationship: its whole story (claims, evidence commits) plus where the claim stands now. */
export interface RelationshipDoc extends RelationshipFacts {
  subscription_id: string;
  organization_id: string;
  claim_status: ClaimStatus;
  updated_at: string;
}

/** Fields a stored revision has besides its kind's. */
interface RevisionDocBase {
  subscription_id: string;
  organization_id: string;
  /** The parts of earlier revisions this one took over. */
  superseded: Superseded[];
}

/** A stored revision of either kind. */
export type RevisionDoc = (BaselineRevision & RevisionDocBase & { kind: 'baseline' }) | (PricingRevision & RevisionDocBase & { kind: 'pricing' });

/** One entry of a subscription's configuration history. */
export interface HistoryDoc {
  id: string;
  subscription_id: string;
  kind: 'baseline' | 'pricing' | 'relationship_claim' | 'relationship_decision';
  recorded_at: string;
  actor: ActorRef;
  reason: string;
  revision_id: string | null;
  relationship_id: string | null;
  /** What the change took over (revisions; empty for relationship entries). */
  superseded: Superseded[];
  /** The claim status the relationship moved to (relationship entries), else null. */
  claim_status: ClaimStatus | null;
  /** The revision recorded (revision entries), else null. */
  revision: RevisionDoc | null;
}

/** The stored revision of a recorded revision event. */
export function revisionDocOf(event: RevisionEvent): RevisionDoc {
  const parts = { superseded: event.data.supersedes, supersedes: event.data.supersedes.map((s) => s.revision_id) };
  return event.type === 'BaselineRevisionRecorded' ? { ...event.data, kind: 'baseline', ...parts } : { ...event.data, kind: 'pricing', ...parts };
}

const historyCodec = eventCodec({ ...relationshipEvents, ...revisionEvents });

/** Builds the configuration read models from relationship and configuration events. */
export const billingConfigurationProjection = documentProjection({
  name: 'billing.configuration/configuration',
  version: 1,
  tables: [
    documentTable<RelationshipDoc, RelationshipEvent>({
      table: 'billing_config_relationships',
      events: relationshipCodec,
      columns: (d) => ({ subscription_id: d.subscription_id, seller: d.seller, buyer: d.buyer, created_at: d.recorded_at }),
      handlers: {
        RelationshipRegistered: (_doc, d) => ({
          relationship_id: d.relationship_id,
          subscription_id: d.subscription_id,
          organization_id: d.organization_id,
          seller: d.seller,
          buyer: d.buyer,
          recorded_at: d.registered_at,
          claims: [],
          evidence: [],
          claim_status: 'none',
          updated_at: d.registered_at,
        }),
        RelationshipClaimed: (doc, d, e) =>
          doc && { ...doc, claim_status: 'claimed', claims: [...doc.claims, { status: 'claimed', actor: e.metadata.actor, reason: d.reason, recorded_at: d.claimed_at }], updated_at: d.claimed_at },
        RelationshipClaimDecided: (doc, d, e) =>
          doc && { ...doc, claim_status: d.decision, claims: [...doc.claims, { status: d.decision, actor: e.metadata.actor, reason: d.reason, recorded_at: d.decided_at }], updated_at: d.decided_at },
        RelationshipEvidenceCommitted: (doc, d) => doc && { ...doc, evidence: [...doc.evidence, { evidence_id: d.evidence_id, committed_at: d.committed_at }], updated_at: d.committed_at },
      },
    }),
    documentTable<RevisionDoc, RevisionEvent>({
      table: 'billing_config_revisions',
      events: revisionCodec,
      keyOf: (_e, read) => read.data.revision_id,
      columns: (d) => ({
        subscription_id: d.subscription_id,
        kind: d.kind,
        sequence: d.sequence,
        effective_from: d.effective_from,
        effective_to: d.effective_to,
        recorded_at: d.recorded_at,
      }),
      handlers: {
        BaselineRevisionRecorded: (_doc, data) => revisionDocOf({ type: 'BaselineRevisionRecorded', data }),
        PricingRevisionRecorded: (_doc, data) => revisionDocOf({ type: 'PricingRevisionRecorded', data }),
      },
    }),
    documentTable<HistoryDoc, RelationshipEvent | RevisionEvent>({
      table: 'billing_config_history',
      events: historyCodec,
      keyOf: (e) => e.id,
      columns: (d) => ({ subscription_id: d.subscription_id, recorded_at: d.recorded_at }),
      handlers: {
        BaselineRevisionRecorded: (_doc, data, e) => revisionEntry(e.id, revisionDocOf({ type: 'BaselineRevisionRecorded', data })),
        PricingRevisionRecorded: (_doc, data, e) => revisionEntry(e.id, revisionDocOf({ type: 'PricingRevisionRecorded', data })),
        RelationshipClaimed: (_doc, d, e) => relationshipEntry(e.id, 'relationship_claim', d, e.metadata.actor, d.claimed_at, 'claimed'),
        RelationshipClaimDecided: (_doc, d, e) => relationshipEntry(e.id, 'relationship_decision', d, e.metadata.actor, d.decided_at, d.decision),
      },
    }),
  ],
});

function revisionEntry(id: string, r: RevisionDoc): HistoryDoc {
  return {
    id,
    subscription_id: r.subscription_id,
    kind: r.kind,
    recorded_at: r.recorded_at,
    actor: r.actor,
    reason: r.reason,
    revision_id: r.revision_id,
    relationship_id: null,
    superseded: r.superseded,
    claim_status: null,
    revision: r,
  };
}

function relationshipEntry(
  id: string,
  kind: 'relationship_claim' | 'relationship_decision',
  d: { relationship_id: string; subscription_id: string; reason: string },
  actor: ActorRef,
  at: string,
  status: ClaimStatus,
): HistoryDoc {
  return { id, subscription_id: d.subscription_id, kind, recorded_at: at, actor, reason: d.reason, revision_id: null, relationship_id: d.relationship_id, superseded: [], claim_status: status, revision: null };
}
