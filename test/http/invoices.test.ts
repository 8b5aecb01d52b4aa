// billing.invoices.* and billing.payments.* over HTTP: the invoice life cycle, the status machine, visibility, audit.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`billing invoices and payments over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      acme = await billedOrg(svc, { payment_terms_days: 30 });
    });
    after(async () => svc?.close());

    it('runs draft -> finalize -> partial payments -> paid, and get returns what the writes returned', async () => {
      const d = await svc.call(ops['billing.invoices.insert'], { customer_id: acme.customerId, lines: [{ description: 'Panel work', quantity: 2, unit_amount: 1500 }, { description: 'Paint', unit_amount: 2000 }], memo: 'March' }, staff);
      expect(d.status).to.equal(200);
      expect(d.body).to.include({ status: 'draft', number: null, currency: 'GBP', subtotal: 5000, total: 5000, amount_paid: 0, amount_remaining: 5000, customer_id: acme.customerId, organization_id: acme.orgId });
      expect(d.body.lines[0]).to.deep.equal({ kind: 'manual', description: 'Panel work', quantity: 2, unit_amount: 1500, amount: 3000 });

      const f = await svc.call(ops['billing.invoices.update'], { id: d.body.id, action: 'finalize' }, staff);
      expect(f.status).to.equal(200);
      expect(f.body).to.include({ status: 'open', issue_date: '2026-03-10', due_date: '2026-04-09' });
      expect(f.body.number).to.match(/^INV-2026-\d{6}$/);

      const p1 = await svc.call(ops['billing.payments.insert'], paymentBody(d.body.id, 2000), staff);
      expect(p1.status).to.equal(200);
      expect(p1.body.payment).to.include({ amount: 2000, currency: 'GBP', status: 'recorded', method: 'bank_transfer' });
      expect(p1.body.invoice).to.include({ status: 'open', amount_paid: 2000, amount_remaining: 3000 });

      clock.advance(60_000);
      const p2 = await svc.call(ops['billing.payments.insert'], paymentBody(d.body.id, 3000, { method: 'cheque', reference: 'CHQ 100231' }), staff);
      expect(p2.body.invoice).to.include({ status: 'paid', amount_paid: 5000, amount_remaining: 0, paid_at: clock.now().toISOString() });

      const got = await svc.call(ops['billing.invoices.get'], d.body.id, acme.token);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(p2.body.invoice);
      const payments = await svc.call(ops['billing.payments.list'], { invoice_id: d.body.id }, acme.token);
      expect(payments.body.items.map((p: { amount: number }) => p.amount)).to.deep.equal([2000, 3000]);

      // The audit trail: the payment caused InvoicePaid, in the same append, and every event names its actor.
      const events = [];
      for await (const e of svc.app.store.readStream(`invoice-${d.body.id}`)) events.push(e);
      expect(events.map((e) => e.type)).to.deep.equal(['InvoiceDrafted', 'InvoiceFinalized', 'PaymentRecorded', 'PaymentRecorded', 'InvoicePaid']);
      expect(events.every((e) => e.metadata.actor.type === 'staff' && e.metadata.org_id === acme.orgId)).to.equal(true);
    });

    it('changes lines only on drafts; open invoices change memo and metadata only', async () => {
      const d = await draft(svc, staff, acme.customerId, [100]);
      const changed = await svc.call(ops['billing.invoices.update'], { id: d.id, lines: [{ description: 'More', quantity: 3, unit_amount: 700 }] }, staff);
      expect(changed.body).to.include({ total: 2100, amount_remaining: 2100 });
      await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff);
      const refused = await svc.call(ops['billing.invoices.update'], { id: d.id, lines: [] }, staff);
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('invoice_not_draft');
      const memo = await svc.call(ops['billing.invoices.update'], { id: d.id, memo: 'Thank you', metadata: { po: '4471' } }, staff);
      expect(memo.status).to.equal(200);
      expect(memo.body).to.include({ memo: 'Thank you', total: 2100 });
      expect(memo.body.metadata).to.deep.equal({ po: '4471' });
    });

    it('keeps paid and void invoices final', async () => {
      const paid = await openInvoice(svc, staff, acme.customerId, [500]);
      await svc.call(ops['billing.payments.insert'], paymentBody(paid.id, 500), staff);
      const voided = await openInvoice(svc, staff, acme.customerId, [800]);
      expect((await svc.call(ops['billing.invoices.update'], { id: voided.id, action: 'void', reason: 'Raised in error' }, staff)).body).to.include({ status: 'void', amount_remaining: 0 });
      for (const [id, status] of [[paid.id, 'paid'], [voided.id, 'void']] as const) {
        for (const action of ['finalize', 'void', 'mark_uncollectible'] as const) {
          const r = await svc.call(ops['billing.invoices.update'], { id, action }, staff);
          expect(r.status, `${action} on ${status}`).to.equal(409);
          expect(r.body.code).to.equal('invalid_status_transition');
          expect(r.body.message).to.contain(status);
        }
        expect((await svc.call(ops['billing.invoices.update'], { id, memo: 'late' }, staff)).body.code).to.equal('invoice_final');
        const pay = await svc.call(ops['billing.payments.insert'], paymentBody(id, 1), staff);
        expect(pay.status).to.equal(409);
        expect(pay.body.code).to.equal('invoice_not_payable');
      }
      const history = [];
      for await (const e of svc.app.store.readStream(`invoice-${voided.id}`)) history.push(e);
      expect(history.at(-1)!.metadata.reason).to.equal('Raised in error');
    });

    it('answers a transition the machine does not allow with 409 naming the current status', async () => {
      const d = await draft(svc, staff, acme.customerId, [100]);
      const r = await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'mark_uncollectible' }, staff);
      expect(r.status).to.equal(409);
      expect(r.body).to.include({ type: 'billing.InvoiceUpdateError', code: 'invalid_status_transition' });
      expect(r.body.message).to.contain('draft');
      expect((await svc.send('billing.invoices.update', { id: d.id, action: 'paid' }, staff)).status).to.equal(400);
    });

    it('lets an uncollectible invoice be paid later or voided', async () => {
      const a = await openInvoice(svc, staff, acme.customerId, [900]);
      expect((await svc.call(ops['billing.invoices.update'], { id: a.id, action: 'mark_uncollectible' }, staff)).body.status).to.equal('uncollectible');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(a.id, 900), staff)).body.invoice.status).to.equal('paid');
      const b = await openInvoice(svc, staff, acme.customerId, [900]);
      await svc.call(ops['billing.invoices.update'], { id: b.id, action: 'mark_uncollectible' }, staff);
      expect((await svc.call(ops['billing.invoices.update'], { id: b.id, action: 'void' }, staff)).body.status).to.equal('void');
    });

    it('edits and voids a payment with a reason, each change an event', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      const p = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 300), staff);
      const noReason = await svc.send('billing.payments.update', { id: p.body.payment.id, amount: 400 }, staff);
      expect(noReason.status).to.equal(400);
      const edited = await svc.call(ops['billing.payments.update'], { id: p.body.payment.id, amount: 400, reference: 'BACS corrected', reason: 'Typo' }, staff);
      expect(edited.status).to.equal(200);
      expect(edited.body.payment).to.include({ amount: 400, reference: 'BACS corrected' });
      expect(edited.body.invoice).to.include({ amount_paid: 400, amount_remaining: 600 });
      const tooMuch = await svc.call(ops['billing.payments.update'], { id: p.body.payment.id, amount: 1001, reason: 'x' }, staff);
      expect(tooMuch.status).to.equal(409);
      const voided = await svc.call(ops['billing.payments.update'], { id: p.body.payment.id, void: true, reason: 'Bounced' }, staff);
      expect(voided.body.payment).to.include({ status: 'voided', void_reason: 'Bounced' });
      expect(voided.body.invoice).to.include({ amount_paid: 0, amount_remaining: 1000, status: 'open' });
      const types = [];
      for await (const e of svc.app.store.readStream(`invoice-${inv.id}`)) types.push([e.type, e.metadata.reason ?? null]);
      expect(types.slice(-2)).to.deep.equal([['PaymentUpdated', 'Typo'], ['PaymentVoided', 'Bounced']]);
    });

    it('shows an organization its own finalized invoices only; other organizations get 404', async () => {
      const other = await billedOrg(svc);
      const d = await draft(svc, staff, acme.customerId, [100]);
      expect((await svc.call(ops['billing.invoices.get'], d.id, acme.token)).status).to.equal(404);
      const o = await openInvoice(svc, staff, acme.customerId, [100]);
      expect((await svc.call(ops['billing.invoices.get'], o.id, acme.token)).status).to.equal(200);
      const hidden = await svc.call(ops['billing.invoices.get'], o.id, other.token);
      expect(hidden.status).to.equal(404);
      expect(hidden.body.code).to.equal('invoice_not_found');
      const list = await svc.call(ops['billing.invoices.list'], {}, other.token);
      expect(list.body.items).to.deep.equal([]);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(o.id, 1), acme.token)).status).to.equal(403);
      expect((await svc.call(ops['billing.invoices.insert'], { customer_id: acme.customerId }, acme.token)).status).to.equal(403);
    });

    it('rejects bad input with a 4xx error body and writes nothing', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      const before = (await svc.call(ops['billing.invoices.list'], { limit: 200 }, staff)).body.items.length;
      const line = { description: 'x', unit_amount: 100 };
      const cases: [string, unknown, number, string][] = [
        ['billing.invoices.insert', { customer_id: '0190c6a8-0000-7000-8000-000000000000', lines: [line] }, 404, 'customer_not_found'],
        ['billing.invoices.insert', { customer_id: acme.customerId, lines: [{ description: 'x', unit_amount: -100 }] }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, lines: [{ description: 'x', unit_amount: 100, quantity: 0 }] }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, lines: [{ description: 'x', unit_amount: 100, amount: 99 }] }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, currency: 'XYZ' }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, currency: 'gbp' }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, lines: Array.from({ length: 501 }, () => line) }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, lines: [{ description: 'x', unit_amount: 1.5 }] }, 400, 'invalid_request'],
        ['billing.invoices.insert', { customer_id: acme.customerId, colour: 'red' }, 400, 'invalid_request'],
        ['billing.invoices.get', 'not-a-uuid', 400, 'invalid_request'],
        ['billing.invoices.get', '0190c6a8-0000-7000-8000-000000000000', 404, 'invoice_not_found'],
        // Writes on an invoice read its stream for the 404: a missing one is 404 as before.
        ['billing.invoices.update', { id: '0190c6a8-0000-7000-8000-000000000000', action: 'finalize' }, 404, 'invoice_not_found'],
        ['billing.payments.insert', paymentBody('0190c6a8-0000-7000-8000-000000000000', 100), 404, 'invoice_not_found'],
        ['billing.payments.insert', paymentBody(inv.id, 0), 400, 'invalid_request'],
        ['billing.payments.insert', paymentBody(inv.id, -5), 400, 'invalid_request'],
        ['billing.payments.insert', paymentBody(inv.id, 100, { received_on: '2026-02-30' }), 400, 'invalid_request'],
        ['billing.payments.insert', paymentBody(inv.id, 100, { received_on: '2026-03-11' }), 400, 'received_on_in_future'],
        ['billing.payments.insert', paymentBody(inv.id, 100, { currency: 'EUR' }), 400, 'currency_mismatch'],
        ['billing.payments.insert', paymentBody(inv.id, 100, { currency: 'ABC' }), 400, 'invalid_request'],
        ['billing.payments.insert', paymentBody(inv.id, 100, { reference: '' }), 400, 'invalid_request'],
        ['billing.payments.insert', { ...paymentBody(inv.id, 100), method: 'bitcoin' }, 400, 'invalid_request'],
        ['billing.payments.insert', paymentBody(inv.id, 1001), 409, 'amount_exceeds_remaining'],
        ['billing.invoices.list', { issue_date_from: '2026-13-01' }, 400, 'invalid_request'],
      ];
      for (const [op, body, status, code] of cases) {
        const r = await svc.send(op, body, staff);
        expect(r.status, `${op} ${JSON.stringify(body).slice(0, 120)}`).to.equal(status);
        expect(r.body).to.include({ code });
        expect(r.body.request_id).to.be.a('string');
      }
      expect((await svc.call(ops['billing.invoices.list'], { limit: 200 }, staff)).body.items.length).to.equal(before);
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.deep.equal([]);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ amount_paid: 0, amount_remaining: 1000 });
    });

    it('takes notes on invoices and refuses to remove a customer with an open invoice', async () => {
      const org = await billedOrg(svc);
      const inv = await openInvoice(svc, staff, org.customerId, [100]);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'invoice', id: inv.id }, body: 'Customer disputes line 1' }, staff);
      expect(note.status).to.equal(200);
      const notes = await svc.call(ops['billing.notes.list'], { subject: { type: 'invoice', id: inv.id } }, org.token);
      expect(notes.body.items.map((n: { body: string }) => n.body)).to.deep.equal(['Customer disputes line 1']);
      expect((await svc.call(ops['billing.notes.insert'], { subject: { type: 'invoice', id: inv.id }, body: 'x' }, acme.token)).status).to.equal(404);
      const removed = await svc.call(ops['billing.customers.remove'], { id: org.customerId }, org.token);
      expect(removed.status).to.equal(409);
      expect(removed.body.code).to.equal('customer_has_open_invoices');
      await svc.call(ops['billing.invoices.update'], { id: inv.id, action: 'void' }, staff);
      expect((await svc.call(ops['billing.customers.remove'], { id: org.customerId }, org.token)).status).to.equal(200);
    });
    it('answers a retried insert or payment with the same Idempotency-Key once, and a changed body with 422', async () => {
      const key = { 'idempotency-key': `draft-${Date.now()}` };
      const body = { customer_id: acme.customerId, lines: [{ description: 'Once', unit_amount: 4200 }] };
      const first = await svc.call(ops['billing.invoices.insert'], body, staff, key);
      const again = await svc.call(ops['billing.invoices.insert'], body, staff, key);
      expect(again.status).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.id).to.equal(first.body.id);
      expect((await svc.call(ops['billing.invoices.insert'], { ...body, memo: 'changed' }, staff, key)).status).to.equal(422);
      await svc.call(ops['billing.invoices.update'], { id: first.body.id, action: 'finalize' }, staff);
      const payKey = { 'idempotency-key': `pay-${Date.now()}` };
      const p1 = await svc.call(ops['billing.payments.insert'], paymentBody(first.body.id, 1000), staff, payKey);
      const p2 = await svc.call(ops['billing.payments.insert'], paymentBody(first.body.id, 1000), staff, payKey);
      expect(p2.body.payment.id).to.equal(p1.body.payment.id);
      expect((await svc.call(ops['billing.invoices.get'], first.body.id, staff)).body).to.include({ amount_paid: 1000, amount_remaining: 3200 });
    });

    if (backend === 'postgres') {
      it('prints an invoice\'s story with actor, time and reason: core-server history invoice-<id>', async () => {
        const inv = await openInvoice(svc, staff, acme.customerId, [1200]);
        await svc.call(ops['billing.invoices.update'], { id: inv.id, action: 'void', reason: 'Customer went under' }, staff);
        const run = promisify(execFile);
        const { stdout } = await run('npx', ['tsx', 'src/main.ts', 'history', `invoice-${inv.id}`], { env: { ...process.env, DATABASE_URL: svc.db.url, LOG_LEVEL: 'silent' } });
        const lines = stdout.split('\n').filter((l) => l.startsWith('#'));
        expect(lines.map((l) => l.split(' ')[2])).to.deep.equal(['InvoiceDrafted', 'InvoiceFinalized', 'InvoiceVoided']);
        expect(lines[2]).to.match(/by staff:\S+ reason: Customer went under/);
      });
    }
  });
}
