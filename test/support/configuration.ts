// Helpers for billing-configuration suites: a seller with a subscription, buyers, relationships, revisions over HTTP.
import { expect } from 'chai';
import type { ReplyOf, RequestOf, TestService } from './app.ts';
import { enableCurrency, price, product } from './catalogue.ts';
import { signUpLong } from './long-session.ts';
import { ops } from './ops.ts';

/** A relationship as the API answers it. */
export type Relationship = ReplyOf<(typeof ops)['billing.configuration.relationships.insert']>['body'];
type PricingWrite = RequestOf<(typeof ops)['billing.configuration.pricing.insert']>;
type BaselineWrite = RequestOf<(typeof ops)['billing.configuration.baselines.insert']>;

/** Staff tokens and a seller organization with an active subscription. */
export interface ConfiguredSeller {
  platformStaff: string;
  billingStaff: string;
  seller: { orgId: string; token: string };
  subscriptionId: string;
}

/** Platform and billing staff (400-day sessions), GBP enabled, and a supplier with a subscription. */
export async function configuredSeller(svc: TestService): Promise<ConfiguredSeller> {
  const platformStaff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
  const billingStaff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
  await enableCurrency(svc, platformStaff, 'GBP');
  const seller = await signUpLong(svc, { kind: 'supplier' });
  const subscriptionId = await subscribe(svc, platformStaff, seller.orgId);
  return { platformStaff, billingStaff, seller: { orgId: seller.orgId, token: seller.token }, subscriptionId };
}

/** A subscription of `orgId` to a fresh one-off price; returns its id. */
export async function subscribe(svc: TestService, platformStaff: string, orgId: string): Promise<string> {
  const p = await price(svc, platformStaff, await product(svc, platformStaff, `Marketplace ${orgId.slice(0, 8)}`));
  const sub = await svc.call(ops['billing.subscriptions.insert'], { organization_id: orgId, items: [{ price_id: p.id, quantity: 1 }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2027-01-01T00:00:00Z' }, platformStaff);
  expect(sub.status, JSON.stringify(sub.body)).to.equal(200);
  return sub.body.id;
}

/** A buyer organization (a repairer); returns its id. */
export async function buyer(svc: TestService): Promise<string> {
  return (await svc.signUp({ kind: 'repairer' })).orgId;
}

/** Registers (subscription, seller, buyer); expects 200. */
export async function relate(svc: TestService, c: ConfiguredSeller, buyerId: string): Promise<Relationship> {
  const res = await svc.call(ops['billing.configuration.relationships.insert'], { subscription_id: c.subscriptionId, seller: c.seller.orgId, buyer: buyerId }, c.billingStaff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Records a pricing revision; expects 200. */
export async function pricing(svc: TestService, c: ConfiguredSeller, over: Partial<PricingWrite> = {}) {
  const res = await svc.call(ops['billing.configuration.pricing.insert'], { subscription_id: c.subscriptionId, effective_from: '2026-01-01', currency: 'GBP', rates_bps: { platform_introduced: 500, pre_existing: 200 }, minimum_fee: 0, reason: 'launch pricing', ...over }, c.billingStaff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Records a baseline revision; expects 200. */
export async function baseline(svc: TestService, c: ConfiguredSeller, over: Partial<BaselineWrite> = {}) {
  const res = await svc.call(ops['billing.configuration.baselines.insert'], { subscription_id: c.subscriptionId, effective_from: '2026-01-01', monthly_exempt_amount: 100_000, currency: 'GBP', reason: 'agreed baseline', ...over }, c.billingStaff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}
