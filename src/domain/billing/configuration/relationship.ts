// Relationship aggregate (`billingrelationship-<id>`): the canonical (subscription, seller, buyer), the seller's
// pre_existing claim, the staff decision on it and the evidence committed to it. The id is derived from the triple,
// so registering the same pair twice is the same stream (idempotent, no second event).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../../decider.ts';
import { nameId } from '../../../ids.ts';
import type { ClaimStatus } from './snapshot.ts';
import { configurationErrors } from './errors.ts';
import { EventId, EventInstant } from '../../event-fields.ts';

/** The relationship id of a (subscription, seller, buyer) triple. */
export function relationshipIdOf(subscriptionId: string, seller: string, buyer: string): string {
  return nameId('billing-relationship', `${subscriptionId}/${seller}/${buyer}`);
}

const Ref = { relationship_id: EventId, subscription_id: EventId };

/** Events of a relationship stream. */
export const relationshipEvents = eventSchemas({
  RelationshipRegistered: z.object({ ...Ref, organization_id: z.string(), seller: EventId, buyer: EventId, registered_at: EventInstant }),
  RelationshipClaimed: z.object({ ...Ref, reason: z.string(), claimed_at: EventInstant }),
  RelationshipClaimDecided: z.object({ ...Ref, decision: z.enum(['accepted', 'rejected']), reason: z.string(), decided_at: EventInstant }),
  RelationshipEvidenceCommitted: z.object({ ...Ref, evidence_id: z.string(), committed_at: z.string() }),
});

/** A relationship event (derived from `relationshipEvents`). */
export type RelationshipEvent = EventOf<typeof relationshipEvents>;

/** How relationship events are read. */
export const relationshipCodec = eventCodec(relationshipEvents);

/** What may be asked of a relationship. */
export type RelationshipCommand =
  | { type: 'RegisterRelationship'; data: { subscription_id: string; organization_id: string; seller: string; buyer: string; now: string } }
  | { type: 'ClaimPreExisting'; data: { reason: string; now: string } }
  | { type: 'DecideClaim'; data: { decision: 'accepted' | 'rejected'; reason: string; now: string } }
  | { type: 'CommitEvidence'; data: { evidence_id: string; now: string } };

/** What the relationship decider needs. */
export interface RelationshipState {
  relationship_id: string | null;
  subscription_id: string | null;
  claim: ClaimStatus;
  evidence: string[];
}

/**
 * Pure relationship decider. A claim may be made when there is none or the last was rejected; a decision needs a
 * pending claim, and acceptance needs committed evidence (committing evidence alone accepts nothing).
 */
export const relationshipDecider: Decider<RelationshipCommand, RelationshipEvent, RelationshipState> = {
  events: relationshipCodec,
  initialState: () => ({ relationship_id: null, subscription_id: null, claim: 'none', evidence: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'RelationshipRegistered':
        return { ...state, relationship_id: event.data.relationship_id, subscription_id: event.data.subscription_id };
      case 'RelationshipClaimed':
        return { ...state, claim: 'claimed' };
      case 'RelationshipClaimDecided':
        return { ...state, claim: event.data.decision };
      case 'RelationshipEvidenceCommitted':
        return { ...state, evidence: [...state.evidence, event.data.evidence_id] };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    if (command.type === 'RegisterRelationship') {
      const d = command.data;
      if (state.relationship_id) return [];
      if (d.seller === d.buyer) throw configurationErrors.error('invalid_relationship', 'A relationship needs two different organizations.');
      const relationship_id = relationshipIdOf(d.subscription_id, d.seller, d.buyer);
      return [{ type: 'RelationshipRegistered', data: { relationship_id, subscription_id: d.subscription_id, organization_id: d.organization_id, seller: d.seller, buyer: d.buyer, registered_at: d.now } }];
    }
    const { relationship_id, subscription_id } = state;
    if (!relationship_id || !subscription_id) throw configurationErrors.error('relationship_not_found', 'No such relationship.');
    const ref = { relationship_id, subscription_id };
    switch (command.type) {
      case 'ClaimPreExisting':
        if (state.claim === 'claimed') return [];
        if (state.claim === 'accepted') throw configurationErrors.error('invalid_claim_transition', 'The pre_existing claim is already accepted.');
        return [{ type: 'RelationshipClaimed', data: { ...ref, reason: command.data.reason, claimed_at: command.data.now } }];
      case 'DecideClaim': {
        const { decision, reason, now } = command.data;
        if (state.claim !== 'claimed') throw configurationErrors.error('invalid_claim_transition', `There is no pending pre_existing claim to decide (the claim is ${state.claim}).`);
        if (decision === 'accepted' && state.evidence.length === 0) throw configurationErrors.error('evidence_required', 'Commit evidence to the relationship before accepting its pre_existing claim.');
        return [{ type: 'RelationshipClaimDecided', data: { ...ref, decision, reason, decided_at: now } }];
      }
      case 'CommitEvidence':
        if (state.evidence.includes(command.data.evidence_id)) return [];
        return [{ type: 'RelationshipEvidenceCommitted', data: { ...ref, evidence_id: command.data.evidence_id, committed_at: command.data.now } }];
      default:
        return assertNever(command);
    }
  },
};
