// Property tests of the pure rating rules (fast-check, fixed seeds): independence of insertion order, integer half-even
// fees with the minimum fee, the calendar-month baseline, classification by claim and evidence, as-of answers.
import { expect } from 'chai';
import fc from 'fast-check';
import { type OrderRating, type RatedOrder, type UsageOrder, feeOf, monthOf, rateOrders, ratingOrder, roundHalfEvenBps } from '../../src/domain/billing/configuration/rating.ts';
import type { BaselineRevision, ConfigurationSnapshot, PricingRevision, RelationshipFacts } from '../../src/domain/billing/configuration/snapshot.ts';
import { resolve } from '../../src/domain/billing/configuration/snapshot.ts';

const SEED = 20261201;
const RUNS = 150;
const SELLER = 'seller';
const BUYERS = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
const MONTHS = ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'];
const ACTOR = { type: 'staff' as const, id: 'staff-1' };
const AS_OF = '2027-01-01T00:00:00.000Z';

/** One relationship per buyer with a random claim story (all recorded before AS_OF). */
const relationshipArb = (buyer: string): fc.Arbitrary<RelationshipFacts | null> =>
  fc.oneof(
    fc.constant(null),
    fc.record({ story: fc.constantFrom('none', 'claimed', 'accepted', 'accepted_no_evidence', 'rejected'), evidence: fc.boolean() }).map(({ story, evidence }) => {
      const claims: RelationshipFacts['claims'] = story === 'none' ? [] : [{ status: 'claimed', actor: ACTOR, reason: 'claim', recorded_at: '2026-01-02T00:00:00.000Z' }];
      if (story === 'accepted' || story === 'accepted_no_evidence') claims.push({ status: 'accepted', actor: ACTOR, reason: 'ok', recorded_at: '2026-01-03T00:00:00.000Z' });
      if (story === 'rejected') claims.push({ status: 'rejected', actor: ACTOR, reason: 'no', recorded_at: '2026-01-03T00:00:00.000Z' });
      const withEvidence = story === 'accepted' || (story !== 'accepted_no_evidence' && evidence);
      return { relationship_id: `rel-${buyer}`, seller: SELLER, buyer, recorded_at: '2026-01-01T00:00:00.000Z', claims, evidence: withEvidence ? [{ evidence_id: `ev-${buyer}`, committed_at: '2026-01-02T12:00:00.000Z' }] : [] };
    }),
  );

/** Revisions whose ranges start and end on month boundaries, recorded in sequence. */
const rangesArb = fc.array(fc.record({ from: fc.integer({ min: 0, max: 3 }), len: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }) }), { minLength: 0, maxLength: 5 });

function revisionsOf<T>(ranges: { from: number; len: number | null }[], extra: T[], kind: string) {
  return ranges.map((r, i) => ({
    revision_id: `${kind}-${i + 1}`,
    sequence: i + 1,
    effective_from: MONTHS[r.from] ?? MONTHS[0] ?? '',
    effective_to: r.len === null ? null : (MONTHS[Math.min(r.from + r.len, MONTHS.length - 1)] ?? null),
    actor: ACTOR,
    reason: 'r',
    recorded_at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 86_400_000).toISOString(),
    supersedes: [],
    ...(extra[i] as T),
  }));
}

const snapshotArb: fc.Arbitrary<ConfigurationSnapshot> = fc
  .record({
    rels: fc.tuple(...BUYERS.map(relationshipArb)),
    pricing: rangesArb.chain((ranges) =>
      fc.tuple(fc.constant(ranges), fc.array(fc.record({ currency: fc.constant('GBP'), rates_bps: fc.record({ platform_introduced: fc.integer({ min: 0, max: 10_000 }), pre_existing: fc.integer({ min: 0, max: 10_000 }) }), minimum_fee: fc.integer({ min: 0, max: 60 }) }), { minLength: ranges.length, maxLength: ranges.length })),
    ),
    baselines: rangesArb.chain((ranges) => fc.tuple(fc.constant(ranges), fc.array(fc.record({ currency: fc.constant('GBP'), monthly_exempt_amount: fc.integer({ min: 0, max: 200_000 }) }), { minLength: ranges.length, maxLength: ranges.length }))),
  })
  .map(({ rels, pricing, baselines }) => ({
    subscription_id: 'sub',
    organization_id: SELLER,
    relationships: rels.filter((r): r is RelationshipFacts => r !== null),
    pricing: revisionsOf(pricing[0], pricing[1], 'p') as PricingRevision[],
    baselines: revisionsOf(baselines[0], baselines[1], 'b') as BaselineRevision[],
  }));

const ordersArb: fc.Arbitrary<UsageOrder[]> = fc.uniqueArray(
  fc.record({
    order_id: fc.stringMatching(/^o[0-9a-f]{1,6}$/),
    seller: fc.constant(SELLER),
    buyer: fc.constantFrom(...BUYERS, 'stranger'),
    amount: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(5, 15, 25, 50, 150)),
    // Times collide often, so the order_id tie-break matters.
    occurred_at: fc.integer({ min: 0, max: 120 }).map((d) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + d * 86_400_000 + (d % 3) * 3_600_000).toISOString()),
  }),
  { selector: (o) => o.order_id, maxLength: 60 },
);

const byId = (ratings: OrderRating[]) => Object.fromEntries(ratings.map((r) => [r.order_id, r]));
const rated = (ratings: OrderRating[]) => ratings.filter((r): r is RatedOrder => r.status === 'rated');

describe('billing configuration rating (properties)', () => {
  it('rating does not depend on the order orders (or relationships and revisions) are given in', () => {
    fc.assert(
      fc.property(snapshotArb, ordersArb, fc.nat(), (snapshot, orders, shuffleSeed) => {
        const shuffle = <T>(xs: T[]) => [...xs].map((x, i) => ({ x, k: (i * 7919 + shuffleSeed) % 1009 })).sort((a, b) => a.k - b.k).map((p) => p.x);
        const a = rateOrders(snapshot, orders, AS_OF);
        const b = rateOrders({ ...snapshot, relationships: shuffle(snapshot.relationships), pricing: shuffle(snapshot.pricing), baselines: shuffle(snapshot.baselines) }, shuffle(orders), AS_OF);
        expect(byId(b)).to.deep.equal(byId(a));
        expect(a.map((r) => r.order_id)).to.deep.equal(orders.map((o) => o.order_id));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('fees are integers: chargeable * bps / 10,000 rounded half to even, raised to the minimum fee only when something is charged', () => {
    fc.assert(
      fc.property(snapshotArb, ordersArb, (snapshot, orders) => {
        for (const r of rated(rateOrders(snapshot, orders, AS_OF))) {
          expect(Number.isSafeInteger(r.fee) && r.fee >= 0, `${r.order_id} fee ${r.fee}`).to.equal(true);
          expect(r.exempt_amount + r.chargeable_amount).to.equal(r.amount);
          const n = BigInt(r.chargeable_amount) * BigInt(r.rate_bps);
          const raw = roundHalfEvenBps(n);
          const diff = raw * 10_000n - n; // within half a unit, and exactly half only towards the even neighbour
          expect(diff >= -5_000n && diff <= 5_000n).to.equal(true);
          if (diff === 5_000n || diff === -5_000n) expect(raw % 2n).to.equal(0n);
          const charged = r.chargeable_amount > 0 && r.rate_bps > 0;
          expect(r.fee).to.equal(charged ? Math.max(Number(raw), r.minimum_fee) : 0);
        }
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
    expect([feeOf(10_050, 500, 0), feeOf(10_150, 500, 0), feeOf(1, 5_000, 0), feeOf(3, 5_000, 0), feeOf(100, 500, 10), feeOf(0, 500, 10), feeOf(100, 0, 10)]).to.deep.equal([502, 508, 0, 2, 10, 0, 0]);
  });

  it('per seller and calendar month, pre_existing orders in (occurred_at, order_id) order are exempt up to the baseline: one crossing order, full charge after', () => {
    fc.assert(
      fc.property(snapshotArb, ordersArb, (snapshot, orders) => {
        const ratings = rated(rateOrders(snapshot, orders, AS_OF));
        for (const r of ratings) if (r.classification === 'platform_introduced') expect([r.exempt_amount, r.baseline_revision_id]).to.deep.equal([0, null]);
        const months = new Map<string, RatedOrder[]>();
        for (const r of ratingOrder(ratings.filter((x) => x.classification === 'pre_existing'))) {
          const key = monthOf(Date.parse(r.occurred_at));
          months.set(key, [...(months.get(key) ?? []), r]);
        }
        for (const [month, list] of months) {
          // Baselines change only on month boundaries here, so one baseline holds the whole month.
          const b = resolve(snapshot, { seller: SELLER, buyer: list[0]?.buyer ?? '', occurred_at: `${month}-15T00:00:00.000Z` }, AS_OF).baseline;
          const cap = b?.monthly_exempt_amount ?? 0;
          const total = list.reduce((s, r) => s + r.amount, 0);
          expect(list.reduce((s, r) => s + r.exempt_amount, 0), month).to.equal(Math.min(total, cap));
          const partial = list.findIndex((r) => r.exempt_amount < r.amount);
          if (partial >= 0) for (const later of list.slice(partial + 1)) expect(later.exempt_amount, `${later.order_id} after the crossing`).to.equal(0);
          for (const earlier of list.slice(0, partial < 0 ? list.length : partial)) expect(earlier.exempt_amount).to.equal(earlier.amount);
        }
      }),
      { seed: SEED + 2, numRuns: RUNS },
    );
  });

  it('classification: no relationship, no claim or a rejected claim -> platform_introduced; a pending claim or no evidence -> unrateable; no pricing -> unrateable', () => {
    fc.assert(
      fc.property(snapshotArb, ordersArb, (snapshot, orders) => {
        for (const r of rateOrders(snapshot, orders, AS_OF)) {
          const res = resolve(snapshot, r, AS_OF);
          const codes = r.status === 'unrateable' ? r.reasons.map((x) => x.code) : [];
          if (res.pricing === null) expect(codes).to.include('no_pricing');
          if (res.unclassifiable_reason) expect(codes).to.include(res.unclassifiable_reason);
          if (r.status === 'rated') {
            expect(r.classification).to.equal(res.classification);
            expect(r.pricing_revision_id).to.equal(res.pricing?.revision_id);
            expect(r.rate_bps).to.equal(res.pricing?.rates_bps[r.classification]);
          }
        }
      }),
      { seed: SEED + 3, numRuns: RUNS },
    );
  });

  it('as of an instant, revisions and claim changes recorded later are unknown', () => {
    fc.assert(
      fc.property(snapshotArb, ordersArb, fc.integer({ min: 0, max: 6 }), (snapshot, orders, day) => {
        const asOf = new Date(Date.parse('2026-01-01T12:00:00.000Z') + day * 86_400_000).toISOString();
        const known: ConfigurationSnapshot = {
          ...snapshot,
          pricing: snapshot.pricing.filter((p) => p.recorded_at <= asOf),
          baselines: snapshot.baselines.filter((p) => p.recorded_at <= asOf),
          relationships: snapshot.relationships.map((r) => ({ ...r, claims: r.claims.filter((c) => c.recorded_at <= asOf), evidence: r.evidence.filter((e) => e.committed_at <= asOf) })),
        };
        expect(byId(rateOrders(snapshot, orders, asOf))).to.deep.equal(byId(rateOrders(known, orders, AS_OF)));
      }),
      { seed: SEED + 4, numRuns: RUNS },
    );
  });
});
