// Helpers for usage suites: a seller organization with an active subscription, and orders to record.
import { expect } from 'chai';
import type { ReplyOf, RequestOf, TestService } from './app.ts';
import { signUpLong } from './long-session.ts';
import { enableCurrency, price, product } from './catalogue.ts';
import { ops } from './ops.ts';

/** One order as billing.usage.insert takes it. */
export type OrderInput = RequestOf<(typeof ops)['billing.usage.insert']>['orders'][number];

/** A seller organization (supplier) with a billing customer and an active subscription. */
export interface Seller {
  orgId: string;
  token: string;
  subscriptionId: string;
  customerId: string;
}

/** Signs up platform staff with a long session (suites here move the clock by months). */
export async function longPlatformStaff(svc: TestService): Promise<string> {
  return (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
}

/** Signs up a supplier (year-long session), makes its billing customer, and subscribes it (platform staff) to a monthly price. */
export async function sellerWithSubscription(svc: TestService, opts: { platform?: string; currency?: string } = {}): Promise<Seller> {
  const platform = opts.platform ?? (await longPlatformStaff(svc));
  await enableCurrency(svc, platform, opts.currency ?? 'GBP');
  const u = await signUpLong(svc, { kind: 'supplier' });
  const c = await svc.call(ops['billing.customers.insert'], { name: `Seller ${u.orgId.slice(0, 8)}`, email: 'ap@seller.example', currency: opts.currency ?? 'GBP' }, u.token);
  expect(c.status, JSON.stringify(c.body)).to.equal(200);
  const p = await price(svc, platform, await product(svc, platform, 'Marketplace'), { type: 'recurring', recurring: { interval: 'month' }, currency: opts.currency ?? 'GBP' });
  const s = await svc.call(ops['billing.subscriptions.insert'], {
    organization_id: u.orgId, items: [{ price_id: p.id, quantity: 1 }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2027-01-01T00:00:00Z',
  }, platform);
  expect(s.status, JSON.stringify(s.body)).to.equal(200);
  return { orgId: u.orgId, token: u.token, subscriptionId: s.body.id, customerId: c.body.id };
}

/** An order of `seller` to `buyer`: GBP unless told otherwise. */
export function order(orderId: string, seller: string, buyer: string, amount: number, occurredAt: string, currency = 'GBP'): OrderInput {
  return { order_id: orderId, seller, buyer, amount: { amount, currency }, occurred_at: occurredAt };
}

type PricingInsert = RequestOf<(typeof ops)['billing.configuration.pricing.insert']>;

/** Records a pricing revision (GBP unless told otherwise) as billing staff; returns it. */
export async function pricing(svc: TestService, staff: string, subscriptionId: string, over: Partial<PricingInsert> & Pick<PricingInsert, 'effective_from' | 'rates_bps'>) {
  const res = await svc.call(ops['billing.configuration.pricing.insert'], { subscription_id: subscriptionId, currency: 'GBP', minimum_fee: 0, reason: 'Rate card', ...over }, staff);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** One order of billing.invoices.orders.list. */
export type InvoiceOrder = ReplyOf<(typeof ops)['billing.invoices.orders.list']>['body']['items'][number];

/** Every order of an invoice, read page by page (`limit` per page). */
export async function allOrders(svc: TestService, token: string, invoiceId: string, limit = 200): Promise<InvoiceOrder[]> {
  const out: InvoiceOrder[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoiceId, limit, ...(cursor ? { cursor } : {}) }, token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    out.push(...res.body.items);
    if (!res.body.pagination) return out;
    cursor = res.body.pagination.cursor;
  }
}
