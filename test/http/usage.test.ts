// billing.usage.insert over HTTP: orders become usage facts once, whatever is re-sent; a refused batch writes nothing.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { platformStaff } from '../support/catalogue.ts';
import { type Seller, order, sellerWithSubscription } from '../support/usage.ts';

for (const backend of backends()) {
  describe(`billing.usage.insert over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let platform: string;
    let seller: Seller;
    let buyer: string;
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    const insert = (body: Parameters<typeof svc.call<(typeof ops)['billing.usage.insert']>>[1], token = staff, headers: Record<string, string> = {}) =>
      svc.call(ops['billing.usage.insert'], body, token, headers);

    before(async () => {
      svc = await startService(backend, { clock: undefined });
      svc.clock.set('2026-03-05T12:00:00Z');
      staff = await billingStaff(svc);
      platform = await platformStaff(svc);
      seller = await sellerWithSubscription(svc, { platform });
      buyer = (await svc.signUp()).orgId;
    });
    after(async () => svc?.close());

    it("records a batch under the seller's active subscription, and re-sending it changes nothing", async () => {
      const orders = [order('ORD-1', seller.orgId, buyer, 12000, '2026-02-01T10:00:00Z'), order('ORD-2', seller.orgId, buyer, 5000, '2026-02-02T10:00:00.5+01:00')];
      const first = await insert({ orders });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      // Each order says where it is billed: its month's invoice (not generated yet, not late).
      const where = { month: '2026-02', late: false, billing_state: 'unbilled', invoice_id: null } as const;
      expect(first.body).to.deep.equal({
        recorded: 2, already_recorded: 0, late: 0,
        items: [{ order_id: 'ORD-1', subscription_id: seller.subscriptionId, status: 'recorded', ...where }, { order_id: 'ORD-2', subscription_id: seller.subscriptionId, status: 'recorded', ...where }],
      });
      const before = await eventCount();
      const again = await insert({ orders: [...orders].reverse() });
      expect(again.body).to.deep.equal({
        recorded: 0, already_recorded: 2, late: 0,
        items: [{ order_id: 'ORD-2', subscription_id: seller.subscriptionId, status: 'already_recorded', ...where }, { order_id: 'ORD-1', subscription_id: seller.subscriptionId, status: 'already_recorded', ...where }],
      });
      expect(await eventCount()).to.equal(before);
      // The same instant written another way is the same fact.
      const sameInstant = await insert({ orders: [order('ORD-2', seller.orgId, buyer, 5000, '2026-02-02T09:00:00.500Z')] });
      expect(sameInstant.body.already_recorded).to.equal(1);
      expect(await eventCount()).to.equal(before);
    });

    it('an order id re-sent with other facts is a 409 naming it, and nothing of the batch is written', async () => {
      const before = await eventCount();
      const res = await insert({ orders: [order('ORD-NEW', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z'), order('ORD-1', seller.orgId, buyer, 12001, '2026-02-01T10:00:00Z')] });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('usage_conflict');
      expect(res.body.issues?.map((i) => i.path)).to.deep.equal(['orders.1']);
      expect(res.body.issues?.[0]?.message).to.contain('ORD-1');
      expect(await eventCount()).to.equal(before);
      const retried = await insert({ orders: [order('ORD-NEW', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z')] });
      expect(retried.body.recorded).to.equal(1);
    });

    it('refuses, writing nothing: sellers without a subscription, a seller not of the named subscription, future orders, the same id twice with other facts', async () => {
      const stranger = (await svc.signUp({ kind: 'supplier' })).orgId;
      const before = await eventCount();
      const none = await insert({ orders: [order('X-1', stranger, buyer, 100, '2026-02-03T10:00:00Z')] });
      expect([none.status, none.body.code]).to.deep.equal([409, 'no_active_subscription']);
      expect(none.body.issues?.map((i) => i.path)).to.deep.equal(['orders.0.seller']);
      const mismatch = await insert({ subscription_id: seller.subscriptionId, orders: [order('X-2', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z'), order('X-3', stranger, buyer, 100, '2026-02-03T10:00:00Z')] });
      expect([mismatch.status, mismatch.body.code]).to.deep.equal([400, 'seller_not_subscriber']);
      expect(mismatch.body.issues?.map((i) => i.path)).to.deep.equal(['orders.1.seller']);
      const unknownSub = await insert({ subscription_id: buyer, orders: [order('X-4', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z')] });
      expect([unknownSub.status, unknownSub.body.code]).to.deep.equal([404, 'subscription_not_found']);
      const future = await insert({ orders: [order('X-5', seller.orgId, buyer, 100, '2026-03-05T12:00:01Z')] });
      expect([future.status, future.body.code]).to.deep.equal([400, 'occurred_in_future']);
      const twice = await insert({ orders: [order('X-6', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z'), order('X-6', seller.orgId, buyer, 200, '2026-02-03T10:00:00Z')] });
      expect([twice.status, twice.body.code]).to.deep.equal([400, 'invalid_request']);
      expect(twice.body.issues?.map((i) => i.path)).to.deep.equal(['orders.1']);
      expect(await eventCount()).to.equal(before);
    });

    it('validates each order and the batch size', async () => {
      const before = await eventCount();
      const cases: [unknown, string][] = [
        [{ orders: [] }, 'orders'],
        [{ orders: Array.from({ length: 1001 }, (_, i) => order(`B-${i}`, seller.orgId, buyer, 1, '2026-02-01T00:00:00Z')) }, 'orders'],
        [{ orders: [order('Y-1', seller.orgId, seller.orgId, 100, '2026-02-01T00:00:00Z')] }, 'orders.0.buyer'],
        [{ orders: [order('Y-2', seller.orgId, buyer, -1, '2026-02-01T00:00:00Z')] }, 'orders.0.amount.amount'],
        [{ orders: [order('Y-3', seller.orgId, buyer, 1.5, '2026-02-01T00:00:00Z')] }, 'orders.0.amount.amount'],
        [{ orders: [order(' Y-4', seller.orgId, buyer, 1, '2026-02-01T00:00:00Z')] }, 'orders.0.order_id'],
        [{ orders: [order('Y-5', seller.orgId, buyer, 1, 'yesterday')] }, 'orders.0.occurred_at'],
        [{ orders: [order('Y-6', seller.orgId, buyer, 1, '2026-02-01T00:00:00Z', 'ZZZ')] }, 'orders.0.amount.currency'],
        [{ orders: [{ ...order('Y-7', seller.orgId, buyer, 1, '2026-02-01T00:00:00Z'), extra: 1 }] }, 'orders.0'],
      ];
      for (const [body, path] of cases) {
        const res = await svc.send('billing.usage.insert', body, staff);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.code).to.equal('invalid_request');
        expect(res.body.issues?.map((i) => i.path), JSON.stringify(res.body)).to.include(path);
      }
      expect(await eventCount()).to.equal(before);
    });

    it('is for billing staff only', async () => {
      const res = await insert({ orders: [order('Z-1', seller.orgId, buyer, 100, '2026-02-03T10:00:00Z')] }, seller.token);
      expect(res.status).to.equal(403);
    });

    it('a retry with the same Idempotency-Key answers as the first time; each order stream holds one event', async () => {
      const body = { orders: [order('IDEM-1', seller.orgId, buyer, 700, '2026-02-04T10:00:00Z')] };
      const a = await insert(body, staff, { 'Idempotency-Key': 'usage-idem-1' });
      const b = await insert(body, staff, { 'Idempotency-Key': 'usage-idem-1' });
      expect(b.body).to.deep.equal(a.body);
      expect(a.body.recorded).to.equal(1);
      const rows = await svc.app.knex('es_events').where('type', 'UsageRecorded').select('stream_id');
      const streams = rows.map((r: { stream_id: string }) => r.stream_id);
      expect(new Set(streams).size).to.equal(streams.length);
    });
  });
}
