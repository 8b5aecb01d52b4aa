// Loads a subscription's ConfigurationSnapshot from the configuration read models: three queries whatever the
// number of orders to rate (subscription, relationships, revisions), through the area's one table reader (configuration.ts).
import type { Knex } from 'knex';
import type { BaselineRevision, ConfigurationSnapshot, PricingRevision, RelationshipFacts } from '../../../domain/billing/configuration/snapshot.ts';
import type { RelationshipDoc, RevisionDoc } from '../../../projections/billing/configuration/configuration.ts';
import type { SubscriptionDoc } from '../../../projections/billing/subscriptions.ts';
import { subscriptionOrNotFound } from '../subscriptions.ts';
import { relationshipDocsOf, revisionDocsOf } from './configuration.ts';

/** What the loader needs of a context: a request context or a worker's services both fit. */
export interface SnapshotSource {
  services: { knex: Knex };
}

/** Narrows a snapshot to what resolving some events needs (answers on it equal those on the whole snapshot). */
export interface SnapshotScope {
  /** Only the relationships of these (seller, buyer) pairs. */
  pairs?: { seller: string; buyer: string }[];
  /** Only the revisions whose effective range contains one of these instants (ISO). */
  at?: string[];
}

/** The relationship facts of a stored relationship. */
export function relationshipFacts(doc: RelationshipDoc): RelationshipFacts {
  return { relationship_id: doc.relationship_id, seller: doc.seller, buyer: doc.buyer, recorded_at: doc.recorded_at, claims: doc.claims, evidence: doc.evidence };
}

/** Splits stored revisions into the snapshot's baseline and pricing lists (recording order). */
export function splitRevisions(docs: RevisionDoc[]): { baselines: BaselineRevision[]; pricing: PricingRevision[] } {
  const baselines: BaselineRevision[] = [];
  const pricing: PricingRevision[] = [];
  for (const d of [...docs].sort((a, b) => a.sequence - b.sequence)) {
    const common = { revision_id: d.revision_id, sequence: d.sequence, effective_from: d.effective_from, effective_to: d.effective_to, actor: d.actor, reason: d.reason, recorded_at: d.recorded_at, supersedes: d.supersedes };
    if (d.kind === 'baseline') baselines.push({ ...common, monthly_exempt_amount: d.monthly_exempt_amount, currency: d.currency });
    else pricing.push({ ...common, currency: d.currency, rates_bps: d.rates_bps, minimum_fee: d.minimum_fee });
  }
  return { baselines, pricing };
}

/** The stored subscription, or 404 subscription_not_found. */
export async function configuredSubscription(src: SnapshotSource, subscriptionId: string): Promise<SubscriptionDoc> {
  return subscriptionOrNotFound(src.services.knex, subscriptionId);
}

/** The stored documents a snapshot is made of (the subscription, its relationships and revisions, narrowed by `scope`). */
export async function loadSnapshotDocs(src: SnapshotSource, subscriptionId: string, scope: SnapshotScope = {}): Promise<{ subscription: SubscriptionDoc; relationships: RelationshipDoc[]; revisions: RevisionDoc[] }> {
  const knex = src.services.knex;
  const subscription = await configuredSubscription(src, subscriptionId);
  const relationships = await relationshipDocsOf(knex, subscriptionId, scope);
  const revisions = await revisionDocsOf(knex, subscriptionId, scope);
  return { subscription, relationships, revisions };
}

/** The snapshot of loaded documents. */
export function snapshotOf(docs: { subscription: SubscriptionDoc; relationships: RelationshipDoc[]; revisions: RevisionDoc[] }): ConfigurationSnapshot {
  return {
    subscription_id: docs.subscription.id,
    organization_id: docs.subscription.organization_id,
    relationships: docs.relationships.map(relationshipFacts),
    ...splitRevisions(docs.revisions),
  };
}

/**
 * Everything of `subscriptionId` needed to resolve and rate (404 subscription_not_found when unknown). Recorded
 * history is complete: `as_of` is applied by resolve/rateOrders, not here. `scope` narrows it for one resolve.
 */
export async function loadConfigurationSnapshot(src: SnapshotSource, subscriptionId: string, scope: SnapshotScope = {}): Promise<ConfigurationSnapshot> {
  return snapshotOf(await loadSnapshotDocs(src, subscriptionId, scope));
}
