// The rating rules, decided once (pure, integer arithmetic only; never a float):
// - classification from the order's relationship as known at `as_of` (see snapshot.classify);
// - pricing in force at `occurred_at` gives the rate (bps) for that classification, the minimum fee and the currency;
// - per seller and calendar month (UTC), pre_existing orders in (occurred_at, order_id) order are exempt until their
//   cumulative amount reaches the baseline in force at each order; the crossing order is charged on the part above;
// - fee = chargeable * bps / 10,000 rounded half-even to the minor unit, per order; the minimum fee applies to an
//   order with a chargeable part at a rate above 0 (a fully exempt order or a 0 bps class pays nothing).
import {
  type BaselineRevision,
  type Classification,
  type ConfigurationSnapshot,
  type PricingRevision,
  type RelationshipAsOf,
  classify,
  inForce,
  instant,
  pairKey,
  relationshipAsOf,
  timeline,
} from './snapshot.ts';

/** One usage fact (an order): amount in integer minor units of the pricing currency. */
export interface UsageOrder {
  order_id: string;
  seller: string;
  buyer: string;
  amount: number;
  occurred_at: string;
}

/** Why an order cannot be rated. */
export type UnrateableCode = 'claim_pending' | 'claim_without_evidence' | 'no_pricing' | 'currency_mismatch' | 'invalid_amount' | 'invalid_occurred_at';

/** One reason an order cannot be rated, for people. */
export interface UnrateableReason {
  code: UnrateableCode;
  message: string;
}

/** A rated order: what rated it and the fee (integer minor units). */
export interface RatedOrder extends UsageOrder {
  status: 'rated';
  classification: Classification;
  relationship_id: string | null;
  currency: string;
  rate_bps: number;
  /** The part of the amount exempt under the baseline (pre_existing only; else 0). */
  exempt_amount: number;
  /** amount - exempt_amount. */
  chargeable_amount: number;
  minimum_fee: number;
  fee: number;
  /** The baseline revision that rated it (pre_existing orders with a baseline in force; else null). */
  baseline_revision_id: string | null;
  pricing_revision_id: string;
}

/** An order that cannot be rated, and every reason why. */
export interface UnrateableOrder extends UsageOrder {
  status: 'unrateable';
  reasons: UnrateableReason[];
}

/** The rating of one order. */
export type OrderRating = RatedOrder | UnrateableOrder;

const BPS = 10_000n;

/** `n / 10,000` rounded half to even (n >= 0). */
export function roundHalfEvenBps(n: bigint): bigint {
  const q = n / BPS;
  const r2 = (n % BPS) * 2n;
  if (r2 > BPS || (r2 === BPS && q % 2n === 1n)) return q + 1n;
  return q;
}

/** The fee of a chargeable amount at `rateBps` with a minimum fee (all integers). */
export function feeOf(chargeable: number, rateBps: number, minimumFee: number): number {
  if (chargeable <= 0 || rateBps <= 0) return 0;
  const fee = roundHalfEvenBps(BigInt(chargeable) * BigInt(rateBps));
  const min = BigInt(minimumFee);
  return Number(fee > min ? fee : min);
}

/** Orders sorted by (occurred_at, order_id): the order the baseline consumes them in. */
export function ratingOrder<T extends { occurred_at: string; order_id: string }>(orders: readonly T[]): T[] {
  const keyed = orders.map((o) => ({ o, t: instant(o.occurred_at) }));
  keyed.sort((a, b) => a.t - b.t || (a.o.order_id < b.o.order_id ? -1 : a.o.order_id > b.o.order_id ? 1 : 0));
  return keyed.map((k) => k.o);
}

/** The calendar month (UTC) of an instant, `YYYY-MM`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The key of a seller's monthly baseline consumption (`consumedBefore` of rateOrders). */
export function baselineKey(seller: string, month: string): string {
  return `${seller}\u0000${month}`;
}

/**
 * Rates `orders` (order ids unique) against `snapshot` as known at `asOf` (ISO instant). The answer has one rating per
 * order, in the input's order; it does not depend on that order. Unrateable orders do not count towards the baseline.
 * `consumedBefore` (by baselineKey) is the baseline already consumed by orders billed earlier (late usage, issue 26):
 * these orders are rated after them, so the exemption is not granted twice.
 */
export function rateOrders(snapshot: ConfigurationSnapshot, orders: readonly UsageOrder[], asOf: string, consumedBefore?: ReadonlyMap<string, bigint>): OrderRating[] {
  const asOfMs = instant(asOf);
  const pricing = timeline<PricingRevision>(snapshot.pricing, asOfMs);
  const baselines = timeline<BaselineRevision>(snapshot.baselines, asOfMs);
  const relationships = new Map<string, RelationshipAsOf | null>();
  for (const r of snapshot.relationships) relationships.set(pairKey(r.seller, r.buyer), relationshipAsOf(r, asOfMs));
  const consumed = new Map<string, bigint>(consumedBefore ?? []);
  const results = new Map<UsageOrder, OrderRating>();
  for (const order of ratingOrder(orders)) {
    results.set(order, rateOne(order, relationships.get(pairKey(order.seller, order.buyer)) ?? null, pricing, baselines, consumed));
  }
  return orders.map((o) => results.get(o) ?? unrateable(o, [{ code: 'invalid_occurred_at', message: 'not rated' }]));
}

/**
 * The baseline `orders` consume, by baselineKey, rated under `snapshot` as known at `asOf`: every rateable pre_existing
 * order's whole amount, as rating counts it (unrateable orders consume nothing). What orders billed earlier in a month
 * leave to the orders rated after them (`consumedBefore` of rateOrders).
 */
export function baselineConsumption(snapshot: ConfigurationSnapshot, orders: readonly UsageOrder[], asOf: string): Map<string, bigint> {
  const consumed = new Map<string, bigint>();
  for (const r of rateOrders(snapshot, orders, asOf)) {
    if (r.status !== 'rated' || r.classification !== 'pre_existing') continue;
    const key = baselineKey(r.seller, monthOf(instant(r.occurred_at)));
    consumed.set(key, (consumed.get(key) ?? 0n) + BigInt(r.amount));
  }
  return consumed;
}

function rateOne(
  order: UsageOrder,
  relationship: RelationshipAsOf | null,
  pricingTimeline: ReturnType<typeof timeline<PricingRevision>>,
  baselineTimeline: ReturnType<typeof timeline<BaselineRevision>>,
  consumed: Map<string, bigint>,
): OrderRating {
  const at = instant(order.occurred_at);
  const reasons: UnrateableReason[] = [];
  if (!Number.isSafeInteger(order.amount) || order.amount < 0) reasons.push({ code: 'invalid_amount', message: `amount ${order.amount} is not a whole number of minor units from 0` });
  if (Number.isNaN(at)) {
    reasons.push({ code: 'invalid_occurred_at', message: `occurred_at ${JSON.stringify(order.occurred_at)} is not an ISO instant` });
    return unrateable(order, reasons);
  }
  const { classification, reason } = classify(relationship);
  if (reason === 'claim_pending') reasons.push({ code: reason, message: `the pre_existing claim on relationship ${relationship?.relationship_id} has no staff decision` });
  if (reason === 'claim_without_evidence') reasons.push({ code: reason, message: `the pre_existing claim on relationship ${relationship?.relationship_id} has no committed evidence` });
  const pricing = inForce(pricingTimeline, at);
  if (!pricing) reasons.push({ code: 'no_pricing', message: `no pricing revision is in force at ${order.occurred_at}` });
  const baseline = classification === 'pre_existing' ? inForce(baselineTimeline, at) : null;
  if (pricing && baseline && baseline.currency !== pricing.currency) {
    reasons.push({ code: 'currency_mismatch', message: `baseline ${baseline.revision_id} is in ${baseline.currency}, pricing ${pricing.revision_id} in ${pricing.currency}` });
  }
  if (reasons.length > 0 || !pricing || !classification) return unrateable(order, reasons);

  let exempt = 0n;
  if (classification === 'pre_existing') {
    const key = baselineKey(order.seller, monthOf(at));
    const before = consumed.get(key) ?? 0n;
    const amount = BigInt(order.amount);
    const left = BigInt(baseline?.monthly_exempt_amount ?? 0) - before;
    exempt = left <= 0n ? 0n : left < amount ? left : amount;
    consumed.set(key, before + amount);
  }
  const chargeable = order.amount - Number(exempt);
  const rate = pricing.rates_bps[classification];
  return {
    ...pick(order),
    status: 'rated',
    classification,
    relationship_id: relationship?.relationship_id ?? null,
    currency: pricing.currency,
    rate_bps: rate,
    exempt_amount: Number(exempt),
    chargeable_amount: chargeable,
    minimum_fee: pricing.minimum_fee,
    fee: feeOf(chargeable, rate, pricing.minimum_fee),
    baseline_revision_id: baseline?.revision_id ?? null,
    pricing_revision_id: pricing.revision_id,
  };
}

function pick(o: UsageOrder): UsageOrder {
  return { order_id: o.order_id, seller: o.seller, buyer: o.buyer, amount: o.amount, occurred_at: o.occurred_at };
}

function unrateable(order: UsageOrder, reasons: UnrateableReason[]): UnrateableOrder {
  return { ...pick(order), status: 'unrateable', reasons };
}
