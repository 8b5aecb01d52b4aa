// Issue 12's "Done means", end to end over HTTP: staff configure a seller (relationships, an accepted pre-existing claim with
// evidence, a baseline, two pricing revisions), a month of orders is imported, the invoice is generated and every metered line
// reconciles to its orders; a back-dated pricing change shows as a re-rating diff; resolve as of earlier answers what was believed then.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { importUsage } from '../../src/cli/usage.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type ConfiguredSeller, baseline, buyer, configuredSeller, pricing, relate } from '../support/configuration.ts';
import { allOrders } from '../support/usage.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x20), Buffer.from('\n%%EOF\n')]);
const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`issue 12 done: configure, import, generate, reconcile, re-rate (${backend})`, function () {
    this.timeout(300_000);
    let svc: TestService;
    let c: ConfiguredSeller;
    const clock = new TestClock('2026-01-02T09:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      c = await configuredSeller(svc);
    });
    after(async () => svc?.close());

    it('every metered line reconciles to its orders; a back-dated price shows in the re-rating diff; resolve as of earlier still answers', async () => {
      const staff = c.billingStaff;
      const ok = <T extends { status: number; body: unknown }>(r: T, what: string): T => {
        expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(200);
        return r;
      };
      ok(await svc.call(ops['billing.customers.insert'], { name: 'Seller Ltd', email: 'ap@seller.example', currency: 'GBP' }, c.seller.token), 'customers.insert');
      // Configure: three buyers, one a pre-existing relationship (claimed, evidence committed, accepted), one introduced, one never registered.
      const [introduced, preExisting, unregistered] = [await buyer(svc), await buyer(svc), await buyer(svc)];
      await relate(svc, c, introduced);
      const rel = await relate(svc, c, preExisting);
      ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Customer since 2019' }, staff), 'claim');
      const prep = ok(await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: [{ filename: 'contract.pdf', content_type: 'application/pdf', size: PDF.length }] }, staff), 'evidence.prepare');
      const item = prep.body.items[0];
      if (!item) throw new Error('no upload prepared');
      expect((await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: PDF })).status).to.equal(200);
      ok(await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: item.id }] }, staff), 'evidence.insert');
      ok(await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'accept_claim', reason: 'Contract checked' }, staff), 'accept');
      const base = await baseline(svc, c, { effective_from: '2026-01-01', monthly_exempt_amount: 30_000 });
      const first = await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 }, minimum_fee: 25 });
      const second = await pricing(svc, c, { effective_from: '2026-01-16', rates_bps: { platform_introduced: 400, pre_existing: 200 }, minimum_fee: 25, supersedes: [first.id] });

      // A month of orders, imported from a CSV file's lines: 31 days x 3 buyers.
      clock.set('2026-02-01T01:00:00.000Z');
      const buyers = [introduced, preExisting, unregistered];
      const csv = ['order_id,seller,buyer,amount,currency,occurred_at'];
      for (let d = 0; d < 31; d++) {
        buyers.forEach((b, k) => csv.push(`JAN-${String(d + 1).padStart(2, '0')}-${k},${c.seller.orgId},${b},${1000 + ((d * 37 + k * 101) % 9000)},GBP,${new Date(Date.UTC(2026, 0, 1 + d, 10 + k)).toISOString()}`));
      }
      const imported = await importUsage(svc.app, csv, { format: 'csv', reason: 'import January' });
      expect(imported).to.deep.include({ rows: 93, recorded: 93, failed: 0 });

      // Generate and reconcile: every line equals the sum of its orders' fees, and the orders are the month's.
      const inv = ok(await svc.call(ops['billing.invoices.generate'], { subscription_id: c.subscriptionId, period: '2026-01' }, staff), 'generate').body;
      const orders = await allOrders(svc, staff, inv.id, 40);
      expect(orders).to.have.length(93);
      expect(inv.lines.reduce((s, l) => s + l.amount, 0)).to.equal(inv.total);
      inv.lines.forEach((l, i) => {
        const mine = orders.filter((o) => o.line_index === i);
        expect(mine.reduce((s, o) => s + o.fee.amount, 0), `line ${i}`).to.equal(l.amount);
        expect(mine.length).to.equal(l.metered?.order_count);
        for (const o of mine) expect([o.classification, o.pricing_revision_id, o.baseline_revision_id]).to.deep.equal([l.metered?.classification, l.metered?.pricing_revision_id, l.metered?.baseline_revision_id]);
      });
      // Which revisions rated what: pricing by date, the baseline only for the accepted pre-existing buyer.
      for (const o of orders) {
        expect(o.pricing_revision_id, o.order_id).to.equal(Date.parse(o.occurred_at) < Date.UTC(2026, 0, 16) ? first.id : second.id);
        expect(o.classification, o.order_id).to.equal(o.buyer === preExisting ? 'pre_existing' : 'platform_introduced');
        expect(o.baseline_revision_id).to.equal(o.buyer === preExisting ? base.id : null);
      }
      // The baseline exempts exactly the first 30,000 of the pre-existing buyer's January volume, in date order.
      const pre = orders.filter((o) => o.buyer === preExisting);
      expect(pre.reduce((s, o) => s + o.exempt_amount, 0)).to.equal(30_000);
      const crossing = pre.findIndex((o) => o.chargeable_amount > 0);
      expect(pre.slice(0, crossing).every((o) => o.fee.amount === 0)).to.equal(true);
      expect(pre.slice(crossing + 1).every((o) => o.exempt_amount === 0)).to.equal(true);
      // One hand-checked fee: 5% of JAN-01-0 (1,000) is 50.
      expect(orders.find((o) => o.order_id === 'JAN-01-0')?.fee.amount).to.equal(50);

      // What staff believed on 1 February, kept for the as-of question below; then a back-dated price from 10 January.
      const believedThen = clock.now().toISOString();
      clock.advance(DAY);
      const backdated = await pricing(svc, c, {
        effective_from: '2026-01-10', rates_bps: { platform_introduced: 600, pre_existing: 200 }, minimum_fee: 25, supersedes: [first.id, second.id], reason: 'Rate agreed late',
      });
      const diff = ok(await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, staff), 'rerate.preview').body;
      const moved = orders.filter((o) => Date.parse(o.occurred_at) >= Date.UTC(2026, 0, 10));
      expect(diff.changed_order_count).to.equal(moved.length);
      expect(diff.orders.every((o) => o.new.pricing_revision_id === backdated.id && o.changed.includes('pricing_revision_id'))).to.equal(true);
      expect(diff.difference).to.equal(diff.orders.reduce((s, o) => s + o.difference, 0));
      expect(diff.difference).to.equal(diff.new_total - diff.old_total);
      expect(diff.old_total).to.equal(inv.total);
      expect(diff.difference).to.be.greaterThan(0);
      const introducedAfter = diff.orders.filter((o) => o.old.classification === 'platform_introduced');
      expect(introducedAfter.every((o) => o.new.rate_bps === 600 && o.difference > 0)).to.equal(true);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body.total).to.equal(inv.total);

      // Resolve as known on 1 February still answers the pricing believed then; as known now, the back-dated one.
      const event = { seller: c.seller.orgId, buyer: introduced, occurred_at: '2026-01-12T10:00:00Z' };
      const then = ok(await svc.call(ops['billing.configuration.resolve.get'], { subscription_id: c.subscriptionId, event, as_of: believedThen }, staff), 'resolve then').body;
      const now = ok(await svc.call(ops['billing.configuration.resolve.get'], { subscription_id: c.subscriptionId, event }, staff), 'resolve now').body;
      expect(then.pricing?.id).to.equal(first.id);
      expect(now.pricing?.id).to.equal(backdated.id);
    });
  });
}
