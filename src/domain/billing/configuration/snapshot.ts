// Everything of one subscription's billing configuration needed to resolve and rate, as plain data with
// both time axes: effective time (effective_from/effective_to) and recorded time (recorded_at). Pure: no I/O.
// A revision supersedes, from its date, whatever earlier-recorded revisions cover (painter's rule), so the
// revisions known at `as_of` always form one timeline without overlaps.

/** How an order's relationship classifies it. */
export type Classification = 'platform_introduced' | 'pre_existing';

/** Where a relationship's `pre_existing` claim stands. */
export type ClaimStatus = 'none' | 'claimed' | 'accepted' | 'rejected';

/** Who did something (the event metadata's actor). */
export interface ActorRef {
  type: 'user' | 'staff' | 'integration' | 'system';
  id: string;
}

/** One recorded change of a relationship's claim: the seller's claim, or the staff decision on it. */
export interface ClaimChange {
  status: Exclude<ClaimStatus, 'none'>;
  actor: ActorRef;
  reason: string | null;
  recorded_at: string;
}

/** One evidence file committed to a relationship, and when. */
export interface EvidenceCommit {
  evidence_id: string;
  committed_at: string;
}

/** A relationship with its whole recorded story (claims in recorded order, evidence commits). */
export interface RelationshipFacts {
  relationship_id: string;
  seller: string;
  buyer: string;
  recorded_at: string;
  claims: ClaimChange[];
  evidence: EvidenceCommit[];
}

/** Fields every effective-dated revision has; `sequence` orders revisions of one kind by recording (1, 2, ...). */
export interface RevisionFacts {
  revision_id: string;
  sequence: number;
  effective_from: string;
  /** Exclusive; null: open-ended. */
  effective_to: string | null;
  actor: ActorRef;
  reason: string;
  recorded_at: string;
  /** Revisions whose effective range this one took over (in part or whole) when it was recorded. */
  supersedes: string[];
}

/** A baseline revision: the seller's pre-existing monthly volume that is exempt, in minor units of `currency`. */
export interface BaselineRevision extends RevisionFacts {
  monthly_exempt_amount: number;
  currency: string;
}

/** Basis points of order value per classification (0..10,000). */
export interface RatesBps {
  platform_introduced: number;
  pre_existing: number;
}

/** A pricing revision: rates per classification, a minimum fee per charged order (minor units), the currency. */
export interface PricingRevision extends RevisionFacts {
  currency: string;
  rates_bps: RatesBps;
  minimum_fee: number;
}

/** One subscription's configuration (possibly narrowed to some pairs / instants by the loader; resolve answers the same on them). */
export interface ConfigurationSnapshot {
  subscription_id: string;
  organization_id: string;
  relationships: RelationshipFacts[];
  baselines: BaselineRevision[];
  pricing: PricingRevision[];
}

/** What resolve is asked: one event of the seller with the buyer at `occurred_at`. */
export interface ResolveEvent {
  seller: string;
  buyer: string;
  occurred_at: string;
}

/** Why an event cannot be classified. */
export type UnclassifiableReason = 'claim_pending' | 'claim_without_evidence';

/** A relationship as known at `as_of`. */
export interface RelationshipAsOf {
  relationship_id: string;
  seller: string;
  buyer: string;
  recorded_at: string;
  claim_status: ClaimStatus;
  /** The last claim change known at `as_of` (null: never claimed). */
  last_claim_change: ClaimChange | null;
  /** Evidence committed by `as_of`. */
  evidence_ids: string[];
}

/** The answer of resolve: classification (null when unclassifiable, with the reason), relationship and the revisions in force. */
export interface Resolution {
  classification: Classification | null;
  unclassifiable_reason: UnclassifiableReason | null;
  relationship: RelationshipAsOf | null;
  baseline: BaselineRevision | null;
  pricing: PricingRevision | null;
}

/** Milliseconds of an ISO instant; NaN when it is not one. */
export function instant(iso: string): number {
  return Date.parse(iso);
}

/** The key of a (seller, buyer) pair. */
export function pairKey(seller: string, buyer: string): string {
  return `${seller}\u0000${buyer}`;
}

/** A relationship as known at `asOfMs` (null when it was recorded later). */
export function relationshipAsOf(rel: RelationshipFacts, asOfMs: number): RelationshipAsOf | null {
  if (instant(rel.recorded_at) > asOfMs) return null;
  let last: ClaimChange | null = null;
  for (const c of rel.claims) if (instant(c.recorded_at) <= asOfMs) last = c;
  const evidence_ids = rel.evidence.filter((e) => instant(e.committed_at) <= asOfMs).map((e) => e.evidence_id);
  return {
    relationship_id: rel.relationship_id,
    seller: rel.seller,
    buyer: rel.buyer,
    recorded_at: rel.recorded_at,
    claim_status: last?.status ?? 'none',
    last_claim_change: last,
    evidence_ids,
  };
}

/**
 * Classification of a relationship known at `as_of`: none or no claim or a rejected claim -> platform_introduced;
 * a claim without a decision -> unclassifiable (claim_pending); accepted -> pre_existing only with committed evidence.
 */
export function classify(rel: RelationshipAsOf | null): { classification: Classification | null; reason: UnclassifiableReason | null } {
  switch (rel?.claim_status ?? 'none') {
    case 'none':
    case 'rejected':
      return { classification: 'platform_introduced', reason: null };
    case 'claimed':
      return { classification: null, reason: 'claim_pending' };
    case 'accepted':
      return rel && rel.evidence_ids.length > 0 ? { classification: 'pre_existing', reason: null } : { classification: null, reason: 'claim_without_evidence' };
  }
}

/** One piece of a timeline: revision `revision` is in force on [from, to) (ms; to may be Infinity). */
export interface Segment<R> {
  from: number;
  to: number;
  revision: R;
}

/**
 * The timeline of revisions known at `asOfMs`: each, in recording order, takes over its range from what is already there.
 * Sorted by `from`, no overlaps. O(n^2) in the worst case; a subscription has hundreds, not millions, of revisions.
 */
export function timeline<R extends RevisionFacts>(revisions: readonly R[], asOfMs: number): Segment<R>[] {
  const known = revisions.filter((r) => instant(r.recorded_at) <= asOfMs).sort((a, b) => a.sequence - b.sequence);
  let segs: Segment<R>[] = [];
  for (const r of known) {
    const from = instant(r.effective_from);
    const to = r.effective_to === null ? Infinity : instant(r.effective_to);
    const next: Segment<R>[] = [];
    for (const s of segs) {
      if (s.to <= from || s.from >= to) next.push(s);
      else {
        if (s.from < from) next.push({ from: s.from, to: from, revision: s.revision });
        if (s.to > to) next.push({ from: to, to: s.to, revision: s.revision });
      }
    }
    next.push({ from, to, revision: r });
    segs = next.sort((a, b) => a.from - b.from);
  }
  return segs;
}

/** The revision in force at `atMs` on a timeline (binary search), or null. */
export function inForce<R>(segments: readonly Segment<R>[], atMs: number): R | null {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = segments[mid];
    if (s === undefined) return null;
    if (atMs < s.from) hi = mid - 1;
    else if (atMs >= s.to) lo = mid + 1;
    else return s.revision;
  }
  return null;
}

/** The revision of `revisions` in force at `atMs` as known at `asOfMs`: the latest-recorded one covering the instant. */
export function revisionAt<R extends RevisionFacts>(revisions: readonly R[], atMs: number, asOfMs: number): R | null {
  let best: R | null = null;
  for (const r of revisions) {
    if (instant(r.recorded_at) > asOfMs || instant(r.effective_from) > atMs) continue;
    if (r.effective_to !== null && instant(r.effective_to) <= atMs) continue;
    if (best === null || r.sequence > best.sequence) best = r;
  }
  return best;
}

/**
 * Resolves one event: the relationship of (seller, buyer) known at `asOf` and its classification, and the baseline
 * and pricing revisions in force at `occurred_at` as known at `asOf` (ISO instants). No relationship: platform_introduced.
 */
export function resolve(snapshot: ConfigurationSnapshot, event: ResolveEvent, asOf: string): Resolution {
  const asOfMs = instant(asOf);
  const atMs = instant(event.occurred_at);
  const facts = snapshot.relationships.find((r) => r.seller === event.seller && r.buyer === event.buyer) ?? null;
  const relationship = facts && relationshipAsOf(facts, asOfMs);
  const { classification, reason } = classify(relationship);
  return {
    classification,
    unclassifiable_reason: reason,
    relationship,
    baseline: revisionAt(snapshot.baselines, atMs, asOfMs),
    pricing: revisionAt(snapshot.pricing, atMs, asOfMs),
  };
}
