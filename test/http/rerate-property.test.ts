// Property (issue 26 section 5): over random histories of back-dated pricing revisions and corrections of one usage invoice,
// - a revision's impact preview (before it is saved) says exactly what the re-rate preview says once it is saved;
// - after every correction nothing is left to correct, and what the invoice, its correction invoices and its credit notes bill
//   together always equals what the re-rate preview counts as billed (and, after a correction, the rating of every order now);
// - a refused correction writes nothing.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billingStaff } from '../support/billing.ts';
import { Rng } from '../support/rng.ts';
import { ops } from '../support/ops.ts';
import { longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';

const HISTORIES = Number(process.env.PROPERTY_HISTORIES ?? 3);
const STEPS = Number(process.env.PROPERTY_STEPS ?? 10);
const FIRST_SEED = Number(process.env.PROPERTY_SEED ?? 20260226);

for (const backend of backends()) {
  describe(`re-rating corrections add up (property, ${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let platform: string;
    const clock = new TestClock('2026-03-02T08:00:00.000Z');
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
    });
    after(async () => svc?.close());

    it(`holds over ${HISTORIES} random histories of ${STEPS} steps (seeds from ${FIRST_SEED})`, async () => {
      for (let h = 0; h < HISTORIES; h++) {
        const seed = FIRST_SEED + h;
        const rng = new Rng(seed);
        const at = (s: string) => `seed ${seed}: ${s}`;
        const seller = await sellerWithSubscription(svc, { platform });
        const buyer = (await svc.signUp()).orgId;
        // The pricing timeline as segments [from, next from): a revision from d supersedes every segment that reaches past d.
        let timeline = [{ from: '2026-01-01', id: (await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 })).id }];
        const orders = Array.from({ length: rng.int(4, 12) }, (_, k) => order(`S${seed}-${k}`, seller.orgId, buyer, rng.int(100, 50_000), `2026-02-${String(rng.int(1, 28)).padStart(2, '0')}T${String(rng.int(0, 23)).padStart(2, '0')}:00:00Z`));
        expect((await svc.call(ops['billing.usage.insert'], { orders }, staff)).status).to.equal(200);
        const invoiceId = (await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff)).body.id;
        const total = (await svc.call(ops['billing.invoices.update'], { id: invoiceId, action: 'finalize' }, staff)).body.total;
        const preview = async () => {
          const r = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: invoiceId }, staff);
          expect(r.status, at(JSON.stringify(r.body))).to.equal(200);
          return r.body;
        };
        // What the documents bill: the invoice, plus its correction invoices, minus every issued credit note on any of them.
        const documents = async () => {
          const corrections = (await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: invoiceId, limit: 200 }, staff)).body.items;
          let billed = total;
          const targets = [invoiceId];
          for (const c of corrections) {
            if (!c.correction_invoice_id) continue;
            billed += (await svc.call(ops['billing.invoices.get'], c.correction_invoice_id, staff)).body.total;
            targets.push(c.correction_invoice_id);
          }
          let notes = 0;
          for (const target of targets) {
            for (const c of (await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: target, limit: 200 }, staff)).body.items) {
              expect(c.status, at('every correction credit note is issued')).to.equal('issued');
              billed -= c.amount;
              notes++;
            }
          }
          expect(notes, at('the credit notes are the corrections\' credit notes')).to.equal(corrections.reduce((n, c) => n + c.credit_notes.length, 0));
          return billed;
        };
        for (let step = 0; step < STEPS; step++) {
          clock.advance(60_000);
          if (rng.chance(0.55)) {
            const from = `2026-02-${String(rng.int(1, 28)).padStart(2, '0')}`;
            const body = {
              subscription_id: seller.subscriptionId, currency: 'GBP', effective_from: from, reason: `step ${step}`, minimum_fee: rng.pick([0, 25, 50]),
              rates_bps: { platform_introduced: rng.int(0, 800), pre_existing: 100 }, supersedes: timeline.filter((s, i) => (timeline[i + 1]?.from ?? '9999') > from).map((s) => s.id),
            };
            const impact = await svc.call(ops['billing.configuration.pricing.preview-impact'], body, staff);
            expect(impact.status, at(JSON.stringify(impact.body))).to.equal(200);
            const saved = await pricing(svc, staff, seller.subscriptionId, body);
            timeline = [...timeline.filter((s) => s.from < from), { from, id: saved.id }];
            const diff = await preview();
            const item = impact.body.items.find((i) => i.invoice_id === invoiceId);
            expect(item ? [item.old_total, item.new_total, item.difference, item.changed_order_count] : [diff.old_total, diff.old_total, 0, 0], at(`step ${step}: the impact previewed is what the saved revision does`))
              .to.deep.equal([diff.old_total, diff.new_total, diff.difference, diff.changed_order_count]);
          } else {
            const diff = await preview();
            const before = await eventCount();
            const res = await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: invoiceId, diff_hash: diff.diff_hash, reason: `correction at step ${step}` }, staff);
            if (diff.changed_order_count === 0) {
              expect([res.status, res.body.code], at(`step ${step}`)).to.deep.equal([409, 'nothing_to_correct']);
              expect(await eventCount()).to.equal(before);
            } else if (res.status === 409) {
              // An overcharge above what the invoice and its finalized correction invoices can still be credited (a raise still on a draft).
              expect(res.body.code, at(`step ${step}`)).to.equal('amount_exceeds_creditable');
              expect(await eventCount()).to.equal(before);
            } else {
              expect(res.status, at(JSON.stringify(res.body))).to.equal(200);
              expect(res.body.difference, at(`step ${step}: the correction is the diff`)).to.equal(diff.difference);
              // Staff finalize most correction invoices, so later overcharges can be credited on them too.
              if (res.body.correction_invoice_id && rng.chance(0.7))
                expect((await svc.call(ops['billing.invoices.update'], { id: res.body.correction_invoice_id, action: 'finalize' }, staff)).status).to.equal(200);
              const after = await preview();
              expect([after.difference, after.changed_order_count, after.old_total], at(`step ${step}: nothing left to correct`)).to.deep.equal([0, 0, diff.new_total]);
            }
          }
          expect(await documents(), at(`step ${step}: the documents bill what the preview counts as billed`)).to.equal((await preview()).old_total);
        }
      }
    });
  });
}
