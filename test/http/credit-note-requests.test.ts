// billing.credit-note-requests.* over HTTP: request, staff decisions, issuing onto the invoice; rebuild reproduces the read models.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';


import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { billingInvoicesProjection } from '../../src/projections/billing/invoices.ts';
import { billingCreditNoteRequestsProjection } from '../../src/projections/billing/credit-note-requests.ts';
import { ops } from '../support/ops.ts';
import type { RequestOf } from '../support/app.ts';

type CnrInsert = RequestOf<(typeof ops)['billing.credit-note-requests.insert']>;

for (const backend of backends()) {
  describe(`billing credit note requests over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const clock = new TestClock('2026-03-10T09:00:00.000Z');
    const request = (invoiceId: string, amount: number, extra: Partial<CnrInsert> = {}): CnrInsert => ({ invoice_id: invoiceId, amount, currency: 'GBP', reason: 'duplicate', description: 'Charged twice', ...extra });
    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it('goes pending -> approved -> issued, and issuing reduces what the invoice says is owed', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      const r = await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 300), acme.token);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ status: 'pending', amount: 300, currency: 'GBP', invoice_number: inv.number, organization_id: acme.orgId });
      const forbidden = await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'approve' }, acme.token);
      expect(forbidden.status).to.equal(403);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'issue' }, staff)).body.code).to.equal('invalid_status_transition');
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'approve', comment: 'Confirmed duplicate' }, staff)).body.status).to.equal('approved');
      const issued = await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'issue' }, staff);
      expect(issued.status).to.equal(200);
      expect(issued.body).to.include({ status: 'issued', applied_to_invoice: 300, credited_to_balance: 0 });
      expect((await svc.call(ops['billing.invoices.get'], inv.id, acme.token)).body).to.include({ status: 'open', amount_credited: 300, amount_remaining: 700 });
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'issue' }, staff)).body.status).to.equal('issued');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, acme.token)).body.amount_credited).to.equal(300);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action: 'cancel' }, acme.token)).status).to.equal(409);
      const types = [];
      for await (const e of svc.app.store.readStream(`invoice-${inv.id}`)) types.push(e.type);
      expect(types).to.deep.equal(['InvoiceDrafted', 'InvoiceFinalized', 'CreditNoteIssued']);
    });

    it('marks the invoice paid when a credit covers the rest, and credits a paid invoice to the customer balance', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 600), staff);
      const rest = await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 400, { reason: 'order_change' }), acme.token);
      await svc.call(ops['billing.credit-note-requests.update'], { id: rest.body.id, action: 'approve' }, staff);
      await svc.call(ops['billing.credit-note-requests.update'], { id: rest.body.id, action: 'issue' }, staff);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_remaining: 0, amount_credited: 400 });

      const after = await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 250, { reason: 'product_unsatisfactory' }), acme.token);
      expect(after.status).to.equal(200);
      await svc.call(ops['billing.credit-note-requests.update'], { id: after.body.id, action: 'approve' }, staff);
      const issued = await svc.call(ops['billing.credit-note-requests.update'], { id: after.body.id, action: 'issue' }, staff);
      expect(issued.body).to.include({ applied_to_invoice: 0, credited_to_balance: 250 });
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_remaining: 0, amount_credited: 650, amount_credited_to_balance: 250 });
      const tooMuch = await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 351), acme.token);
      expect(tooMuch.status).to.equal(409);
      expect(tooMuch.body.code).to.equal('amount_exceeds_creditable');
    });

    it('refuses other currencies, drafts, void invoices and non-positive amounts, writing nothing', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000]);
      const d = await draft(svc, staff, acme.customerId, [1000]);
      const v = await openInvoice(svc, staff, acme.customerId, [1000]);
      await svc.call(ops['billing.invoices.update'], { id: v.id, action: 'void' }, staff);
      const cases: [unknown, string, number, string][] = [
        [request(inv.id, 100, { currency: 'EUR' }), acme.token, 400, 'currency_mismatch'],
        [request(inv.id, 0), acme.token, 400, 'invalid_request'],
        [request(inv.id, -1), acme.token, 400, 'invalid_request'],
        [{ ...request(inv.id, 100), reason: 'bored' }, acme.token, 400, 'invalid_request'],
        [request(inv.id, 1001), acme.token, 409, 'amount_exceeds_creditable'],
        [request(d.id, 100), acme.token, 404, 'invoice_not_found'],
        [request(d.id, 100), staff, 409, 'invoice_not_creditable'],
        [request(v.id, 100), acme.token, 409, 'invoice_not_creditable'],
      ];
      const before = (await svc.call(ops['billing.credit-note-requests.list'], { limit: 200 }, staff)).body.items.length;
      for (const [body, token, status, code] of cases) {
        const r = await svc.send('billing.credit-note-requests.insert', body, token);
        expect(r.status, JSON.stringify(body)).to.equal(status);
        expect(r.body.code).to.equal(code);
      }
      expect((await svc.call(ops['billing.credit-note-requests.list'], { limit: 200 }, staff)).body.items.length).to.equal(before);
    });

    it('rejects and cancels; lists with filters and pagination; hides other organizations\' requests', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const insert = async (reason: 'duplicate' | 'fraudulent' | 'other') => {
        clock.advance(1000);
        return (await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 100, { reason }), acme.token)).body.id;
      };
      const toReject = await insert('duplicate');
      const toCancel = await insert('fraudulent');
      const toEdit = await insert('other');
      const untouched = await insert('duplicate');
      const ids = [toReject, toCancel, toEdit, untouched];
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: toReject, action: 'reject' }, acme.token)).status).to.equal(403);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: toReject, action: 'reject', comment: 'Not a duplicate' }, staff)).body.status).to.equal('rejected');
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: toCancel, action: 'cancel' }, acme.token)).body.status).to.equal('cancelled');
      const edited = await svc.call(ops['billing.credit-note-requests.update'], { id: toEdit, amount: 150, description: 'Half a day' }, acme.token);
      expect(edited.body).to.include({ amount: 150, description: 'Half a day', status: 'pending' });
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: toReject, amount: 50 }, staff)).body.code).to.equal('invalid_status_transition');

      const byInvoice = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: inv.id }, acme.token);
      expect(byInvoice.body.items.map((i: { id: string }) => i.id)).to.deep.equal(ids);
      const pending = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: inv.id, status: 'pending' }, acme.token);
      expect(pending.body.items.map((i: { id: string }) => i.id)).to.deep.equal([toEdit, untouched]);
      const dup = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: inv.id, reason: 'duplicate' }, staff);
      expect(dup.body.items).to.have.length(2);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: inv.id, limit: 3, ...(cursor ? { cursor } : {}) }, acme.token);
        seen.push(...page.body.items.map((i: { id: string }) => i.id));
        cursor = page.body.pagination?.cursor;
      } while (cursor);
      expect(seen).to.deep.equal(ids);

      const other = await billedOrg(svc);
      expect((await svc.call(ops['billing.credit-note-requests.list'], {}, other.token)).body.items).to.deep.equal([]);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: untouched, action: 'cancel' }, other.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.credit-note-requests.insert'], request(inv.id, 100), other.token)).status).to.equal(404);
    });

    it('rebuilds invoices, payments and credit note requests identically from the log', async () => {
      const tables = ['billing_invoices', 'billing_payments', 'billing_credit_note_requests'];
      const snapshot = async () => Promise.all(tables.map((t) => svc.app.knex(t).select('id', 'doc').orderBy('id')));
      const live = await snapshot();
      expect(live[0]!.length).to.be.greaterThan(5);
      await svc.app.runner.stop();
      await svc.app.runner.rebuild([billingInvoicesProjection.name, billingCreditNoteRequestsProjection.name]);
      expect(await snapshot()).to.deep.equal(live);
      svc.app.runner.start();
    });
  });
}
