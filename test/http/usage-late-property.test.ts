// Issue 26's "Done means", for usage (fast-check, over HTTP): random interleavings of usage inserts (late ones too), voids,
// replacements, generations (with and without holding unrateable orders) and worker passes. Each answer is the one a model of
// the documented rule predicts; at the end every order that is not voided is billed exactly once across the month's regular
// and supplementary invoices, with its final facts, and the sum invoiced (minus credited: corrections of invoiced orders are
// refused, so nothing is credited) equals the rating of all final facts.
import { expect } from 'chai';
import fc from 'fast-check';
import { feeOf } from '../../src/domain/billing/configuration/rating.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { settle } from '../support/settle.ts';
import { allOrders, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';

const SEED = 20261126;
const RUNS = 5;
const RATE = 250;
const MINIMUM = 50;

const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), k: fc.nat({ max: 5 }), amount: fc.integer({ min: 0, max: 50_000 }), eur: fc.boolean(), day: fc.integer({ min: 1, max: 28 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('void' as const), k: fc.nat({ max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), k: fc.nat({ max: 5 }), amount: fc.integer({ min: 0, max: 50_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('generate' as const), hold: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pass' as const) }) },
);

/** What the model knows of an order. */
interface Modelled {
  original: { amount: number; currency: string; day: number };
  amount: number;
  currency: string;
  day: number;
  revision: number;
  voided: boolean;
  invoiced: boolean;
  /** The revision staff held it at, or null. */
  held: number | null;
}

for (const backend of backends()) {
  describe(`late usage and corrections: a property over random interleavings (${backend})`, function () {
    this.timeout(600_000);
    let svc: TestService;
    let staff: string;
    let platform: string;
    let buyer: string;
    let run = 0;

    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-03-05T00:00:00Z');
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
      buyer = (await svc.signUp()).orgId;
    });
    after(async () => svc?.close());

    it(`every order not voided is billed exactly once, and what is invoiced is the rating of the final facts (${RUNS} seeded runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
          run++;
          const seller = await sellerWithSubscription(svc, { platform });
          await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: RATE, pre_existing: RATE }, minimum_fee: MINIMUM });
          const model = new Map<string, Modelled>();
          let invoiced = false; // the month's invoice exists
          const id = (k: number) => `P${run}-${k}`;
          const at = (day: number) => `2026-02-${String(day).padStart(2, '0')}T12:00:00.000Z`;
          const live = () => [...model.values()].filter((o) => !o.voided);
          const fresh = () => live().filter((o) => !o.invoiced && o.currency === 'EUR' && o.held !== o.revision);
          // A generation that goes through: the EUR orders are held (when asked), every other unbilled order is billed.
          const billAll = (hold: boolean) => {
            for (const o of live()) {
              if (o.invoiced) continue;
              if (o.currency === 'EUR') {
                if (hold && o.held !== o.revision) o.held = o.revision;
              } else o.invoiced = true;
            }
            invoiced = true;
          };

          const act = async (s: (typeof steps)[number]) => {
            switch (s.kind) {
              case 'insert': {
                const o = model.get(id(s.k));
                const currency = s.eur ? 'EUR' : 'GBP';
                const res = await svc.call(ops['billing.usage.insert'], { orders: [order(id(s.k), seller.orgId, buyer, s.amount, at(s.day), currency)] }, staff);
                const same = (f: { amount: number; currency: string; day: number }) => f.amount === s.amount && f.currency === currency && f.day === s.day;
                if (o && !same(o.original) && !same(o)) {
                  expect([res.status, res.body.code], 'a conflicting insert').to.deep.equal([409, 'usage_conflict']);
                  return;
                }
                expect(res.status, JSON.stringify(res.body)).to.equal(200);
                const item = res.body.items[0];
                if (!o) {
                  expect(item, 'a new order says whether it is late').to.deep.include({ status: 'recorded', month: '2026-02', late: invoiced, billing_state: 'unbilled', invoice_id: null });
                  model.set(id(s.k), { original: { amount: s.amount, currency, day: s.day }, amount: s.amount, currency, day: s.day, revision: 0, voided: false, invoiced: false, held: null });
                } else {
                  expect(item?.status).to.equal('already_recorded');
                  expect(item?.billing_state).to.equal(o.invoiced ? 'invoiced' : o.voided ? 'voided' : o.held === o.revision ? 'held' : 'unbilled');
                }
                return;
              }
              case 'void': {
                const o = model.get(id(s.k));
                const res = await svc.call(ops['billing.usage.void'], { order_id: id(s.k), reason: 'property: void' }, staff);
                if (!o) expect([res.status, res.body.code]).to.deep.equal([404, 'usage_not_found']);
                else if (o.invoiced) expect([res.status, res.body.code]).to.deep.equal([409, 'usage_invoiced']);
                else {
                  expect(res.status, JSON.stringify(res.body)).to.equal(200);
                  expect(res.body.billing_state).to.equal('voided');
                  o.voided = true;
                }
                return;
              }
              case 'replace': {
                const o = model.get(id(s.k));
                const res = await svc.call(ops['billing.usage.replace'], { order_id: id(s.k), reason: 'property: corrected amount', amount: { amount: s.amount, currency: 'GBP' } }, staff);
                if (!o) expect([res.status, res.body.code]).to.deep.equal([404, 'usage_not_found']);
                else if (o.invoiced) expect([res.status, res.body.code]).to.deep.equal([409, 'usage_invoiced']);
                else if (o.voided) expect([res.status, res.body.code]).to.deep.equal([409, 'usage_voided']);
                else {
                  expect(res.status, JSON.stringify(res.body)).to.equal(200);
                  if (o.amount !== s.amount || o.currency !== 'GBP') o.revision++;
                  o.amount = s.amount;
                  o.currency = 'GBP';
                  expect(res.body).to.deep.include({ revision: o.revision, billing_state: 'unbilled' });
                }
                return;
              }
              case 'generate': {
                const res = await svc.call(ops['billing.invoices.generate'], { subscription: seller.subscriptionId, period: '2026-02', hold_unrateable: s.hold }, staff);
                if (fresh().length && !s.hold) {
                  expect([res.status, res.body.code]).to.deep.equal([409, 'usage_unrateable']);
                  expect(res.body.issues?.map((i) => i.path).sort()).to.deep.equal(fresh().map((o) => `orders.${[...model.entries()].find(([, m]) => m === o)?.[0]}`).sort());
                  return;
                }
                expect(res.status, JSON.stringify(res.body)).to.equal(200);
                billAll(s.hold);
                return;
              }
              case 'pass': {
                await settle(svc);
                const res = (await svc.app.workers.runOnce())['usage-invoices'] as { refused: { subscription_id: string }[]; generated: { subscription_id: string }[] };
                const refused = res.refused.some((r) => r.subscription_id === seller.subscriptionId);
                if (live().length === 0) return expect(refused).to.equal(false);
                if (fresh().length) return expect(refused, 'the month is refused').to.equal(true);
                expect(refused).to.equal(false);
                billAll(false);
                return;
              }
            }
          };
          for (const s of steps) await act(s);

          // Staff fix what is still unrateable, and the month is generated once more.
          for (const [orderId, o] of model) {
            if (o.voided || o.invoiced || o.currency === 'GBP') continue;
            const res = await svc.call(ops['billing.usage.replace'], { order_id: orderId, reason: 'property: fix currency', amount: { amount: o.amount, currency: 'GBP' } }, staff);
            expect(res.status, JSON.stringify(res.body)).to.equal(200);
            o.currency = 'GBP';
            o.revision++;
          }
          const last = await svc.call(ops['billing.invoices.generate'], { subscription: seller.subscriptionId, period: '2026-02' }, staff);
          expect(last.status, JSON.stringify(last.body)).to.equal(200);
          const again = await svc.call(ops['billing.invoices.generate'], { subscription: seller.subscriptionId, period: '2026-02' }, staff);
          expect(again.body).to.deep.equal(last.body);

          // Every document of the month, and every order on them.
          const invoices = await svc.call(ops['billing.invoices.list'], { customer_id: seller.customerId, limit: 200 }, staff);
          const billed: { order_id: string; invoice_id: string; amount: number; currency: string; fee: number }[] = [];
          for (const inv of invoices.body.items) {
            for (const o of await allOrders(svc, staff, inv.id)) billed.push({ order_id: o.order_id, invoice_id: inv.id, amount: o.amount.amount, currency: o.amount.currency, fee: o.fee.amount });
          }
          const final = [...model.entries()].filter(([, o]) => !o.voided);
          // Billed exactly once: no order on two documents, every order that is not voided on one, no voided one anywhere.
          expect(billed.map((b) => b.order_id).sort(), 'orders on the documents').to.deep.equal(final.map(([k]) => k).sort());
          // With its final facts (a replacement rated in its place).
          for (const b of billed) expect([b.amount, b.currency], b.order_id).to.deep.equal([model.get(b.order_id)?.amount, 'GBP']);
          // Sum invoiced - credited (nothing: an invoiced order is never corrected) = rating of the final facts.
          const total = invoices.body.items.reduce((s, i) => s + i.total, 0);
          let credited = 0;
          for (const inv of invoices.body.items) credited += (await svc.call(ops['billing.invoices.get'], inv.id, staff)).body.amount_credited;
          expect(total - credited, 'invoiced minus credited').to.equal(final.reduce((s, [, o]) => s + feeOf(o.amount, RATE, MINIMUM), 0));
          // And the listing agrees with the documents.
          const listed = await svc.call(ops['billing.usage.list'], { subscription_id: seller.subscriptionId, limit: 200 }, staff);
          const on = new Map(billed.map((b) => [b.order_id, b.invoice_id]));
          for (const item of listed.body.items) {
            const o = model.get(item.order_id);
            expect([item.billing_state, item.invoice_id], item.order_id).to.deep.equal(o?.voided ? ['voided', null] : ['invoiced', on.get(item.order_id)]);
          }
          expect(listed.body.items).to.have.length(model.size);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  });
}
