// Helpers for catalogue suites: platform staff, an enabled currency, a product and a price over HTTP.
import { expect } from 'chai';
import type { ReplyOf, RequestOf, TestService } from './app.ts';
import { ops } from './ops.ts';

type PriceInsert = RequestOf<(typeof ops)['billing.prices.insert']>;
/** A price as billing.prices.get answers it. */
export type Price = ReplyOf<(typeof ops)['billing.prices.get']>['body'];

/** Signs up a platform staff user; returns the session token. */
export async function platformStaff(svc: TestService): Promise<string> {
  return (await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
}

/** Enables billing in `code`. */
export async function enableCurrency(svc: TestService, staff: string, code: string): Promise<void> {
  const res = await svc.call(ops['billing.currencies.update'], { code, enabled_for_billing: true }, staff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Creates an active product; returns its id. */
export async function product(svc: TestService, staff: string, name = 'Pro plan'): Promise<string> {
  const res = await svc.call(ops['billing.products.insert'], { name }, staff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.id;
}

/** Creates a price (GBP 1500 one-off unless told otherwise). */
export async function price(svc: TestService, staff: string, productId: string, over: Partial<PriceInsert> = {}): Promise<Price> {
  const res = await svc.call(ops['billing.prices.insert'], { product_id: productId, currency: 'GBP', unit_amount: 1500, type: 'one_time', ...over }, staff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}
