// billing.history.get over HTTP: each step of an invoice, a payment and a credit note request with actor, time, reason and changed fields,
// the entity as of an earlier instant, and the Svc-Reason header that carries a reason into event metadata for any write.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, draft, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`billing.history.get (${backend})`, () => {
    let svc: TestService;
    let staff: { token: string; userId: string; email: string };
    let acme: BilledOrg;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'], name: 'Platform' });
      staff = { token: s.token, userId: s.userId, email: s.email };
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it('lists every step of an invoice with actor, time, reason and changed fields, and replays it as of an earlier instant', async () => {
      const d = await draft(svc, staff.token, acme.customerId, [1000, 500]);
      const drafted = clock.now().toISOString();
      clock.advance(60_000);
      const f = await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff.token, { 'Svc-Reason': encodeURIComponent('Agreed on the phone – März') });
      expect(f.status).to.equal(200);
      clock.advance(60_000);
      const p = await svc.call(ops['billing.payments.insert'], paymentBody(d.id, 400), staff.token, { 'Svc-Reason': 'partial transfer' });
      expect(p.status).to.equal(200);
      clock.advance(60_000);
      const u = await svc.call(ops['billing.payments.update'], { id: p.body.payment.id, reference: 'BACS 77', reason: 'typo in the reference' }, staff.token);
      expect(u.status).to.equal(200);

      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id } }, staff.token);
      expect(h.status, JSON.stringify(h.body)).to.equal(200);
      expect(h.body.items.map((e) => e.type)).to.deep.equal(['InvoiceDrafted', 'InvoiceFinalized', 'PaymentRecorded', 'PaymentUpdated']);
      const [e0, e1, e2, e3] = h.body.items;
      expect(e0?.actor).to.deep.include({ type: 'staff', id: staff.userId, email: staff.email });
      expect(e0?.recorded_at).to.equal(drafted);
      expect(e1?.reason).to.equal('Agreed on the phone – März');
      expect(e1?.changes).to.deep.include({ path: 'status', before: 'draft', after: 'open' });
      expect(e2?.reason).to.equal('partial transfer');
      expect(e2?.changes).to.deep.include({ path: 'amount_paid', before: 0, after: 400 });
      // A body reason field wins over the header, and lands in the metadata just the same.
      expect(e3?.reason).to.equal('typo in the reference');
      expect(e3?.changes).to.deep.include({ path: `payments.${p.body.payment.id}.reference`, before: 'BACS 400', after: 'BACS 77' });
      expect(h.body).to.include({ exists: true, event_count: 4, stream: `invoice-${d.id}` });
      expect(h.body.state).to.include({ status: 'open', amount_paid: 400 });

      // As of just after drafting: a draft with nothing paid, and only the first event.
      const then = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id }, as_of: drafted }, staff.token);
      expect(then.body.items.map((e) => e.type)).to.deep.equal(['InvoiceDrafted']);
      expect(then.body.state).to.include({ status: 'draft', amount_paid: 0, total: 1500 });
      // Before it existed: no state, no events (not an error: the question has an answer).
      const before = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id }, as_of: '2026-03-01T00:00:00.000Z' }, staff.token);
      expect(before.status).to.equal(200);
      expect(before.body).to.include({ exists: false, state: null, event_count: 0 });

      // A payment's own history: only its events, its state picked out of the invoice.
      const ph = await svc.call(ops['billing.history.get'], { subject: { type: 'payment', id: p.body.payment.id } }, staff.token);
      expect(ph.body.items.map((e) => e.type)).to.deep.equal(['PaymentRecorded', 'PaymentUpdated']);
      expect(ph.body.state).to.include({ reference: 'BACS 77', amount: 400, invoice_id: d.id, status: 'recorded' });
      expect(ph.body.items[1]?.changes).to.deep.equal([{ path: 'reference', before: 'BACS 400', after: 'BACS 77' }]);

      // Pages of the timeline with the API's cursors.
      const first = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id }, limit: 3 }, staff.token);
      expect(first.body.items).to.have.length(3);
      const cursor = first.body.pagination?.cursor;
      expect(cursor).to.be.a('string');
      const second = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id }, limit: 3, cursor }, staff.token);
      expect(second.body.items.map((e) => e.type)).to.deep.equal(['PaymentUpdated']);
      expect(second.body.pagination).to.equal(null);
    });

    it('shows a credit note request and a customer, and says who could not be found', async () => {
      const d = await draft(svc, staff.token, acme.customerId, [2000]);
      await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff.token);
      const c = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: d.id, amount: 300, currency: 'GBP', reason: 'duplicate', description: 'Charged twice' }, acme.token);
      expect(c.status).to.equal(200);
      const r = await svc.call(ops['billing.credit-note-requests.update'], { id: c.body.id, action: 'reject', comment: 'Not a duplicate' }, staff.token);
      expect(r.status).to.equal(200);
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'credit_note_request', id: c.body.id } }, staff.token);
      expect(h.body.items.map((e) => [e.actor.type, e.reason])).to.deep.equal([['user', null], ['staff', 'Not a duplicate']]);
      const customer = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: acme.customerId } }, staff.token);
      expect(customer.body.items[0]?.type).to.equal('CustomerCreated');
      const missing = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: '0190c6a0-0000-7000-8000-000000000000' } }, staff.token);
      expect(missing.status).to.equal(404);
      expect(missing.body.code).to.equal('invoice_not_found');
    });

    it('is for billing staff only', async () => {
      const r = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: acme.customerId } }, acme.token);
      expect(r.status).to.equal(403);
    });

    it('refuses a bad Svc-Reason header with 400 and writes nothing', async () => {
      const d = await draft(svc, staff.token, acme.customerId, [100]);
      for (const bad of ['%E0%A4%A', '   ', 'x'.repeat(501)]) {
        const r = await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff.token, { 'Svc-Reason': bad });
        expect(r.status, bad).to.equal(400);
        expect(r.body.code).to.equal('invalid_request');
      }
      const still = await svc.call(ops['billing.invoices.get'], d.id, staff.token);
      expect(still.body.status).to.equal('draft');
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id } }, staff.token);
      expect(h.body.event_count).to.equal(1);
    });
  });
}
