// Properties of usage rating over HTTP, over seeded random histories (fast-check): line totals equal the sum of
// orders.list; re-inserting usage changes nothing; rating does not depend on the order or batching of insertion.
import { expect } from 'chai';
import fc from 'fast-check';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { type OrderInput, allOrders, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';

const SEED = 20260312;
const RUNS = 6;

/** A random month of usage: orders (amount, day, minute, buyer index) and pricing revisions (effective day, rate, minimum). */
const history = fc.record({
  orders: fc.array(fc.record({ amount: fc.integer({ min: 0, max: 500_000 }), day: fc.integer({ min: 0, max: 27 }), minute: fc.integer({ min: 0, max: 3 }), buyer: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 30 }),
  pricing: fc.array(fc.record({ day: fc.integer({ min: 1, max: 27 }), rate: fc.integer({ min: 0, max: 10_000 }), minimum: fc.integer({ min: 0, max: 200 }) }), { maxLength: 2 }),
  firstRate: fc.integer({ min: 0, max: 10_000 }),
  permutation: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
  batch: fc.integer({ min: 1, max: 7 }),
});
type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

for (const backend of backends()) {
  describe(`usage rating properties over HTTP (${backend})`, function () {
    this.timeout(600_000);
    let svc: TestService;
    let staff: string;
    let platform: string;
    let buyers: string[];
    let run = 0;
    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-03-10T00:00:00Z');
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
      buyers = [(await svc.signUp()).orgId, (await svc.signUp()).orgId, (await svc.signUp()).orgId];
    });
    after(async () => svc?.close());

    /** A seller configured by the history's pricing; returns its subscription id. */
    async function configuredSeller(h: History) {
      const seller = await sellerWithSubscription(svc, { platform });
      let current = (await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: h.firstRate, pre_existing: 0 } })).id;
      for (const p of [...h.pricing].sort((a, b) => a.day - b.day)) {
        const from = `2026-02-${String(p.day + 1).padStart(2, '0')}`;
        current = (await pricing(svc, staff, seller.subscriptionId, { effective_from: from, rates_bps: { platform_introduced: p.rate, pre_existing: 0 }, minimum_fee: p.minimum, supersedes: [current] })).id;
      }
      return seller;
    }

    const ordersOf = (h: History, prefix: string, sellerOrg: string): OrderInput[] =>
      h.orders.map((o, i) => order(`${prefix}-${String(i).padStart(2, '0')}`, sellerOrg, buyers[o.buyer] ?? '', o.amount, new Date(Date.UTC(2026, 1, 1 + o.day, 12, o.minute)).toISOString()));

    /** Inserts `orders` in batches of `size`, answering 200 each time. */
    async function insertAll(orders: OrderInput[], size: number) {
      for (let i = 0; i < orders.length; i += size) {
        const res = await svc.call(ops['billing.usage.insert'], { orders: orders.slice(i, i + size) }, staff);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      }
    }

    async function generate(subscription: string) {
      const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: subscription, period: '2026-02' }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    }

    it(`line totals equal orders.list, re-inserting changes nothing, insertion order does not matter (${RUNS} seeded histories)`, async () => {
      await fc.assert(
        fc.asyncProperty(history, async (h) => {
          run++;
          const a = await configuredSeller(h);
          const b = await configuredSeller(h);
          const ordersA = ordersOf(h, `R${run}A`, a.orgId);
          // The same orders for B, inserted shuffled and in other batches.
          const ordersB = ordersOf(h, `R${run}B`, b.orgId)
            .map((o, i) => ({ o, k: h.permutation[i] ?? i }))
            .sort((x, y) => x.k - y.k)
            .map((x) => x.o);
          await insertAll(ordersA, 1000);
          await insertAll(ordersB, h.batch);
          const invA = await generate(a.subscriptionId);
          const invB = await generate(b.subscriptionId);

          // Line totals == sum of orders.list, and the invoice total is the sum of its lines.
          const listedA = await allOrders(svc, staff, invA.id, 7);
          expect(listedA).to.have.length(ordersA.length);
          invA.lines.forEach((l, i) => expect(listedA.filter((o) => o.line_index === i).reduce((s, o) => s + o.fee.amount, 0), `line ${i}`).to.equal(l.amount));
          expect(invA.total).to.equal(listedA.reduce((s, o) => s + o.fee.amount, 0));

          // Insertion order and batching do not change any fee (ids differ only by their A/B prefix).
          const listedB = await allOrders(svc, staff, invB.id);
          const fees = (list: typeof listedA) => new Map(list.map((o) => [o.order_id.slice(o.order_id.indexOf('-') + 1), [o.fee.amount, o.rate_bps, o.exempt_amount, o.classification]]));
          expect(fees(listedB)).to.deep.equal(fees(listedA));
          expect(invB.lines.map((l) => l.amount)).to.deep.equal(invA.lines.map((l) => l.amount));

          // Re-inserting (shuffled, other batches) records nothing and changes no invoice.
          const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
          const before = await events();
          for (let i = 0; i < ordersB.length; i += 3) {
            const res = await svc.call(ops['billing.usage.insert'], { orders: ordersB.slice(i, i + 3) }, staff);
            expect(res.body.recorded).to.equal(0);
          }
          expect(await events()).to.equal(before);
          expect(await generate(b.subscriptionId)).to.deep.equal(invB);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  });
}
