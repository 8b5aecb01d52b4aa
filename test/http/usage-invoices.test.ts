// billing.invoices.generate, billing.invoices.orders.list, billing.invoices.rerate.preview and the usage invoice worker, over HTTP.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { settle } from '../support/settle.ts';
import { type Seller, allOrders, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';
import { signUpLong } from '../support/long-session.ts';

for (const backend of backends()) {
  describe(`usage invoices over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let platform: string;
    let seller: Seller;
    let buyer: string;
    let pricingId: string;
    let invoiceId: string;
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);

    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-02-27T12:00:00Z');
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
      seller = await sellerWithSubscription(svc, { platform });
      buyer = (await svc.signUp()).orgId;
      pricingId = (await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 })).id;
      // 2.5% with a 0.50 minimum, rounded half-even per order: 300, 50 (minimum), 126 (125.5), 124 (124.5).
      const res = await svc.call(ops['billing.usage.insert'], {
        orders: [
          order('F-1', seller.orgId, buyer, 12000, '2026-02-01T10:00:00Z'),
          order('F-2', seller.orgId, buyer, 1000, '2026-02-10T10:00:00Z'),
          order('F-3', seller.orgId, buyer, 5020, '2026-02-20T10:00:00Z'),
          order('F-4', seller.orgId, buyer, 4980, '2026-02-27T10:00:00Z'),
        ],
      }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
    after(async () => svc?.close());

    it('refuses a month that has not ended', async () => {
      const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
      expect([res.status, res.body.code]).to.deep.equal([409, 'period_not_ended']);
    });

    it('generates a draft whose metered line keeps the pricing revision and sums its orders\' fees; generating again changes nothing', async () => {
      svc.clock.set('2026-03-01T00:10:00Z');
      const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      invoiceId = res.body.id;
      expect(res.body).to.include({ status: 'draft', customer_id: seller.customerId, currency: 'GBP', total: 600 });
      expect(res.body.lines).to.have.length(1);
      expect(res.body.lines[0]).to.deep.include({ kind: 'metered', quantity: 1, unit_amount: 600, amount: 600 });
      expect(res.body.lines[0]?.metered).to.deep.include({
        subscription_id: seller.subscriptionId, period: '2026-02', classification: 'platform_introduced', rate_bps: 250, minimum_fee: 50,
        pricing_revision_id: pricingId, baseline_revision_id: null, order_count: 4, order_amount: 23000,
      });
      const before = await eventCount();
      const again = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
      expect(again.body).to.deep.equal(res.body);
      expect(await eventCount()).to.equal(before);
    });

    it('lists the orders behind the line, page by page, with their rating; the fees sum to the line', async () => {
      const items = await allOrders(svc, staff, invoiceId, 3);
      expect(items.map((i) => [i.order_id, i.fee.amount, i.rate_bps, i.pricing_revision_id, i.classification])).to.deep.equal([
        ['F-1', 300, 250, pricingId, 'platform_introduced'], ['F-2', 50, 250, pricingId, 'platform_introduced'],
        ['F-3', 126, 250, pricingId, 'platform_introduced'], ['F-4', 124, 250, pricingId, 'platform_introduced'],
      ]);
      expect(items[0]).to.deep.include({ seller: seller.orgId, buyer, amount: { amount: 12000, currency: 'GBP' }, occurred_at: '2026-02-01T10:00:00.000Z', exempt_amount: 0, chargeable_amount: 12000 });
      expect((await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoiceId, line_index: 1 }, staff)).body).to.deep.equal({ items: [], pagination: null });
      const bad = await svc.send('billing.invoices.orders.list', { invoice_id: invoiceId, cursor: 'nope' }, staff);
      expect([bad.status, bad.body.code]).to.deep.equal([400, 'invalid_cursor']);
    });

    it('the seller sees the orders of its invoice once finalized, never of a draft; hand edits cannot replace metered lines', async () => {
      expect((await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoiceId }, seller.token)).status).to.equal(404);
      const edit = await svc.call(ops['billing.invoices.update'], { id: invoiceId, lines: [{ description: 'Manual', unit_amount: 1 }] }, staff);
      expect([edit.status, edit.body.code]).to.deep.equal([409, 'invoice_has_metered_lines']);
      const fin = await svc.call(ops['billing.invoices.update'], { id: invoiceId, action: 'finalize' }, staff);
      expect(fin.status, JSON.stringify(fin.body)).to.equal(200);
      const seen = await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoiceId }, seller.token);
      expect(seen.body.items.map((i) => i.order_id)).to.deep.equal(['F-1', 'F-2', 'F-3', 'F-4']);
      expect((await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoiceId }, (await signUpLong(svc)).token)).status).to.equal(404);
    });

    it('a back-dated pricing change shows in the re-rating diff, and the invoice itself does not change', async () => {
      const raised = await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-02-15', rates_bps: { platform_introduced: 300, pre_existing: 100 }, minimum_fee: 50, supersedes: [pricingId] });
      const diff = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: invoiceId }, staff);
      expect(diff.status, JSON.stringify(diff.body)).to.equal(200);
      // F-3 and F-4 now at 3%: 150.6 -> 151, 149.4 -> 149.
      expect(diff.body).to.deep.include({ old_total: 600, new_total: 650, difference: 50, changed_order_count: 2, orders_truncated: false });
      expect(diff.body.lines).to.deep.equal([{ line_index: 0, description: diff.body.lines[0]?.description ?? '', old_amount: 600, new_amount: 650, difference: 50 }]);
      expect(diff.body.orders.map((o) => [o.order_id, o.old.fee, o.new.fee, o.difference, o.new.pricing_revision_id, o.changed])).to.deep.equal([
        ['F-3', 126, 151, 25, raised.id, ['rate_bps', 'fee', 'pricing_revision_id']],
        ['F-4', 124, 149, 25, raised.id, ['rate_bps', 'fee', 'pricing_revision_id']],
      ]);
      expect((await svc.call(ops['billing.invoices.get'], invoiceId, staff)).body.total).to.equal(600);
      expect((await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: invoiceId }, seller.token)).status).to.equal(403);
    });

    it('fails closed: a month with an unrateable order is refused naming it, and nothing is written', async () => {
      const other = await sellerWithSubscription(svc, { platform });
      await svc.call(ops['billing.usage.insert'], { orders: [order('U-1', other.orgId, buyer, 1000, '2026-02-03T00:00:00Z'), order('U-2', other.orgId, buyer, 1000, '2026-02-04T00:00:00Z')] }, staff);
      const before = await eventCount();
      const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period: '2026-02' }, staff);
      expect([res.status, res.body.code]).to.deep.equal([409, 'usage_unrateable']);
      expect(res.body.issues?.map((i) => i.path)).to.deep.equal(['orders.U-1', 'orders.U-2']);
      expect(res.body.issues?.[0]?.message).to.match(/^no_pricing: /);
      expect(await eventCount()).to.equal(before);
      const unknown = await svc.call(ops['billing.invoices.generate'], { subscription_id: buyer, period: '2026-02' }, staff);
      expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'subscription_not_found']);
    });

    it('two generations racing make one invoice: both answer it, its stream holds one draft', async () => {
      const racer = await sellerWithSubscription(svc, { platform });
      await pricing(svc, staff, racer.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 100, pre_existing: 100 } });
      expect((await svc.call(ops['billing.usage.insert'], { orders: [order('RACE-1', racer.orgId, buyer, 5000, '2026-02-05T00:00:00Z')] }, staff)).status).to.equal(200);
      const [a, b] = await Promise.all([0, 1].map(() => svc.call(ops['billing.invoices.generate'], { subscription_id: racer.subscriptionId, period: '2026-02' }, staff)));
      expect([a?.status, b?.status]).to.deep.equal([200, 200]);
      expect(b?.body).to.deep.equal(a?.body);
      const types = await svc.app.knex('es_events').where({ stream_id: `invoice-${a?.body.id}` }).orderBy('revision').pluck('type');
      expect(types).to.deep.equal(['InvoiceDrafted', 'InvoiceUsageRated']);
    });

    it('an order in another currency than the pricing that rates it is unrateable (currency_mismatch), naming it', async () => {
      const euro = await sellerWithSubscription(svc, { platform });
      await pricing(svc, staff, euro.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 } });
      await svc.call(ops['billing.usage.insert'], { orders: [order('E-1', euro.orgId, buyer, 1000, '2026-02-03T00:00:00Z'), order('E-2', euro.orgId, buyer, 1000, '2026-02-04T00:00:00Z', 'EUR')] }, staff);
      const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: euro.subscriptionId, period: '2026-02' }, staff);
      expect([res.status, res.body.code]).to.deep.equal([409, 'usage_unrateable']);
      expect(res.body.issues?.map((i) => [i.path, i.message.split(':')[0]])).to.deep.equal([['orders.E-2', 'currency_mismatch']]);
    });

    it('the worker generates each ended month with usage once; a second pass does nothing', async () => {
      svc.clock.set('2026-04-01T00:05:00Z');
      expect((await svc.call(ops['billing.usage.insert'], { orders: [order('M-1', seller.orgId, buyer, 2000, '2026-03-02T00:00:00Z')] }, staff)).status).to.equal(200);
      await settle(svc);
      const pass = (await svc.app.workers.runOnce())['usage-invoices'] as { generated: { period: string }[]; refused: { code: string }[] };
      expect(pass.generated.map((g) => g.period)).to.deep.equal(['2026-03']);
      expect(pass.refused.map((r) => r.code)).to.deep.equal(['usage_unrateable', 'usage_unrateable']);
      await settle(svc);
      const again = (await svc.app.workers.runOnce())['usage-invoices'] as { generated: unknown[] };
      expect(again.generated).to.deep.equal([]);
      const list = await svc.call(ops['billing.invoices.list'], { customer_id: seller.customerId }, staff);
      const march = list.body.items.filter((i) => i.id !== invoiceId);
      expect(march.map((i) => [i.status, i.total])).to.deep.equal([['draft', 60]]);
    });
  });
}
