// Issue 26's "Done means", for usage (fast-check, over HTTP): random interleavings of usage inserts (late ones too), voids and
// replacements (of invoiced orders too), generations (with and without holding unrateable orders), worker passes, back-dated
// pricing revisions and re-ratings applied (every document of the month finalized, each one's diff turned into a credit note
// or a correction invoice). Each answer is the one a model of the documented rule predicts; at the end (the month re-rated
// once more) every order is on one usage document at most, every order not voided on exactly one, with its final facts, each
// document's re-rating shows nothing left, and the sum invoiced (regular, supplementary and correction invoices) minus
// credited equals the rating of all final facts under the pricing in force.
import { expect } from 'chai';
import fc from 'fast-check';
import { feeOf } from '../../src/domain/billing/configuration/rating.ts';
import { supplementId, usageInvoiceId } from '../../src/domain/billing/usage-month.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { settle } from '../support/settle.ts';
import { allOrders, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';

const SEED = 20261126;
const RUNS = 10;
const RATE = 250;
const MINIMUM = 50;

const voidStep = fc.record({ kind: fc.constant('void' as const), k: fc.nat({ max: 5 }) });
const replaceStep = fc.record({ kind: fc.constant('replace' as const), k: fc.nat({ max: 5 }), amount: fc.integer({ min: 0, max: 50_000 }) });
const repriceStep = fc.record({ kind: fc.constant('reprice' as const), rate: fc.integer({ min: 0, max: 800 }), minimum: fc.constantFrom(0, 25, 50) });
const rerateStep = fc.record({ kind: fc.constant('rerate' as const) });
const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), k: fc.nat({ max: 5 }), amount: fc.integer({ min: 0, max: 50_000 }), eur: fc.boolean(), day: fc.integer({ min: 1, max: 28 }) }) },
  { weight: 2, arbitrary: voidStep },
  { weight: 2, arbitrary: replaceStep },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('generate' as const), hold: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pass' as const) }) },
  { weight: 1, arbitrary: repriceStep },
  { weight: 2, arbitrary: rerateStep },
);
// After a generation that holds what cannot be rated (so orders are on invoices), corrections of them: voids, replacements,
// back-dated pricing and re-ratings, in any order.
const afterInvoicing = fc.array(fc.oneof(fc.record({ kind: fc.constant('void' as const), k: fc.nat({ max: 2 }) }), replaceStep, repriceStep, rerateStep), { minLength: 2, maxLength: 6 });

/** What the model knows of an order. */
interface Modelled {
  original: { amount: number; currency: string; day: number };
  amount: number;
  currency: string;
  day: number;
  revision: number;
  voided: boolean;
  /** On a usage document (it stays there when voided afterwards). */
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

    it(`every order not voided is billed exactly once, and what is invoiced minus credited is the rating of the final facts (${RUNS} seeded runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), afterInvoicing, async (prefix, corrections) => {
          const steps = [...prefix, { kind: 'generate' as const, hold: true }, ...corrections];
          run++;
          const seller = await sellerWithSubscription(svc, { platform });
          let rate = RATE;
          let minimum = MINIMUM;
          let pricingId = (await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: RATE, pre_existing: RATE }, minimum_fee: MINIMUM })).id;
          const customerInvoices = async () => {
            const res = await svc.call(ops['billing.invoices.list'], { customer_id: seller.customerId, limit: 200 }, staff);
            expect(res.status, JSON.stringify(res.body)).to.equal(200);
            return res.body.items;
          };
          // The month's usage documents (regular and supplementary), not the correction invoices of re-rating.
          const documentIds = new Set([usageInvoiceId(seller.subscriptionId, '2026-02'), ...Array.from({ length: 50 }, (_, n) => supplementId(seller.subscriptionId, '2026-02', n + 1))]);
          const usageDocuments = async () => (await customerInvoices()).filter((i) => documentIds.has(i.id));
          // Re-rating applied: every draft finalized (correction invoices too, so an overcharge can be credited on them), then
          // each usage document's diff turned into documents; after it, its preview shows nothing.
          const rerateAll = async () => {
            for (const inv of await customerInvoices()) {
              if (inv.status !== 'draft') continue;
              const fin = await svc.call(ops['billing.invoices.update'], { id: inv.id, action: 'finalize' }, staff);
              expect(fin.status, JSON.stringify(fin.body)).to.equal(200);
            }
            for (const inv of await usageDocuments()) {
              const diff = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, staff);
              if (diff.status === 409 && diff.body.code === 'invoice_not_metered') continue; // a month whose orders were all held: nothing on it
              expect(diff.status, JSON.stringify(diff.body)).to.equal(200);
              if (diff.body.changed_order_count === 0) continue;
              const applied = await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: inv.id, diff_hash: diff.body.diff_hash, reason: 'property: re-rate' }, staff);
              expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
              expect(applied.body.difference).to.equal(diff.body.difference);
              const correction = applied.body.correction_invoice_id;
              if (correction) expect((await svc.call(ops['billing.invoices.update'], { id: correction, action: 'finalize' }, staff)).status).to.equal(200);
              expect((await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, staff)).body.changed_order_count, 'nothing left after the correction').to.equal(0);
            }
          };
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
                  expect(item?.billing_state).to.equal(o.voided ? 'voided' : o.invoiced ? 'invoiced' : o.held === o.revision ? 'held' : 'unbilled');
                }
                return;
              }
              case 'void': {
                const o = model.get(id(s.k));
                const res = await svc.call(ops['billing.usage.void'], { order_id: id(s.k), reason: 'property: void' }, staff);
                if (!o) expect([res.status, res.body.code]).to.deep.equal([404, 'usage_not_found']);
                else {
                  // An invoiced order is voided too: its invoice's re-rating credits it.
                  expect(res.status, JSON.stringify(res.body)).to.equal(200);
                  expect(res.body.billing_state).to.equal('voided');
                  expect(res.body.invoice_id !== null).to.equal(o.invoiced);
                  o.voided = true;
                }
                return;
              }
              case 'replace': {
                const o = model.get(id(s.k));
                const res = await svc.call(ops['billing.usage.replace'], { order_id: id(s.k), reason: 'property: corrected amount', amount: { amount: s.amount, currency: 'GBP' } }, staff);
                if (!o) expect([res.status, res.body.code]).to.deep.equal([404, 'usage_not_found']);
                else if (o.voided) expect([res.status, res.body.code]).to.deep.equal([409, 'usage_voided']);
                else {
                  expect(res.status, JSON.stringify(res.body)).to.equal(200);
                  if (o.amount !== s.amount || o.currency !== 'GBP') o.revision++;
                  o.amount = s.amount;
                  o.currency = 'GBP';
                  // An invoiced order stays on its invoice (its re-rating bills the difference); another waits for the next document.
                  expect(res.body).to.deep.include({ revision: o.revision, billing_state: o.invoiced ? 'invoiced' : 'unbilled' });
                }
                return;
              }
              case 'generate': {
                const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02', hold_unrateable: s.hold }, staff);
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
              case 'reprice': {
                // A back-dated revision of the whole period (superseding the one in force).
                pricingId = (await pricing(svc, staff, seller.subscriptionId, {
                  effective_from: '2026-01-01', rates_bps: { platform_introduced: s.rate, pre_existing: s.rate }, minimum_fee: s.minimum, supersedes: [pricingId], reason: 'property: back-dated',
                })).id;
                rate = s.rate;
                minimum = s.minimum;
                return;
              }
              case 'rerate':
                return rerateAll();
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
          const last = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
          expect(last.status, JSON.stringify(last.body)).to.equal(200);
          const again = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
          expect(again.body).to.deep.equal(last.body);
          for (const o of model.values()) if (!o.voided) o.invoiced = true;
          // The month re-rated once more: every document bills its orders as rated now.
          await rerateAll();

          // Every usage document of the month, and every order on them.
          const billed: { order_id: string; invoice_id: string; amount: number; currency: string; fee: number }[] = [];
          for (const inv of await usageDocuments()) {
            for (const o of await allOrders(svc, staff, inv.id)) billed.push({ order_id: o.order_id, invoice_id: inv.id, amount: o.amount.amount, currency: o.amount.currency, fee: o.fee.amount });
          }
          const final = [...model.entries()].filter(([, o]) => !o.voided);
          // Billed exactly once: no order on two documents, every order that is not voided on one, a voided one only where it
          // was before it was voided (credited there by re-rating).
          expect(billed.map((b) => b.order_id).sort(), 'orders on the documents').to.deep.equal([...model.entries()].filter(([, o]) => o.invoiced).map(([k]) => k).sort());
          // With its final facts (a replacement rated in its place).
          for (const b of billed) if (!model.get(b.order_id)?.voided) expect([b.amount, b.currency], b.order_id).to.deep.equal([model.get(b.order_id)?.amount, 'GBP']);
          // Sum invoiced (regular, supplementary, correction invoices) - credited (re-rating's credit notes) = rating of the final facts.
          const invoices = await customerInvoices();
          const total = invoices.reduce((s, i) => s + i.total, 0);
          let credited = 0;
          for (const inv of invoices) credited += (await svc.call(ops['billing.invoices.get'], inv.id, staff)).body.amount_credited;
          expect(total - credited, 'invoiced minus credited').to.equal(final.reduce((s, [, o]) => s + feeOf(o.amount, rate, minimum), 0));
          // And the listing agrees with the documents.
          const listed = await svc.call(ops['billing.usage.list'], { subscription_id: seller.subscriptionId, limit: 200 }, staff);
          const on = new Map(billed.map((b) => [b.order_id, b.invoice_id]));
          for (const item of listed.body.items) {
            const o = model.get(item.order_id);
            expect([item.billing_state, item.invoice_id], item.order_id).to.deep.equal(o?.voided ? ['voided', on.get(item.order_id) ?? null] : ['invoiced', on.get(item.order_id)]);
          }
          // Nothing is left in Needs attention for this customer's invoices.
          const attention = await svc.call(ops['billing.attention.list'], { kind: 'usage_correction_due' }, staff);
          expect(attention.body.items.filter((i) => i.customer?.id === seller.customerId)).to.deep.equal([]);
          expect(listed.body.items).to.have.length(model.size);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  });
}
