// Issue 26 sections 3 and 4 over HTTP: late usage is billed on supplementary invoices (by the worker and by generate), never
// dropped and never twice; usage.insert and usage.list say where each order is billed; staff void and replace usage facts with
// a reason; a month with unrateable orders is invoiced without them when staff hold them, and they are billed once fixed; the
// worker's refused months are listed (billing.usage.refusals.list) and counted (usage_months_refused).
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { settle } from '../support/settle.ts';
import { type Seller, allOrders, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';
import { type ConfiguredSeller, baseline, buyer as newBuyer, configuredSeller, pricing as configPricing, relate } from '../support/configuration.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x20), Buffer.from('\n%%EOF\n')]);

type Pass = { generated: { period: string; invoice_id: string; kind: string; subscription_id: string }[]; refused: { subscription_id: string; period: string; code: string }[] };

for (const backend of backends()) {
  describe(`late usage and usage corrections over HTTP (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    let platform: string;
    let buyer: string;
    const clock = new TestClock('2026-02-27T12:00:00Z');

    const insert = async (orders: ReturnType<typeof order>[]) => {
      const res = await svc.call(ops['billing.usage.insert'], { orders }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const generate = async (subscription: string, extra: { hold_unrateable?: boolean } = {}) => svc.call(ops['billing.invoices.generate'], { subscription_id: subscription, period: '2026-02', ...extra }, staff);
    const pass = async (): Promise<Pass> => {
      await settle(svc);
      return (await svc.app.workers.runOnce())['usage-invoices'] as Pass;
    };
    const listed = async (subscription_id: string, extra: { billing_state?: 'held' | 'voided' } = {}) => {
      const res = await svc.call(ops['billing.usage.list'], { subscription_id, period: '2026-02', ...extra }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.items;
    };
    const eventTypes = async (stream: string) => (await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type')) as string[];

    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
      buyer = (await svc.signUp()).orgId;
    });
    after(async () => svc?.close());

    describe('late usage', () => {
      let seller: Seller;
      let regular: string;
      let first: string;

      it('an order recorded after its month was invoiced answers that it is late, and is listed unbilled', async () => {
        clock.set('2026-02-27T12:00:00Z');
        seller = await sellerWithSubscription(svc, { platform });
        await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 });
        await insert([order('LATE-F1', seller.orgId, buyer, 12000, '2026-02-01T10:00:00Z')]);
        clock.set('2026-03-01T00:10:00Z');
        const inv = await generate(seller.subscriptionId);
        expect(inv.status, JSON.stringify(inv.body)).to.equal(200);
        regular = inv.body.id;
        expect(inv.body.total).to.equal(300);

        const late = await insert([order('LATE-L1', seller.orgId, buyer, 4000, '2026-02-20T10:00:00Z')]);
        expect(late).to.deep.include({ recorded: 1, late: 1 });
        expect(late.items[0]).to.deep.include({ order_id: 'LATE-L1', month: '2026-02', late: true, billing_state: 'unbilled', invoice_id: null });
        const items = await listed(seller.subscriptionId);
        expect(items.map((i) => [i.order_id, i.billing_state, i.invoice_id])).to.deep.equal([['LATE-F1', 'invoiced', regular], ['LATE-L1', 'unbilled', null]]);
      });

      it('the worker bills it on a supplementary invoice of the month, rated alone; the invoice itself does not change; a second pass does nothing', async () => {
        const res = await pass();
        const mine = res.generated.filter((g) => g.subscription_id === seller.subscriptionId);
        expect(mine.map((g) => [g.period, g.kind])).to.deep.equal([['2026-02', 'supplementary']]);
        first = mine[0]?.invoice_id ?? '';
        const supplement = (await svc.call(ops['billing.invoices.get'], first, staff)).body;
        expect(supplement).to.deep.include({ status: 'draft', customer_id: seller.customerId, total: 100 });
        expect(supplement.metadata).to.deep.equal({ usage_period: '2026-02', usage_supplement: '1', usage_subscription: seller.subscriptionId });
        expect((await allOrders(svc, staff, first)).map((o) => o.order_id)).to.deep.equal(['LATE-L1']);
        expect((await allOrders(svc, staff, regular)).map((o) => o.order_id)).to.deep.equal(['LATE-F1']);
        expect((await svc.call(ops['billing.invoices.get'], regular, staff)).body.total).to.equal(300);
        expect((await pass()).generated.filter((g) => g.subscription_id === seller.subscriptionId)).to.deep.equal([]);
        // Sending the order again says where it is billed now.
        const again = await insert([order('LATE-L1', seller.orgId, buyer, 4000, '2026-02-20T10:00:00Z')]);
        expect(again.items[0]).to.deep.include({ status: 'already_recorded', late: false, billing_state: 'invoiced', invoice_id: first });
      });

      it('generate bills the next late order on the next supplementary invoice, answers that draft, and then answers it unchanged', async () => {
        await insert([order('LATE-L2', seller.orgId, buyer, 1000, '2026-02-21T10:00:00Z')]);
        const second = await generate(seller.subscriptionId);
        expect(second.status, JSON.stringify(second.body)).to.equal(200);
        expect(second.body.id).to.not.be.oneOf([regular, first]);
        expect(second.body).to.deep.include({ total: 50 });
        expect(second.body.metadata.usage_supplement).to.equal('2');
        const again = await generate(seller.subscriptionId);
        expect(again.body).to.deep.equal(second.body);
        // Every order of the month is on exactly one of its invoices.
        const billed = [...(await allOrders(svc, staff, regular)), ...(await allOrders(svc, staff, first)), ...(await allOrders(svc, staff, second.body.id))].map((o) => o.order_id);
        expect(billed.sort()).to.deep.equal(['LATE-F1', 'LATE-L1', 'LATE-L2']);
        const items = await listed(seller.subscriptionId);
        expect(items.map((i) => [i.order_id, i.invoice_id])).to.deep.equal([['LATE-F1', regular], ['LATE-L1', first], ['LATE-L2', second.body.id]]);
      });

      it('generations racing with the worker make one supplementary invoice, holding each late order once', async () => {
        await insert([order('LATE-L3', seller.orgId, buyer, 2000, '2026-02-22T10:00:00Z'), order('LATE-L4', seller.orgId, buyer, 3000, '2026-02-23T10:00:00Z')]);
        await settle(svc);
        const [a, b, worker] = await Promise.all([generate(seller.subscriptionId), generate(seller.subscriptionId), svc.app.workers.runOnce()]);
        expect([a.status, b.status]).to.deep.equal([200, 200]);
        expect(b.body.id).to.equal(a.body.id);
        expect(((worker['usage-invoices'] as Pass).generated.filter((g) => g.subscription_id === seller.subscriptionId)).every((g) => g.invoice_id === a.body.id)).to.equal(true);
        expect(await eventTypes(`invoice-${a.body.id}`)).to.deep.equal(['InvoiceDrafted', 'InvoiceUsageRated']);
        expect((await allOrders(svc, staff, a.body.id)).map((o) => o.order_id)).to.deep.equal(['LATE-L3', 'LATE-L4']);
        expect(a.body.total).to.equal(50 + 75);
      });
    });

    describe('corrections, held orders and refused months', () => {
      let seller: Seller;
      let regular: string;

      it('a month with an order in another currency is refused by the worker, which records why (listed, counted) once', async () => {
        clock.set('2026-02-27T12:00:00Z');
        seller = await sellerWithSubscription(svc, { platform });
        await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 });
        await insert([order('FIX-1', seller.orgId, buyer, 1000, '2026-02-03T00:00:00Z'), order('FIX-2', seller.orgId, buyer, 1000, '2026-02-04T00:00:00Z', 'EUR')]);
        clock.set('2026-03-02T00:00:00Z');
        const refused = await generate(seller.subscriptionId);
        expect([refused.status, refused.body.code]).to.deep.equal([409, 'usage_unrateable']);
        // Sending it again in GBP is a conflict: usage facts change only by correction.
        const resend = await svc.call(ops['billing.usage.insert'], { orders: [order('FIX-2', seller.orgId, buyer, 1000, '2026-02-04T00:00:00Z')] }, staff);
        expect([resend.status, resend.body.code]).to.deep.equal([409, 'usage_conflict']);

        const res = await pass();
        expect(res.refused.filter((r) => r.subscription_id === seller.subscriptionId)).to.deep.equal([{ subscription_id: seller.subscriptionId, period: '2026-02', code: 'usage_unrateable' }]);
        await pass();
        await settle(svc);
        const list = await svc.call(ops['billing.usage.refusals.list'], { subscription_id: seller.subscriptionId }, staff);
        expect(list.status, JSON.stringify(list.body)).to.equal(200);
        expect(list.body.items).to.have.length(1);
        expect(list.body.items[0]).to.deep.include({ subscription_id: seller.subscriptionId, period: '2026-02', code: 'usage_unrateable', held_order_count: 0 });
        expect(list.body.items[0]?.issues.map((i) => [i.path, i.message.split(':')[0]])).to.deep.equal([['orders.FIX-2', 'currency_mismatch']]);
        // Two passes refused for the same reason: one event.
        const months = (await svc.app.knex('es_events').where('stream_id', 'like', 'usagemonth-%').where({ type: 'UsageMonthRefused' }).select('data')) as { data: { subscription_id: string } }[];
        expect(months.filter((m) => m.data.subscription_id === seller.subscriptionId)).to.have.length(1);
        const all = await svc.call(ops['billing.usage.refusals.list'], {}, staff);
        const metrics = await (await fetch(`${svc.url}/metrics`)).text();
        expect(metrics).to.match(new RegExp(`^usage_months_refused ${all.body.items.length}$`, 'm'));
        expect((await svc.call(ops['billing.usage.refusals.list'], {}, seller.token)).status).to.equal(403);
        // The Needs attention list shows it, with the customer and where to act.
        const attention = await svc.call(ops['billing.attention.list'], { kind: 'usage_month_refused' }, staff);
        const row = attention.body.items.find((i) => i.key === `usage_month_refused:${seller.subscriptionId}/2026-02`);
        expect(row).to.deep.include({ kind: 'usage_month_refused', customer: { id: seller.customerId, name: row?.customer?.name ?? '' }, href: `/console/usage?subscription_id=${seller.subscriptionId}&period=2026-02` });
        expect(row?.cause).to.match(/FIX-2 \(currency_mismatch: /);
      });

      it('staff invoice the month without the unrateable order: it is held, listed with why, and the refusal is cleared', async () => {
        const inv = await generate(seller.subscriptionId, { hold_unrateable: true });
        expect(inv.status, JSON.stringify(inv.body)).to.equal(200);
        regular = inv.body.id;
        expect(inv.body.total).to.equal(50);
        expect((await allOrders(svc, staff, regular)).map((o) => o.order_id)).to.deep.equal(['FIX-1']);
        const held = await listed(seller.subscriptionId, { billing_state: 'held' });
        expect(held.map((h) => [h.order_id, h.billing_state])).to.deep.equal([['FIX-2', 'held']]);
        expect(held[0]?.held_reasons).to.match(/^currency_mismatch: /);
        expect((await svc.call(ops['billing.usage.refusals.list'], { subscription_id: seller.subscriptionId }, staff)).body.items).to.deep.equal([]);
        // Held at these facts, the order does not refuse the month again.
        expect((await pass()).refused.filter((r) => r.subscription_id === seller.subscriptionId)).to.deep.equal([]);
        expect((await generate(seller.subscriptionId)).body.id).to.equal(regular);
        const attention = await svc.call(ops['billing.attention.list'], {}, staff);
        expect(attention.body.items.map((i) => i.key)).to.not.include(`usage_month_refused:${seller.subscriptionId}/2026-02`);
        const heldRow = attention.body.items.find((i) => i.key === `held_usage:${seller.subscriptionId}/2026-02`);
        expect(heldRow?.summary).to.match(/^1 order\(s\) of 2026-02 /);
      });

      it('replacing the held order (in GBP, with a reason) bills it on a supplementary invoice; the original stays in history', async () => {
        const replaced = await svc.call(ops['billing.usage.replace'], { order_id: 'FIX-2', reason: 'Sent in EUR by mistake', amount: { amount: 1000, currency: 'GBP' } }, staff);
        expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
        expect(replaced.body).to.deep.include({ revision: 1, billing_state: 'unbilled', amount: { amount: 1000, currency: 'GBP' } });
        expect(replaced.body.correction).to.deep.include({ kind: 'replaced', reason: 'Sent in EUR by mistake' });
        const supplement = await generate(seller.subscriptionId);
        expect(supplement.status, JSON.stringify(supplement.body)).to.equal(200);
        expect(supplement.body.id).to.not.equal(regular);
        expect(supplement.body.total).to.equal(50);
        expect((await allOrders(svc, staff, supplement.body.id)).map((o) => [o.order_id, o.amount.currency])).to.deep.equal([['FIX-2', 'GBP']]);
        const items = await listed(seller.subscriptionId);
        expect(items.map((i) => [i.order_id, i.billing_state, i.invoice_id])).to.deep.equal([['FIX-1', 'invoiced', regular], ['FIX-2', 'invoiced', supplement.body.id]]);
        const stream = (await svc.app.knex('es_events').where({ type: 'UsageReplaced' }).whereRaw(`data->>'order_id' = 'FIX-2'`).first('stream_id')) as { stream_id: string };
        expect(await eventTypes(stream.stream_id)).to.deep.equal(['UsageRecorded', 'UsageReplaced']);
        const attention = await svc.call(ops['billing.attention.list'], { kind: 'held_usage' }, staff);
        expect(attention.body.items.map((i) => i.key)).to.not.include(`held_usage:${seller.subscriptionId}/2026-02`);
      });

      it('an invoiced order is replaced (within its month and currency) or voided, and the difference is billed by re-rating its invoice, shown in Needs attention until then', async () => {
        const finalize = async (id: string) => {
          const res = await svc.call(ops['billing.invoices.update'], { id, action: 'finalize' }, staff);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          return res.body;
        };
        const preview = async (id: string) => {
          const res = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: id }, staff);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          return res.body;
        };
        const due = async () => (await svc.call(ops['billing.attention.list'], { kind: 'usage_correction_due' }, staff)).body.items.find((i) => i.invoice_id === regular);
        // Its invoice is of February in GBP: a replacement keeps both.
        const currency = await svc.call(ops['billing.usage.replace'], { order_id: 'FIX-1', reason: 'Wrong currency', amount: { amount: 1000, currency: 'EUR' } }, staff);
        expect([currency.status, currency.body.code]).to.deep.equal([409, 'usage_invoiced']);
        expect(currency.body.message).to.match(/keeps that month and currency/);
        const month = await svc.call(ops['billing.usage.replace'], { order_id: 'FIX-1', reason: 'Wrong day', occurred_at: '2026-01-31T10:00:00Z' }, staff);
        expect([month.status, month.body.code]).to.deep.equal([409, 'usage_invoiced']);
        expect(await due()).to.equal(undefined);

        // Replaced: recorded on the order's stream, still on its invoice; the invoice (a draft) shows in Needs attention.
        const replaced = await svc.call(ops['billing.usage.replace'], { order_id: 'FIX-1', reason: 'Amount was 40.00', amount: { amount: 4000, currency: 'GBP' } }, staff);
        expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
        expect(replaced.body).to.deep.include({ revision: 1, billing_state: 'invoiced', invoice_id: regular, amount: { amount: 4000, currency: 'GBP' } });
        const row = await due();
        expect(row).to.deep.include({ kind: 'usage_correction_due', key: `usage_correction_due:${regular}`, href: `/console/invoices/${regular}/rerate`, amount: { amount: 50, currency: 'GBP' } });
        expect(row?.customer?.id).to.equal(seller.customerId);
        expect(row?.summary).to.match(/1 order\(s\) of invoice .* were replaced after it was invoiced/);
        expect(row?.resolve).to.match(/^Finalize the draft/);

        // The re-rating rates it with the corrected facts; applying bills the difference on a correction invoice.
        expect((await finalize(regular)).total).to.equal(50);
        const raise = await preview(regular);
        expect(raise).to.deep.include({ old_total: 50, new_total: 100, difference: 50, changed_order_count: 1 });
        expect(raise.orders.map((o) => [o.order_id, o.old.fee, o.new.fee])).to.deep.equal([['FIX-1', 50, 100]]);
        const applied = await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: regular, diff_hash: raise.diff_hash, reason: 'FIX-1 corrected to 40.00' }, staff);
        expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
        expect(applied.body).to.deep.include({ difference: 50, credit_notes: [] });
        const correctionInvoice = applied.body.correction_invoice_id ?? '';
        expect((await svc.call(ops['billing.invoices.get'], correctionInvoice, staff)).body.total).to.equal(50);
        expect(await due()).to.equal(undefined);
        expect((await preview(regular)).changed_order_count).to.equal(0);

        // Voided: its fee goes to 0; applying credits what the invoice and its correction invoice billed for it.
        const voided = await svc.call(ops['billing.usage.void'], { order_id: 'FIX-1', reason: 'Cancelled order' }, staff);
        expect(voided.status, JSON.stringify(voided.body)).to.equal(200);
        expect(voided.body).to.deep.include({ billing_state: 'voided', invoice_id: regular });
        expect(voided.body.correction).to.deep.include({ kind: 'voided', reason: 'Cancelled order' });
        expect(await due()).to.deep.include({ amount: { amount: -100, currency: 'GBP' } });
        expect((await due())?.summary).to.match(/were voided after it was invoiced/);
        const back = await preview(regular);
        expect(back).to.deep.include({ old_total: 100, new_total: 0, difference: -100 });
        expect(back.orders.map((o) => [o.order_id, o.old.fee, o.new.fee, o.new.exempt_amount])).to.deep.equal([['FIX-1', 100, 0, 0]]);
        await finalize(correctionInvoice);
        const credited = await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: regular, diff_hash: back.diff_hash, reason: 'FIX-1 cancelled' }, staff);
        expect(credited.status, JSON.stringify(credited.body)).to.equal(200);
        expect(credited.body).to.deep.include({ difference: -100, correction_invoice_id: null });
        expect(credited.body.credit_notes.map((c) => [c.invoice_id, c.amount])).to.deep.equal([[regular, 50], [correctionInvoice, 50]]);
        expect(await due()).to.equal(undefined);
        // The order stays on its invoice once; generation bills nothing new for it.
        expect((await pass()).generated.filter((g) => g.subscription_id === seller.subscriptionId)).to.deep.equal([]);
        const stream = (await svc.app.knex('es_events').where({ type: 'UsageVoided' }).whereRaw(`data->>'order_id' = 'FIX-1'`).first('stream_id')) as { stream_id: string };
        expect(await eventTypes(stream.stream_id)).to.deep.equal(['UsageRecorded', 'UsageReplaced', 'UsageVoided']);
      });

      it('a voided late order is never billed; voided orders are not replaced; bad requests are refused', async () => {
        await insert([order('FIX-3', seller.orgId, buyer, 9000, '2026-02-10T00:00:00Z')]);
        const voided = await svc.call(ops['billing.usage.void'], { order_id: 'FIX-3', reason: 'Test order' }, staff);
        expect(voided.status, JSON.stringify(voided.body)).to.equal(200);
        expect(voided.body).to.deep.include({ billing_state: 'voided', invoice_id: null });
        expect(voided.body.correction).to.deep.include({ kind: 'voided', reason: 'Test order' });
        const again = await svc.call(ops['billing.usage.void'], { order_id: 'FIX-3', reason: 'Test order' }, staff);
        expect(again.status).to.equal(200);
        expect((await pass()).generated.filter((g) => g.subscription_id === seller.subscriptionId)).to.deep.equal([]);
        expect((await listed(seller.subscriptionId, { billing_state: 'voided' })).map((i) => [i.order_id, i.invoice_id])).to.deep.equal([['FIX-1', regular], ['FIX-3', null]]);
        const noReplace = await svc.call(ops['billing.usage.replace'], { order_id: 'FIX-3', reason: 'Oops', amount: { amount: 5, currency: 'GBP' } }, staff);
        expect([noReplace.status, noReplace.body.code]).to.deep.equal([409, 'usage_voided']);

        const unknown = await svc.call(ops['billing.usage.void'], { order_id: 'NO-SUCH-ORDER', reason: 'x' }, staff);
        expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'usage_not_found']);
        const noReason = await svc.send('billing.usage.void', { order_id: 'FIX-3' }, staff);
        expect([noReason.status, noReason.body.code]).to.deep.equal([400, 'invalid_request']);
        const nothing = await svc.send('billing.usage.replace', { order_id: 'FIX-3', reason: 'x' }, staff);
        expect([nothing.status, nothing.body.code]).to.deep.equal([400, 'invalid_request']);
        expect((await svc.call(ops['billing.usage.void'], { order_id: 'FIX-3', reason: 'x' }, seller.token)).status).to.equal(403);
      });
    });

    describe('the baseline is not exempted twice', () => {
      let c: ConfiguredSeller;
      let regularId: string;
      let supplementId: string;

      it('a late pre-existing order is rated after the billed ones: it is exempt only by what the baseline has left', async () => {
        clock.set('2026-02-27T12:00:00Z');
        c = await configuredSeller(svc);
        const ok = <T extends { status: number; body: unknown }>(r: T, what: string): T => {
          expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(200);
          return r;
        };
        ok(await svc.call(ops['billing.customers.insert'], { name: 'Baseline Seller', email: 'ap@seller.example', currency: 'GBP' }, c.seller.token), 'customer');
        const pre = await newBuyer(svc);
        const rel = await relate(svc, c, pre);
        ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Customer since 2019' }, c.billingStaff), 'claim');
        const prep = ok(await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: [{ filename: 'contract.pdf', content_type: 'application/pdf', size: PDF.length }] }, c.billingStaff), 'prepare');
        const item = prep.body.items[0];
        if (!item) throw new Error('no upload prepared');
        expect((await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: PDF })).status).to.equal(200);
        ok(await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: item.id }] }, c.billingStaff), 'evidence');
        ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'accept_claim', reason: 'Contract checked' }, c.billingStaff), 'accept');
        await baseline(svc, c, { effective_from: '2026-01-01', monthly_exempt_amount: 10_000 });
        await configPricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 }, minimum_fee: 0 });

        ok(await svc.call(ops['billing.usage.insert'], { orders: [order('BASE-1', c.seller.orgId, pre, 8000, '2026-02-02T00:00:00Z')] }, c.billingStaff), 'insert');
        clock.set('2026-03-01T01:00:00Z');
        const inv = ok(await svc.call(ops['billing.invoices.generate'], { subscription_id: c.subscriptionId, period: '2026-02' }, c.billingStaff), 'generate').body;
        expect(inv.total).to.equal(0); // 8,000 of the 10,000 baseline: exempt
        // A late order that occurred before it: rated after the billed one, so 2,000 is left of the baseline, not 10,000.
        ok(await svc.call(ops['billing.usage.insert'], { orders: [order('BASE-0', c.seller.orgId, pre, 5000, '2026-02-01T00:00:00Z')] }, c.billingStaff), 'late insert');
        const supplement = ok(await svc.call(ops['billing.invoices.generate'], { subscription_id: c.subscriptionId, period: '2026-02' }, c.billingStaff), 'supplement').body;
        expect(supplement.id).to.not.equal(inv.id);
        regularId = inv.id;
        supplementId = supplement.id;
        const [late] = await allOrders(svc, c.billingStaff, supplement.id);
        expect(late).to.deep.include({ order_id: 'BASE-0', classification: 'pre_existing', exempt_amount: 2000, chargeable_amount: 3000 });
        expect(late?.fee.amount).to.equal(60);
        expect(supplement.total).to.equal(60);
      });

      it('re-rating the supplementary invoice rates it after the month\'s invoice, as generation did: nothing differs', async () => {
        const body = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: supplementId }, c.billingStaff);
        expect(body.status, JSON.stringify(body.body)).to.equal(200);
        expect(body.body).to.deep.include({ old_total: 60, new_total: 60, difference: 0, changed_order_count: 0 });
        expect((await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: regularId }, c.billingStaff)).body).to.deep.include({ difference: 0, changed_order_count: 0 });
      });

      it('voiding the invoiced order frees its baseline: the supplementary invoice\'s re-rating credits the late order\'s fee', async () => {
        const voided = await svc.call(ops['billing.usage.void'], { order_id: 'BASE-1', reason: 'Duplicate of another order' }, c.billingStaff);
        expect(voided.status, JSON.stringify(voided.body)).to.equal(200);
        const regular = (await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: regularId }, c.billingStaff)).body;
        expect(regular).to.deep.include({ difference: 0, changed_order_count: 1 });
        expect(regular.orders.map((o) => [o.order_id, o.old.exempt_amount, o.new.exempt_amount, o.new.fee])).to.deep.equal([['BASE-1', 8000, 0, 0]]);
        const late = (await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: supplementId }, c.billingStaff)).body;
        expect(late).to.deep.include({ old_total: 60, new_total: 0, difference: -60 });
        expect(late.orders.map((o) => [o.order_id, o.old.exempt_amount, o.new.exempt_amount])).to.deep.equal([['BASE-0', 2000, 5000]]);
        // Needs attention shows both: the invoice of the voided order, and the supplementary one whose baseline it freed.
        const attention = (await svc.call(ops['billing.attention.list'], { kind: 'usage_correction_due' }, c.billingStaff)).body.items;
        expect(attention.filter((i) => i.invoice_id === regularId || i.invoice_id === supplementId).map((i) => [i.invoice_id, i.amount?.amount]).sort())
          .to.deep.equal([[regularId, 0], [supplementId, -60]].sort());
        expect((await svc.call(ops['billing.invoices.update'], { id: supplementId, action: 'finalize' }, c.billingStaff)).status).to.equal(200);
        const applied = await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: supplementId, diff_hash: late.diff_hash, reason: 'BASE-1 voided' }, c.billingStaff);
        expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
        expect(applied.body.credit_notes.map((n) => [n.invoice_id, n.amount])).to.deep.equal([[supplementId, 60]]);
        expect((await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: supplementId }, c.billingStaff)).body.changed_order_count).to.equal(0);
        const left = (await svc.call(ops['billing.attention.list'], { kind: 'usage_correction_due' }, c.billingStaff)).body.items;
        expect(left.map((i) => i.invoice_id)).to.not.include(supplementId);
      });
    });
  });
}
