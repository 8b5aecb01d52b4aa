// Needs attention (issue 26 §7): a declined automatic collection is listed for billing staff with the customer, the
// amount, since when, why and where it is resolved; it leaves the list once the invoice is paid another way. The
// console page and its navigation count show the same, and /metrics counts it for an alert.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient, logIn } from '../support/web.ts';
import { settle } from '../support/settle.ts';
import { type BilledOrg, billedOrg, billingStaff, openInvoice } from '../support/billing.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { isoDate } from '../../src/clock.ts';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`needs attention: failed automatic collections (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const addCard = async (org: BilledOrg, number: string) => {
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: org.customerId, return_url: `${svc.url}/` }, org.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      await new WebClient(svc.url).post(new URL(next.url).pathname, { number });
    };
    const pass = async () => {
      await settle(svc);
      await svc.app.workers.runOnce();
      await settle(svc);
    };
    const failed = async () => (await svc.call(ops['billing.attention.list'], { kind: 'failed_collection' }, staff)).body;

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('lists a declined collection with customer, amount, cause and next step; after the last retry it says collection stopped', async () => {
      const org = await billedOrg(svc);
      await addCard(org, TEST_CARDS.chargeDeclined);
      const inv = await openInvoice(svc, staff, org.customerId, [2500]);
      expect((await failed()).items.map((i) => i.invoice_id)).to.not.include(inv.id);
      const declinedAt = svc.clock.now().toISOString();
      await pass();
      const first = (await failed()).items.find((i) => i.invoice_id === inv.id);
      const customer = (await svc.call(ops['billing.customers.get'], { id: org.customerId }, staff)).body;
      expect(first).to.deep.include({ kind: 'failed_collection', key: `failed_collection:${inv.id}`, href: `/console/invoices/${inv.id}`, customer: { id: org.customerId, name: customer.name }, amount: { amount: 2500, currency: 'GBP' } });
      expect(first?.summary).to.contain('was declined (attempt 1)');
      expect(first?.cause).to.match(/declined the charge: \w+/);
      expect(first?.resolve).to.contain(`next attempt is on ${isoDate(new Date(svc.clock.now().getTime() + 3 * DAY))}`);
      expect(first?.since.slice(0, 16)).to.equal(declinedAt.slice(0, 16));
      for (const days of [3, 5, 7]) {
        svc.clock.advance(days * DAY);
        await pass();
      }
      const stopped = (await failed()).items.find((i) => i.invoice_id === inv.id);
      expect(stopped?.summary).to.contain('stopped after 4 declined attempts');
      expect(stopped?.resolve).to.contain('payment page');
      // Since the first decline, not the last: the oldest problem comes first.
      expect(stopped?.since).to.equal(first?.since);

      // The console: the page lists it with a link to the invoice, and every page's navigation carries the count.
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
      const page = await web.get('/console/attention');
      expect(page.status).to.equal(200);
      expect(page.html).to.contain('Failed automatic collections').and.contain(`href="/console/invoices/${inv.id}"`).and.contain(customer.name);
      const total = (await svc.call(ops['billing.attention.list'], {}, staff)).body.counts.total;
      expect(total).to.be.greaterThan(0);
      expect((await web.get('/console/invoices')).html).to.contain(`id="attention-count">${total}<`);
      // And /metrics, for an alert that reaches someone who is not looking at the console.
      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      expect(Number(/billing_attention_items\{kind="failed_collection"\} (\d+)/.exec(metrics)?.[1])).to.equal((await failed()).items.length);

      // Paid another way: nothing is left to collect, and the row leaves the list.
      const paid = await svc.call(ops['billing.payments.insert'], { invoice_id: inv.id, amount: 2500, currency: 'GBP', method: 'bank_transfer', reference: 'BACS 7', received_on: isoDate(svc.clock.now()) }, staff);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      await settle(svc);
      expect((await failed()).items.map((i) => i.invoice_id)).to.not.include(inv.id);
    });

    it('pages oldest first with a cursor, counts every kind whatever the filter, and refuses a forged cursor and non-staff', async () => {
      for (let n = 0; n < 3; n++) {
        const org = await billedOrg(svc);
        await addCard(org, TEST_CARDS.chargeDeclined);
        await openInvoice(svc, staff, org.customerId, [1000 + n]);
        svc.clock.advance(60_000);
        await pass();
      }
      const all = await failed();
      expect(all.items.length).to.be.greaterThanOrEqual(3);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await svc.call(ops['billing.attention.list'], { kind: 'failed_collection', limit: 2, cursor }, staff);
        expect(page.status).to.equal(200);
        seen.push(...page.body.items.map((i) => i.key));
        cursor = page.body.pagination?.cursor;
      } while (cursor);
      expect(seen).to.deep.equal(all.items.map((i) => i.key));
      expect([...all.items].map((i) => i.since)).to.deep.equal([...all.items].map((i) => i.since).sort());
      expect(all.counts.by_kind.find((c) => c.kind === 'failed_collection')?.count).to.equal(all.items.length);
      expect(all.counts.total).to.equal(all.counts.by_kind.reduce((n, c) => n + c.count, 0));
      const forged = await svc.call(ops['billing.attention.list'], { cursor: 'bm90IGEgY3Vyc29y' }, staff);
      expect([forged.status, forged.body.code]).to.deep.equal([400, 'invalid_cursor']);
      const org = await billedOrg(svc);
      expect((await svc.call(ops['billing.attention.list'], {}, org.token)).status).to.equal(403);
    });
  });
}
