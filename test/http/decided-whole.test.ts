// A command is decided whole, and a note is only as visible as its subject (reliability findings 2 and 3).
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { settle } from '../support/settle.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`refused updates keep nothing; notes follow their subject (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    const eventCount = async () => Number((await svc.db.knex('es_events').count<{ count: string }[]>('* as count'))[0]?.count);
    before(async () => {
      svc = await startService(backend, { clock: new TestClock('2026-03-10T09:00:00.000Z') });
      staff = await billingStaff(svc);
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it('invoices.update with a memo and a refused void answers 409 and stores neither, nor tells the feed', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [1000], { memo: 'before' });
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 400), staff)).status).to.equal(200);
      await settle(svc);
      const feedBefore = (await svc.call(ops['billing.events.list'], { limit: 200 }, acme.token)).body.items.length;
      const events = await eventCount();
      const res = await svc.call(ops['billing.invoices.update'], { id: inv.id, memo: 'X', action: 'void' }, staff);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('invoice_has_payments');
      expect(await eventCount()).to.equal(events);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body.memo).to.equal('before');
      await settle(svc);
      expect((await svc.call(ops['billing.events.list'], { limit: 200 }, acme.token)).body.items.length).to.equal(feedBefore);
    });

    it('invoices.update with new lines and a finalize that is refused keeps the draft as it was and reserves no number', async () => {
      const d = await draft(svc, staff, acme.customerId, [500]);
      await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff);
      const events = await eventCount();
      const res = await svc.call(ops['billing.invoices.update'], { id: d.id, memo: 'late', action: 'finalize' }, staff);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('invalid_status_transition');
      expect(await eventCount()).to.equal(events);
    });

    it('credit-note-requests.update with a new amount and a refused decision keeps the old amount', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [2000]);
      const cnr = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: 500, currency: 'GBP', reason: 'duplicate', description: 'Billed twice' }, acme.token);
      expect(cnr.status).to.equal(200);
      expect((await svc.call(ops['billing.credit-note-requests.update'], { id: cnr.body.id, action: 'reject' }, staff)).status).to.equal(200);
      const events = await eventCount();
      const res = await svc.call(ops['billing.credit-note-requests.update'], { id: cnr.body.id, amount: 300, action: 'cancel' }, acme.token);
      expect(res.status).to.equal(409);
      expect(await eventCount()).to.equal(events);
      const listed = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: inv.id }, staff);
      expect(listed.body.items.map((r: { amount: number }) => r.amount)).to.deep.equal([500]);
    });

    it('a staff note on a draft invoice is invisible to the organization: update and remove by id are 404, and nothing changes', async () => {
      const d = await draft(svc, staff, acme.customerId, [700]);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'invoice', id: d.id }, body: 'internal: check VAT' }, staff);
      expect(note.status).to.equal(200);
      const events = await eventCount();
      const edit = await svc.call(ops['billing.notes.update'], { id: note.body.id, body: 'changed by the org' }, acme.token);
      expect(edit.status).to.equal(404);
      expect(edit.body.code).to.equal('note_not_found');
      const removed = await svc.call(ops['billing.notes.remove'], { id: note.body.id }, acme.token);
      expect(removed.status).to.equal(404);
      expect(await eventCount()).to.equal(events);
      const mine = await svc.call(ops['billing.notes.list'], { subject: { type: 'invoice', id: d.id } }, staff);
      expect(mine.body.items.map((n: { body: string }) => n.body)).to.deep.equal(['internal: check VAT']);
      // Once finalized the invoice, and so its notes, are the organization's to see.
      await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff);
      expect((await svc.call(ops['billing.notes.update'], { id: note.body.id, body: 'seen' }, acme.token)).status).to.equal(200);
    });
  });
}
