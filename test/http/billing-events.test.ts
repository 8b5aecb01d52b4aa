// billing.events.get / .list: the public billing event feed over HTTP.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { settle } from '../support/settle.ts';
import { systemContext } from '../support/system.ts';
import { createSession, createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { ops } from '../support/ops.ts';
import { at } from '../support/lists.ts';


for (const backend of backends()) {
  describe(`billing event feed over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let member: string;
    let other: Awaited<ReturnType<TestService['signUp']>>;
    let staff: Awaited<ReturnType<TestService['signUp']>>;
    let customerId: string;
    let otherCustomerId: string;
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
      other = await svc.signUp();
      staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Acme Ltd', email: 'ap@acme.example', currency: 'GBP' }, owner.token);
      customerId = c.body.id;
      await svc.call(ops['billing.customers.update'], { id: customerId, payment_terms_days: 14 }, owner.token);
      await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: customerId }, body: 'Slow payer: call before the 5th.' }, owner.token);
      const o = await svc.call(ops['billing.customers.insert'], { name: 'Other Ltd', email: 'ap@other.example', currency: 'EUR' }, other.token);
      otherCustomerId = o.body.id;
      // A plain member of the owner's organization: reads the feed but not internal notes.
      const u = await createUser(systemContext(svc.app), { email: 'member@acme.example', password: 'correct horse battery', organizationId: owner.orgId, role: 'member' });
      await svc.app.runner.waitFor(u.position, [identityProjection], 10_000);
      member = (await createSession(svc.app.knex, { userId: u.id, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
      await settle(svc);
    });
    after(async () => svc?.close());

    it("shows an organization's members its own customer's events in log order, and nothing of internal notes", async () => {
      const res = await svc.call(ops['billing.events.list'], {}, member);
      expect(res.status).to.equal(200);
      expect(res.body.items.map((e: { type: string }) => e.type)).to.deep.equal(['customer.created', 'customer.updated']);
      const [created, updated] = res.body.items;
      expect(created?.subject).to.deep.equal({ type: 'customer', id: customerId });
      expect(created?.data.customer).to.include({ id: customerId, organization_id: owner.orgId, name: 'Acme Ltd', currency: 'GBP' });
      expect(updated?.data).to.deep.equal({ changes: { payment_terms_days: 14 } });
      expect(JSON.stringify(res.body)).not.to.contain('Slow payer');
      expect(res.body.pagination).to.equal(null);
    });

    it('returns one event by its bare UUID with the same body as the list', async () => {
      const list = await svc.call(ops['billing.events.list'], {}, owner.token);
      const event = at(list.body.items, 0);
      const got = await svc.call(ops['billing.events.get'], event.id, owner.token);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(event);
    });

    it("hides another organization's events: 404 on get, absent from the list", async () => {
      const theirs = await svc.call(ops['billing.events.list'], {}, other.token);
      expect(theirs.body.items).to.have.length(1);
      const theirEvent = at(theirs.body.items, 0);
      expect(theirEvent.subject.id).to.equal(otherCustomerId);
      const got = await svc.call(ops['billing.events.get'], theirEvent.id, owner.token);
      expect(got.status).to.equal(404);
      expect(got.body.code).to.equal('event_not_found');
      expect((await svc.call(ops['billing.events.list'], {}, member)).body.items).to.have.length(2);
    });

    it("shows billing staff every organization's events, filterable by organization", async () => {
      const all = await svc.call(ops['billing.events.list'], {}, staff.token);
      expect(all.body.items.map((e: { subject: { id: string } }) => e.subject.id)).to.include.members([customerId, otherCustomerId]);
      const one = await svc.call(ops['billing.events.list'], { organization_id: other.orgId }, staff.token);
      expect(one.body.items.map((e: { subject: { id: string } }) => e.subject.id)).to.deep.equal([otherCustomerId]);
      const theirs = await svc.call(ops['billing.events.get'], at(one.body.items, 0).id, staff.token);
      expect(theirs.status).to.equal(200);
    });

    it('filters by type, subject and time range', async () => {
      const byType = await svc.call(ops['billing.events.list'], { types: ['customer.updated'] }, owner.token);
      expect(byType.body.items.map((e: { type: string }) => e.type)).to.deep.equal(['customer.updated']);
      const bySubject = await svc.call(ops['billing.events.list'], { subject: { type: 'customer', id: otherCustomerId } }, owner.token);
      expect(bySubject.body.items).to.have.length(0);
      const now = svc.clock.now();
      const before = await svc.call(ops['billing.events.list'], { occurred_before: new Date(now.getTime() - 60_000).toISOString() }, owner.token);
      expect(before.body.items).to.have.length(0);
      const from = await svc.call(ops['billing.events.list'], { occurred_from: new Date(now.getTime() - 60_000).toISOString() }, owner.token);
      expect(from.body.items).to.have.length(2);
    });

    it('pages with a keyset cursor and rejects a forged one', async () => {
      const first = await svc.call(ops['billing.events.list'], { limit: 1 }, owner.token);
      expect(first.body.items).to.have.length(1);
      expect(first.body.pagination).to.have.property('cursor');
      const second = await svc.call(ops['billing.events.list'], { limit: 1, cursor: first.body.pagination?.cursor }, owner.token);
      expect(second.body.items[0]?.type).to.equal('customer.updated');
      expect(second.body.pagination).to.equal(null);
      const bad = await svc.call(ops['billing.events.list'], { cursor: 'bm9wZQ' }, owner.token);
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_cursor');
    });

    it('shows an organization its invoices from finalize on (never drafts), with payments and credits; staff see the drafts too', async () => {
      const d = await svc.call(ops['billing.invoices.insert'], { customer_id: customerId, lines: [{ description: 'Panel', unit_amount: 5000 }] }, staff.token);
      await svc.call(ops['billing.invoices.update'], { id: d.body.id, memo: 'draft memo' }, staff.token);
      await svc.call(ops['billing.invoices.update'], { id: d.body.id, action: 'finalize' }, staff.token);
      await svc.call(ops['billing.invoices.update'], { id: d.body.id, memo: 'Thank you' }, staff.token);
      const today = svc.clock.now().toISOString().slice(0, 10);
      const pay = await svc.call(ops['billing.payments.insert'], { invoice_id: d.body.id, amount: 5000, currency: 'GBP', method: 'card', reference: 'CARD 1', received_on: today }, staff.token);
      expect(pay.status, JSON.stringify(pay.body)).to.equal(200);
      const cn = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: d.body.id, amount: 700, currency: 'GBP', reason: 'duplicate', description: 'Charged twice' }, owner.token);
      await svc.call(ops['billing.credit-note-requests.update'], { id: cn.body.id, amount: 600 }, owner.token);
      await settle(svc);
      const invoiceFeed = async (token: string) => (await svc.call(ops['billing.events.list'], { subject: { type: 'invoice', id: d.body.id } }, token)).body.items;
      const mine = await invoiceFeed(owner.token);
      expect(mine.map((e: { type: string }) => e.type)).to.deep.equal(['invoice.finalized', 'invoice.updated', 'invoice.paid']);
      expect(mine[0]?.data).to.include({ number: (await svc.call(ops['billing.invoices.get'], d.body.id, owner.token)).body.number });
      expect(mine[0]?.data.total).to.deep.equal({ amount: 5000, currency: 'GBP' });
      expect(mine[1]?.data).to.deep.equal({ changes: { memo: 'Thank you' } });
      const theirs = await invoiceFeed(staff.token);
      expect(theirs.map((e: { type: string }) => e.type)).to.deep.equal(['invoice.created', 'invoice.updated', 'invoice.finalized', 'invoice.updated', 'invoice.paid']);
      const drafted = at(theirs, 0);
      expect((await svc.call(ops['billing.events.get'], drafted.id, owner.token)).status).to.equal(404);
      const payments = (await svc.call(ops['billing.events.list'], { subject_type: 'payment' }, owner.token)).body.items;
      expect(payments).to.have.length(1);
      expect(payments[0]).to.deep.include({ type: 'payment.recorded', subject: { type: 'payment', id: pay.body.payment.id } });
      expect(payments[0]?.data).to.deep.equal({ invoice_id: d.body.id, amount: { amount: 5000, currency: 'GBP' }, method: 'card', reference: 'CARD 1', received_on: today });
      const requests = (await svc.call(ops['billing.events.list'], { subject: { type: 'credit_note_request', id: cn.body.id } }, owner.token)).body.items;
      expect(requests.map((e: { type: string }) => e.type)).to.deep.equal(['credit_note_request.created', 'credit_note_request.updated']);
      expect(requests[1]?.data).to.deep.equal({ changes: { amount: { amount: 600, currency: 'GBP' } } });
    });

    it('rejects a body that is not a UUID string, and unknown filters, with 400', async () => {
      const notUuid = await svc.send('billing.events.get', { id: 'x' }, owner.token);
      expect(notUuid.status).to.equal(400);
      expect(notUuid.body.code).to.equal('invalid_request');
      const unknown = await svc.send('billing.events.list', { colour: 'red' }, owner.token);
      expect(unknown.status).to.equal(400);
      expect((await svc.call(ops['billing.events.list'], {}, null)).status).to.equal(401);
    });
  });
}
