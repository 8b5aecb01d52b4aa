// billing.invoices.overdue-status.get and the overdue worker: past due, suspension on the policy date, restoration on payment.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, type Invoice, openInvoice, paymentBody } from '../support/billing.ts';
import { billedOrgLong, signUpLong } from '../support/long-session.ts';
import { settle } from '../support/settle.ts';
import { overdueWorker } from '../../src/workers/billing/overdue.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`overdue status and suspension over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    let other: BilledOrg;
    let a: Invoice;
    let b: Invoice;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    const status = async (token = acme.token, body: Record<string, unknown> = {}) => svc.call(ops['billing.invoices.overdue-status.get'], body, token);
    // The worker reads read models, so a pass sees what has been projected: let them catch up first.
    const pass = async () => {
      await settle(svc);
      const res = { overdue: await overdueWorker.runOnce(svc.app) };
      await settle(svc);
      return res;
    };
    before(async () => {
      svc = await startService(backend, { clock, env: { APP_URL: 'https://app.example.test' } });
      staff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
      acme = await billedOrgLong(svc, { payment_terms_days: 30 });
      other = await billedOrgLong(svc);
      a = await openInvoice(svc, staff, acme.customerId, [10000]); // due 2026-02-04
      clock.set('2026-01-20T09:00:00.000Z');
      b = await openInvoice(svc, staff, acme.customerId, [2000]); // due 2026-02-19
      await settle(svc);
    });
    after(async () => svc?.close());

    it('reports nothing past due before the due date, with a payment link under APP_URL', async () => {
      const s = await status();
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      expect(s.body).to.deep.include({
        organization_id: acme.orgId, customer_id: acme.customerId, as_of: '2026-01-20', past_due: false, invoices: [], amount_past_due: [],
        grace_days: 14, suspension_date: null, suspended: false, suspended_at: null,
      });
      expect(s.body.payment_url).to.equal(`https://app.example.test/billing/pay/${acme.customerId}`);
      // The link is not a credential: it asks for sign-in first (test/http/pay-page.test.ts pays through it).
      const page = await fetch(`${svc.url}/billing/pay/${acme.customerId}`, { redirect: 'manual' });
      expect(page.status).to.equal(303);
      expect(page.headers.get('location')).to.equal(`/auth/login?return_to=${encodeURIComponent(`/billing/pay/${acme.customerId}`)}`);
    });

    it('reports an open invoice as past due the day after its due date, and when access will be suspended', async () => {
      clock.set('2026-02-04T23:59:00.000Z');
      expect((await status()).body.past_due).to.equal(false);
      clock.set('2026-02-05T08:00:00.000Z');
      const s = await status();
      expect(s.body).to.deep.include({ as_of: '2026-02-05', past_due: true, amount_past_due: [{ amount: 10000, currency: 'GBP' }], suspension_date: '2026-02-18', suspended: false });
      expect(s.body.invoices).to.deep.equal([{ id: a.id, number: a.number, due_date: '2026-02-04', days_past_due: 1, currency: 'GBP', amount_remaining: 10000 }]);
      const res = await pass();
      expect(res.overdue.suspended).to.deep.equal([]);
    });

    it('keeps the suspension date anchored to the due date when a partial payment arrives', async () => {
      await svc.call(ops['billing.payments.insert'], paymentBody(a.id, 3000, { received_on: '2026-02-05' }), staff);
      const s = await status();
      expect(s.body.amount_past_due).to.deep.equal([{ amount: 7000, currency: 'GBP' }]);
      expect(s.body.suspension_date).to.equal('2026-02-18');
    });

    it('suspends access when the suspension date arrives, records it once, and tells the organization', async () => {
      clock.set('2026-02-17T12:00:00.000Z');
      expect((await pass()).overdue.suspended).to.deep.equal([]);
      clock.set('2026-02-18T00:01:00.000Z');
      expect((await pass()).overdue.suspended).to.deep.equal([acme.customerId]);
      expect((await pass()).overdue.suspended).to.deep.equal([]);
      const s = await status();
      expect(s.body).to.deep.include({ suspended: true, suspension_date: '2026-02-18', suspended_at: '2026-02-18T00:01:00.000Z' });
      const feed = await svc.call(ops['billing.events.list'], { types: ['customer.access_suspended', 'customer.access_restored'] }, acme.token);
      expect(feed.body.items.map((e) => e.type)).to.deep.equal(['customer.access_suspended']);
      expect(feed.body.items[0]?.data).to.deep.include({ suspension_date: '2026-02-18', oldest_due_date: '2026-02-04', invoice_ids: [a.id] });
      // Another organization is untouched and cannot see it.
      expect((await status(other.token)).body).to.include({ suspended: false, past_due: false });
      expect((await svc.call(ops['billing.events.list'], { types: ['customer.access_suspended'] }, other.token)).body.items).to.deep.equal([]);
    });

    it('restores access on the next pass once the debt is paid, while a newer invoice is still in its grace period', async () => {
      clock.set('2026-02-20T10:00:00.000Z');
      const paid = await svc.call(ops['billing.payments.insert'], paymentBody(a.id, 7000, { received_on: '2026-02-20' }), staff);
      expect(paid.body.invoice.status).to.equal('paid');
      const res = await pass();
      expect(res.overdue.restored).to.deep.equal([acme.customerId]);
      const s = await status();
      // B (due Feb 19) is now past due: its own suspension date is Mar 5.
      expect(s.body).to.deep.include({ suspended: false, suspended_at: null, past_due: true, suspension_date: '2026-03-05', amount_past_due: [{ amount: 2000, currency: 'GBP' }] });
      expect(s.body.invoices.map((i) => i.id)).to.deep.equal([b.id]);
      const feed = await svc.call(ops['billing.events.list'], { types: ['customer.access_suspended', 'customer.access_restored'] }, acme.token);
      expect(feed.body.items.map((e) => e.type)).to.deep.equal(['customer.access_suspended', 'customer.access_restored']);
    });

    it('rebuilding the read models reproduces the overdue status and the suspension history in the feed', async () => {
      const snapshot = async () => ({ status: (await status()).body, feed: (await svc.call(ops['billing.events.list'], { limit: 200 }, acme.token)).body });
      const before = await snapshot();
      await svc.app.runner.stop();
      await svc.app.runner.rebuild();
      svc.app.runner.start();
      expect(await snapshot()).to.deep.equal(before);
      expect((await pass()).overdue).to.deep.include({ suspended: [], restored: [] });
    });

    it("lets billing staff read any organization's status, and nobody else", async () => {
      const s = await status(staff, { organization_id: acme.orgId });
      expect(s.status).to.equal(200);
      expect(s.body.customer_id).to.equal(acme.customerId);
      const denied = await status(other.token, { organization_id: acme.orgId });
      expect(denied.status).to.equal(403);
      expect(denied.body.code).to.equal('forbidden');
      const none = await status(staff);
      expect(none.body).to.include({ customer_id: null, past_due: false, payment_url: null });
    });
  });
}
