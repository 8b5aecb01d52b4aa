// Issue 26 section 5 over HTTP: a re-rating diff becomes documents (billing.invoices.rerate.apply), and a revision's
// impact is shown before it is saved (billing.configuration.pricing|baselines.preview-impact).
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { billingStaff, paymentBody } from '../support/billing.ts';
import { systemContext } from '../support/system.ts';
import { nameId } from '../../src/ids.ts';
import { correctionIdOf, correctionLines, invoiceCorrections } from '../../src/commands/billing/invoice-corrections.ts';
import type { OrderChange } from '../../src/queries/billing/invoice-corrections.ts';
import { relate } from '../support/configuration.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x20), Buffer.from('\n%%EOF\n')]);
import { type Seller, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';

for (const backend of backends()) {
  describe(`re-rating corrections and revision impact over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let platform: string;
    let seller: Seller;
    let buyer: string;
    let firstPricing: string;
    let raisedPricing: string;
    let steepPricing: string;
    let invoiceId: string;
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    const preview = async (id = invoiceId) => {
      const res = await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: id }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const apply = (diffHash: string, reason = 'Back-dated rate card of 15 February', id = invoiceId) =>
      svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: id, diff_hash: diffHash, reason }, staff);
    const raise = { subscription_id: '', currency: 'GBP', effective_from: '2026-02-15', rates_bps: { platform_introduced: 300, pre_existing: 100 }, minimum_fee: 50, reason: 'Rate card' };

    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-02-27T12:00:00Z');
      staff = await billingStaff(svc);
      platform = await longPlatformStaff(svc);
      seller = await sellerWithSubscription(svc, { platform });
      buyer = (await svc.signUp()).orgId;
      firstPricing = (await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 })).id;
      // 2.5% with a 0.50 minimum, half-even per order: 300, 50 (minimum), 126 (125.5), 124 (124.5) = 600.
      const res = await svc.call(ops['billing.usage.insert'], {
        orders: [
          order('C-1', seller.orgId, buyer, 12000, '2026-02-01T10:00:00Z'),
          order('C-2', seller.orgId, buyer, 1000, '2026-02-10T10:00:00Z'),
          order('C-3', seller.orgId, buyer, 5020, '2026-02-20T10:00:00Z'),
          order('C-4', seller.orgId, buyer, 4980, '2026-02-27T10:00:00Z'),
        ],
      }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      svc.clock.set('2026-03-02T09:00:00Z');
      const gen = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-02' }, staff);
      expect(gen.status, JSON.stringify(gen.body)).to.equal(200);
      invoiceId = gen.body.id;
      raise.subscription_id = seller.subscriptionId;
    });
    after(async () => svc?.close());

    it('a draft is not corrected (finalize it first); the seller cannot apply; a malformed hash is 400', async () => {
      const diff = await preview();
      expect(diff).to.deep.include({ difference: 0, changed_order_count: 0, corrections_applied: 0 });
      const draft = await apply(diff.diff_hash);
      expect([draft.status, draft.body.code]).to.deep.equal([409, 'invoice_not_correctable']);
      expect((await svc.call(ops['billing.invoices.rerate.apply'], { invoice_id: invoiceId, diff_hash: diff.diff_hash, reason: 'x' }, seller.token)).status).to.equal(403);
      const bad = await svc.send('billing.invoices.rerate.apply', { invoice_id: invoiceId, diff_hash: 'abc', reason: 'x' }, staff);
      expect([bad.status, bad.body.code]).to.deep.equal([400, 'invalid_request']);
      const fin = await svc.call(ops['billing.invoices.update'], { id: invoiceId, action: 'finalize' }, staff);
      expect(fin.status, JSON.stringify(fin.body)).to.equal(200);
    });

    it('previews the impact of a pricing revision before it is saved: the invoice, its month, old and new totals; nothing is written', async () => {
      const before = await eventCount();
      const refused = await svc.call(ops['billing.configuration.pricing.preview-impact'], raise, staff);
      expect([refused.status, refused.body.code]).to.deep.equal([409, 'revision_overlap']);
      const res = await svc.call(ops['billing.configuration.pricing.preview-impact'], { ...raise, supersedes: [firstPricing] }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      // C-3 and C-4 at 3%: 150.6 -> 151, 149.4 -> 149.
      expect(res.body.items).to.deep.equal([{
        invoice_id: invoiceId, number: res.body.items[0]?.number ?? null, status: 'open', period: '2026-02', old_total: 600, new_total: 650, difference: 50, changed_order_count: 2, unrateable_order_count: 0,
      }]);
      expect(res.body).to.deep.include({ subscription_id: seller.subscriptionId, months: { from: '2026-02', to: '2026-02' }, examined: 1, pagination: null });
      // A baseline would exempt nothing here (no order is pre-existing): no invoice changes.
      const baseline = await svc.call(ops['billing.configuration.baselines.preview-impact'], { subscription_id: seller.subscriptionId, currency: 'GBP', effective_from: '2026-02-01', monthly_exempt_amount: 100000, reason: 'What if' }, staff);
      expect(baseline.status, JSON.stringify(baseline.body)).to.equal(200);
      expect(baseline.body.items).to.deep.equal([]);
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.configuration.pricing.preview-impact'], { ...raise, supersedes: [firstPricing] }, seller.token)).status).to.equal(403);
    });

    it('pages the impact by invoice, oldest month first', async () => {
      const other = await sellerWithSubscription(svc, { platform });
      const own = (await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 200, pre_existing: 100 } })).id;
      await svc.call(ops['billing.usage.insert'], { orders: [order('P-1', other.orgId, buyer, 10000, '2026-01-05T00:00:00Z'), order('P-2', other.orgId, buyer, 20000, '2026-02-05T00:00:00Z')] }, staff);
      const ids: string[] = [];
      for (const period of ['2026-01', '2026-02']) ids.push((await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period }, staff)).body.id);
      const body = { subscription_id: other.subscriptionId, currency: 'GBP', effective_from: '2026-01-01', rates_bps: { platform_introduced: 300, pre_existing: 100 }, minimum_fee: 0, reason: 'What if', supersedes: [own], limit: 1 };
      const first = await svc.call(ops['billing.configuration.pricing.preview-impact'], body, staff);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.items.map((i) => [i.invoice_id, i.period, i.status, i.old_total, i.new_total, i.difference])).to.deep.equal([[ids[0], '2026-01', 'draft', 200, 300, 100]]);
      expect(first.body.months).to.deep.equal({ from: '2026-01', to: '2026-02' });
      const second = await svc.call(ops['billing.configuration.pricing.preview-impact'], { ...body, cursor: first.body.pagination?.cursor }, staff);
      expect(second.body.items.map((i) => [i.invoice_id, i.period, i.difference])).to.deep.equal([[ids[1], '2026-02', 200]]);
      expect(second.body.pagination).to.equal(null);
      // Only its range: a revision from February leaves January alone.
      const feb = await svc.call(ops['billing.configuration.pricing.preview-impact'], { ...body, effective_from: '2026-02-01', limit: 12 }, staff);
      expect(feb.body.items.map((i) => i.period)).to.deep.equal(['2026-02']);
    });

    it('an undercharge becomes a draft correction invoice of the same customer and currency, its line naming the orders and revisions', async () => {
      raisedPricing = (await pricing(svc, staff, seller.subscriptionId, { ...raise, supersedes: [firstPricing] })).id;
      const diff = await preview();
      expect(diff).to.deep.include({ old_total: 600, new_total: 650, difference: 50, changed_order_count: 2 });
      const res = await apply(diff.diff_hash);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ invoice_id: invoiceId, sequence: 1, difference: 50, order_count: 2, credit_notes: [], reason: 'Back-dated rate card of 15 February', currency: 'GBP' });
      expect(res.body.lines).to.have.length(1);
      expect(res.body.lines[0]).to.deep.include({ line_index: 0, source_line_index: 0, order_count: 2, old_fees: 250, new_fees: 300, amount: 50 });
      expect(res.body.lines[0]?.old).to.deep.include({ pricing_revision_id: firstPricing, rate_bps: 250 });
      expect(res.body.lines[0]?.new).to.deep.include({ pricing_revision_id: raisedPricing, rate_bps: 300 });
      const correctionInvoice = String(res.body.correction_invoice_id);
      const inv = await svc.call(ops['billing.invoices.get'], correctionInvoice, staff);
      expect(inv.body).to.deep.include({ status: 'draft', customer_id: seller.customerId, currency: 'GBP', total: 50 });
      expect(inv.body.lines[0]).to.deep.include({ kind: 'manual', amount: 50 });
      expect(inv.body.lines[0]?.description).to.match(/line 1: 2 platform-introduced order\(s\), 2\.50% .* -> 3\.00%/);
      expect(inv.body.metadata).to.deep.equal({ corrected_invoice_id: invoiceId, correction_id: res.body.id });
      const orders = await svc.call(ops['billing.invoices.corrections.orders.list'], { correction_id: res.body.id }, staff);
      expect(orders.body.items.map((o) => [o.order_id, o.old.fee, o.new.fee, o.difference, o.old.pricing_revision_id, o.new.pricing_revision_id])).to.deep.equal([
        ['C-3', 126, 151, 25, firstPricing, raisedPricing], ['C-4', 124, 149, 25, firstPricing, raisedPricing],
      ]);
      // The corrections count as billed: nothing is left to correct.
      expect(await preview()).to.deep.include({ old_total: 650, new_total: 650, difference: 0, changed_order_count: 0, corrections_applied: 1 });
      // The same diff again (a retry, a second tab) answers the first result and writes nothing.
      const before = await eventCount();
      const again = await apply(diff.diff_hash);
      expect([again.status, again.body]).to.deep.equal([200, res.body]);
      expect(await eventCount()).to.equal(before);
      const nothing = await apply((await preview()).diff_hash);
      expect([nothing.status, nothing.body.code]).to.deep.equal([409, 'nothing_to_correct']);
      const list = await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: invoiceId }, staff);
      expect(list.body.items.map((c) => c.id)).to.deep.equal([res.body.id]);
    });

    it('refuses a diff that is not the one previewed any more (409 rerate_diff_changed), writing nothing', async () => {
      const seen = await preview();
      steepPricing = (await pricing(svc, staff, seller.subscriptionId, { ...raise, effective_from: '2026-02-20', rates_bps: { platform_introduced: 400, pre_existing: 100 }, supersedes: [raisedPricing] })).id;
      const before = await eventCount();
      const res = await apply(seen.diff_hash);
      expect([res.status, res.body.code]).to.deep.equal([409, 'rerate_diff_changed']);
      expect(await eventCount()).to.equal(before);
    });

    it('an overcharge becomes an issued credit note on the invoice (statement and balance); two tabs applying it at once make one', async () => {
      await pricing(svc, staff, seller.subscriptionId, {
        effective_from: '2026-02-01', rates_bps: { platform_introduced: 100, pre_existing: 100 }, minimum_fee: 50, reason: 'Agreed discount', supersedes: [firstPricing, raisedPricing, steepPricing],
      });
      const diff = await preview();
      // 1% with a 0.50 minimum: 120, 50, 50, 50 = 270, against 650 billed.
      expect(diff).to.deep.include({ old_total: 650, new_total: 270, difference: -380 });
      const [a, b] = await Promise.all([apply(diff.diff_hash, 'Discount agreed'), apply(diff.diff_hash, 'Discount agreed')]);
      expect([a?.status, b?.status], JSON.stringify([a?.body, b?.body])).to.deep.equal([200, 200]);
      expect(b?.body).to.deep.equal(a?.body);
      expect(a?.body).to.deep.include({ difference: -380, correction_invoice_id: null, sequence: 2 });
      const credits = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: invoiceId }, staff);
      expect(credits.body.items).to.have.length(1);
      expect(a?.body.credit_notes.map((n) => [n.invoice_id, n.amount])).to.deep.equal([[invoiceId, 380]]);
      expect(credits.body.items[0]).to.deep.include({ id: a?.body.credit_notes[0]?.credit_note_request_id, status: 'issued', amount: 380, invoice_id: invoiceId, applied_to_invoice: 380 });
      const inv = await svc.call(ops['billing.invoices.get'], invoiceId, staff);
      expect(inv.body).to.deep.include({ total: 600, amount_credited: 380, amount_remaining: 220 });
      const statement = await svc.call(ops['billing.customers.statement.get'], { customer_id: seller.customerId, from: '2026-03-01', to: '2026-03-31' }, staff);
      expect(statement.body.lines.filter((l) => l.kind === 'credit').map((l) => l.credit)).to.deep.equal([380]);
      const seen = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: invoiceId }, seller.token);
      expect(seen.body.items.map((c) => c.amount)).to.deep.equal([380]);
      expect(await preview()).to.deep.include({ old_total: 270, difference: 0, corrections_applied: 2 });
      const list = await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: invoiceId }, staff);
      expect(list.body.items.map((c) => [c.sequence, c.difference])).to.deep.equal([[1, 50], [2, -380]]);
    });

    it('an overcharge above what can be credited is refused, writing nothing; once paid it becomes customer credit, and a crash after the record is finished by the retry', async () => {
      const other = await sellerWithSubscription(svc, { platform });
      const ten = (await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 1000, pre_existing: 1000 } })).id;
      await svc.call(ops['billing.usage.insert'], { orders: [order('D-1', other.orgId, buyer, 10000, '2026-02-03T00:00:00Z'), order('D-2', other.orgId, buyer, 10000, '2026-02-04T00:00:00Z')] }, staff);
      const id = (await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period: '2026-02' }, staff)).body.id;
      expect((await svc.call(ops['billing.invoices.update'], { id, action: 'finalize' }, staff)).body.total).to.equal(2000);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(id, 1900, { received_on: '2026-03-02' }), staff)).status).to.equal(200);
      const five = (await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-02-01', rates_bps: { platform_introduced: 500, pre_existing: 500 }, supersedes: [ten] })).id;
      const diff = await preview(id);
      expect(diff).to.deep.include({ old_total: 2000, new_total: 1000, difference: -1000 });
      const before = await eventCount();
      const refused = await apply(diff.diff_hash, 'Discount', id);
      expect([refused.status, refused.body.code]).to.deep.equal([409, 'amount_exceeds_creditable']);
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(id, 100, { received_on: '2026-03-02' }), staff)).status).to.equal(200);
      // A crash right after the correction was recorded: the record is there, the credit note is not.
      const invoice = (await svc.call(ops['billing.invoices.get'], id, staff)).body;
      const changes: OrderChange[] = diff.orders.map((o) => ({
        order_id: o.order_id, source_line_index: o.line_index, changed: o.changed, old: { ...o.old, minimum_fee: 0 }, new: { ...o.new, minimum_fee: 0 },
      }));
      const { lines, orders } = correctionLines(String(invoice.number), changes);
      const correctionId = correctionIdOf(id, diff.diff_hash);
      await invoiceCorrections.run(systemContext(svc.app), id, {
        type: 'RecordInvoiceCorrection',
        data: {
          invoice_id: id, organization_id: invoice.organization_id, customer_id: invoice.customer_id, currency: 'GBP', correction_id: correctionId, basis: 0, diff_hash: diff.diff_hash,
          reason: 'Discount', as_of: diff.as_of, difference: -1000, order_count: orders.length, lines, orders,
          credit_notes: [{ invoice_id: id, credit_note_request_id: nameId('billing-rerate-correction-credit', `${correctionId}/${id}`), amount: 1000 }], correction_invoice_id: null,
        },
      });
      expect((await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: id }, staff)).body.items).to.deep.equal([]);
      // The retry (the same diff) finds the record and writes the credit note; the invoice was paid, so it becomes customer credit.
      const retried = await apply(diff.diff_hash, 'Discount', id);
      expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
      expect(retried.body).to.deep.include({ id: correctionId, difference: -1000 });
      expect(retried.body.lines[0]?.new.pricing_revision_id).to.equal(five);
      const credits = (await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: id }, staff)).body.items;
      expect(credits.map((c) => [c.status, c.amount, c.applied_to_invoice, c.credited_to_balance])).to.deep.equal([['issued', 1000, 0, 1000]]);
      expect((await svc.call(ops['billing.invoices.get'], id, staff)).body).to.deep.include({ status: 'paid', amount_credited: 1000, amount_credited_to_balance: 1000 });
      expect(await preview(id)).to.deep.include({ old_total: 1000, difference: 0 });
      const statement = await svc.call(ops['billing.customers.statement.get'], { customer_id: other.customerId, from: '2026-03-01', to: '2026-03-31' }, staff);
      expect(statement.body.unapplied_credit).to.equal(1000);
    });

    it('a baseline revision\'s impact on pre-existing orders is previewed, then credited, each line naming the baseline behind it', async () => {
      const other = await sellerWithSubscription(svc, { platform });
      const c = { platformStaff: platform, billingStaff: staff, seller: { orgId: other.orgId, token: other.token }, subscriptionId: other.subscriptionId };
      const known = (await svc.signUp({ kind: 'repairer' })).orgId;
      const rel = await relate(svc, c, known);
      expect((await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Customer since 2019' }, staff)).status).to.equal(200);
      const prep = await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: [{ filename: 'contract.pdf', content_type: 'application/pdf', size: PDF.length }] }, staff);
      const item = prep.body.items[0];
      if (!item) throw new Error('no upload prepared');
      expect((await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: PDF })).status).to.equal(200);
      expect((await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: item.id }] }, staff)).status).to.equal(200);
      expect((await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'accept_claim', reason: 'Contract checked' }, staff)).status).to.equal(200);
      await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 1000, pre_existing: 1000 } });
      await svc.call(ops['billing.usage.insert'], { orders: [order('B-1', other.orgId, known, 20000, '2026-02-03T00:00:00Z'), order('B-2', other.orgId, known, 20000, '2026-02-10T00:00:00Z')] }, staff);
      const id = (await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period: '2026-02' }, staff)).body.id;
      expect((await svc.call(ops['billing.invoices.update'], { id, action: 'finalize' }, staff)).body.total).to.equal(4000);
      // 300.00 a month exempt: B-1 wholly (fee 0), B-2 on 100.00 of its 200.00 (fee 10.00).
      const body = { subscription_id: other.subscriptionId, currency: 'GBP', effective_from: '2026-02-01', monthly_exempt_amount: 30000, reason: 'Agreed volume' };
      const impact = await svc.call(ops['billing.configuration.baselines.preview-impact'], body, staff);
      expect(impact.status, JSON.stringify(impact.body)).to.equal(200);
      expect(impact.body.items.map((i) => [i.invoice_id, i.period, i.old_total, i.new_total, i.difference, i.changed_order_count])).to.deep.equal([[id, '2026-02', 4000, 1000, -3000, 2]]);
      const saved = await svc.call(ops['billing.configuration.baselines.insert'], body, staff);
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      const diff = await preview(id);
      expect(diff).to.deep.include({ old_total: 4000, new_total: 1000, difference: -3000 });
      const res = await apply(diff.diff_hash, 'Baseline agreed for 2026', id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.lines.map((l) => [l.order_count, l.amount, l.old.baseline_revision_id, l.new.baseline_revision_id, l.new.classification])).to.deep.equal([[2, -3000, null, saved.body.id, 'pre_existing']]);
      const orders = await svc.call(ops['billing.invoices.corrections.orders.list'], { correction_id: res.body.id }, staff);
      expect(orders.body.items.map((o) => [o.order_id, o.old.exempt_amount, o.new.exempt_amount, o.old.fee, o.new.fee, o.new.relationship_id])).to.deep.equal([
        ['B-1', 0, 20000, 2000, 0, rel.id], ['B-2', 0, 10000, 2000, 1000, rel.id],
      ]);
      expect((await svc.call(ops['billing.invoices.get'], id, staff)).body).to.deep.include({ amount_credited: 3000, amount_remaining: 1000 });
    });

    it('an overcharge undoing a raise billed on a correction invoice is credited on the invoice, then on that correction invoice once finalized', async () => {
      const other = await sellerWithSubscription(svc, { platform });
      const ten = (await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 1000, pre_existing: 1000 } })).id;
      await svc.call(ops['billing.usage.insert'], { orders: [order('R-1', other.orgId, buyer, 10000, '2026-02-03T00:00:00Z'), order('R-2', other.orgId, buyer, 10000, '2026-02-04T00:00:00Z')] }, staff);
      const id = (await svc.call(ops['billing.invoices.generate'], { subscription_id: other.subscriptionId, period: '2026-02' }, staff)).body.id;
      expect((await svc.call(ops['billing.invoices.update'], { id, action: 'finalize' }, staff)).body.total).to.equal(2000);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(id, 2000, { received_on: '2026-03-02' }), staff)).status).to.equal(200);
      // 10% -> 50%: +8,000 on a correction invoice.
      const fifty = (await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-02-01', rates_bps: { platform_introduced: 5000, pre_existing: 1000 }, supersedes: [ten] })).id;
      const raised = await apply((await preview(id)).diff_hash, 'Rate card of February', id);
      expect(raised.body).to.deep.include({ difference: 8000 });
      const correctionInvoice = String(raised.body.correction_invoice_id);
      // 50% -> 0%: the 10,000 billed is all overcharged; the paid invoice can take 2,000, the draft correction invoice nothing yet.
      await pricing(svc, staff, other.subscriptionId, { effective_from: '2026-02-01', rates_bps: { platform_introduced: 0, pre_existing: 0 }, supersedes: [fifty] });
      const diff = await preview(id);
      expect(diff).to.deep.include({ old_total: 10000, new_total: 0, difference: -10000 });
      const before = await eventCount();
      const refused = await apply(diff.diff_hash, 'Fees waived for February', id);
      expect([refused.status, refused.body.code]).to.deep.equal([409, 'amount_exceeds_creditable']);
      expect(refused.body.message).to.match(/finalized first/);
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.invoices.update'], { id: correctionInvoice, action: 'finalize' }, staff)).status).to.equal(200);
      const waived = await apply(diff.diff_hash, 'Fees waived for February', id);
      expect(waived.status, JSON.stringify(waived.body)).to.equal(200);
      expect(waived.body.credit_notes.map((n) => [n.invoice_id, n.amount])).to.deep.equal([[id, 2000], [correctionInvoice, 8000]]);
      expect((await svc.call(ops['billing.invoices.get'], id, staff)).body).to.deep.include({ status: 'paid', amount_credited_to_balance: 2000 });
      expect((await svc.call(ops['billing.invoices.get'], correctionInvoice, staff)).body).to.deep.include({ status: 'paid', amount_credited: 8000, amount_remaining: 0 });
      expect(await preview(id)).to.deep.include({ old_total: 0, difference: 0, corrections_applied: 2 });
    });
  });
}
