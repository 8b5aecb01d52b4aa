// Races over HTTP: concurrent finalizes get distinct gapless numbers; concurrent payments never overdraw an invoice.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { at } from '../support/lists.ts';

for (const backend of backends()) {
  describe(`billing invoice races (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    before(async () => {
      svc = await startService(backend, { clock: new TestClock('2026-03-10T09:00:00.000Z') });
      staff = await billingStaff(svc);
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it('gives 50 concurrent finalizes 50 distinct numbers with no gaps, and repeated finalizes of one invoice burn none', async () => {
      const drafts = [];
      for (let i = 0; i < 50; i++) drafts.push(await draft(svc, staff, acme.customerId, [100 + i]));
      const results = await Promise.all(drafts.map((d) => svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff)));
      expect(results.map((r) => r.status)).to.deep.equal(drafts.map(() => 200));
      const numbers = results.map((r) => r.body.number as string).sort();
      expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, i) => `INV-2026-${String(i + 1).padStart(6, '0')}`));

      // Ten racing finalizes of one draft: one number is used, the others are told the invoice is open.
      const one = await draft(svc, staff, acme.customerId, [100]);
      const racing = await Promise.all(Array.from({ length: 10 }, () => svc.call(ops['billing.invoices.update'], { id: one.id, action: 'finalize' }, staff)));
      const ok = racing.filter((r) => r.status === 200);
      expect(ok.length).to.be.greaterThan(0);
      expect(new Set(ok.map((r) => r.body.number))).to.deep.equal(new Set(['INV-2026-000051']));
      for (const r of racing.filter((x) => x.status !== 200)) expect(r.body.code).to.equal('invalid_status_transition');
      // A refused finalize (not a draft) reserves nothing: the next invoice gets the next number.
      expect((await svc.call(ops['billing.invoices.update'], { id: at(drafts, 0).id, action: 'finalize' }, staff)).status).to.equal(409);
      expect((await openInvoice(svc, staff, acme.customerId, [100])).number).to.equal('INV-2026-000052');
    });

    it('lets exactly one of 20 concurrent payments take the last 100, and the invoice never goes negative', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 900), staff)).status).to.equal(200);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100, { reference: `race ${i}` }), staff)));
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).to.equal(409);
        expect(['invoice_not_payable', 'amount_exceeds_remaining']).to.include(r.body.code);
      }
      const after = await svc.call(ops['billing.invoices.get'], inv.id, staff);
      expect(after.body).to.include({ status: 'paid', amount_paid: 1000, amount_remaining: 0 });
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.have.length(2);
    });

    it('lets exactly the payments that fit succeed when 20 racing payments of 10 share the last 100', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 900), staff);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 10, { reference: `small ${i}` }), staff)));
      expect(results.filter((r) => r.status === 200)).to.have.length(10);
      expect(results.filter((r) => r.status === 409)).to.have.length(10);
      const events = [];
      for await (const e of svc.app.store.readStream(`invoice-${inv.id}`)) events.push(e.type);
      expect(events.filter((t) => t === 'InvoicePaid')).to.have.length(1);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_paid: 1000, amount_remaining: 0 });
    });
  });
}
