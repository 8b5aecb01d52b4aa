// A long invoice stream (issue 31): payments on an invoice with many payment events are decided on the aggregate this
// process remembers, whose payments and event ids are kept in layers (src/domain/layered.ts) rather than copied whole
// on each payment. These answers must be the ones a fresh read of the stream gives, across the layers' merges.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, openInvoice, paymentBody } from '../support/billing.ts';
import { billedOrgLong, signUpLong } from '../support/long-session.ts';
import { ops } from '../support/ops.ts';

const PAYMENTS = 150; // past two merges of a 64-key layer

for (const backend of backends()) {
  describe(`a long invoice stream over HTTP (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      staff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
      acme = await billedOrgLong(svc);
    });
    after(async () => svc?.close());

    it(`records ${PAYMENTS} payments one by one; early ones are still found to retry, correct and void; an overpayment is refused`, async () => {
      const invoice = await openInvoice(svc, staff, acme.customerId, [100_000]);
      const pay = (i: number) => svc.call(ops['billing.payments.insert'], paymentBody(invoice.id, 10, { reference: `P${i}` }), staff, { 'idempotency-key': `long-${invoice.id}-${i}` });
      const ids: string[] = [];
      for (let i = 0; i < PAYMENTS; i++) {
        const r = await pay(i);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        expect(r.body.invoice.amount_remaining).to.equal(100_000 - 10 * (i + 1));
        ids.push(r.body.payment.id);
      }
      // A retry of the first request (its events are in the oldest layer) records nothing new.
      const retry = await pay(0);
      expect(retry.status).to.equal(200);
      expect(retry.body.payment.id).to.equal(ids[0]);
      // The first payment corrected, the second voided: both found in the oldest layer, each changes the amount owed once.
      const corrected = await svc.call(ops['billing.payments.update'], { id: ids[0]!, amount: 50, reason: 'keyed 10 for 50' }, staff);
      expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);
      expect(corrected.body.invoice.amount_remaining).to.equal(100_000 - 10 * PAYMENTS - 40);
      const voided = await svc.call(ops['billing.payments.update'], { id: ids[1]!, void: true, reason: 'bounced' }, staff);
      expect(voided.body.invoice.amount_remaining).to.equal(100_000 - 10 * PAYMENTS - 30);
      const again = await svc.call(ops['billing.payments.update'], { id: ids[1]!, void: true, reason: 'bounced twice' }, staff);
      expect(again.status).to.equal(409);
      expect(again.body.code).to.equal('payment_voided');
      const remaining = 100_000 - 10 * PAYMENTS - 30;
      const over = await svc.call(ops['billing.payments.insert'], paymentBody(invoice.id, remaining + 1), staff);
      expect(over.body.code).to.equal('amount_exceeds_remaining');
      const last = await svc.call(ops['billing.payments.insert'], paymentBody(invoice.id, remaining), staff);
      expect(last.body.invoice).to.include({ status: 'paid', amount_remaining: 0 });
      const listed = await svc.call(ops['billing.payments.list'], { invoice_id: invoice.id, limit: 200 }, staff);
      expect(listed.body.items).to.have.length(PAYMENTS + 1);
    });
  });
}
