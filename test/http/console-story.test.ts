// The console's story of a change: every event type the history can show and every type of the billing feed has a
// sentence (so a new event is never silently unrendered); billing.activity.list names who made each change and filters
// by that person; billing.names.list answers the names behind a page's ids.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { FEED_EVENT_TYPES } from '../../src/contract/schemas/billing-events.ts';
import { FEED_SENTENCES, HISTORY_SENTENCES, historySentence } from '../../src/http/pages/console/story.ts';
import { customerCodec } from '../../src/domain/billing/customer.ts';
import { invoiceCodec } from '../../src/domain/billing/invoice-events.ts';
import { creditNoteRequestCodec } from '../../src/domain/billing/credit-note-request.ts';
import { noteDecider } from '../../src/domain/billing/note.ts';
import { attachmentDecider } from '../../src/domain/billing/attachment.ts';
import { relationshipDecider } from '../../src/domain/billing/configuration/relationship.ts';
import { revisionDecider } from '../../src/domain/billing/configuration/revisions.ts';

describe('console story sentences', () => {
  it('has a sentence for every event type billing.history.get can show', () => {
    const codecs = [customerCodec, invoiceCodec, creditNoteRequestCodec, noteDecider.events, attachmentDecider.events, relationshipDecider.events, revisionDecider.events];
    const types = codecs.flatMap((c) => (c ? Object.keys(c.schemas) : []));
    expect(types.length).to.be.greaterThan(35);
    expect(types.filter((t) => !Object.hasOwn(HISTORY_SENTENCES, t))).to.deep.equal([]);
  });

  it('has a sentence for every type of the billing feed', () => {
    expect(FEED_EVENT_TYPES.filter((t) => !Object.hasOwn(FEED_SENTENCES, t))).to.deep.equal([]);
  });

  it('writes money in its currency and never the internal name', () => {
    const s = historySentence('PaymentRecorded', { data: { amount: 100000, currency: 'GBP', method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-03-10' }, currency: null });
    expect(s).to.equal('Payment of GBP 1,000.00 by bank transfer received 2026-03-10 (reference BACS 1) recorded');
    expect(historySentence('SomethingNew', { data: {}, currency: 'GBP' })).not.to.contain('SomethingNew');
  });
});

for (const backend of backends()) {
  describe(`billing.activity.list and billing.names.list (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let acme: BilledOrg;
    let billie: { token: string; userId: string; email: string };
    let sam: { token: string; userId: string; email: string };
    before(async () => {
      svc = await startService(backend, { clock: new TestClock('2026-03-10T09:00:00.000Z') });
      const b = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'], name: 'Platform' });
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'], name: 'Platform 2' });
      billie = { token: b.token, userId: b.userId, email: b.email };
      sam = { token: s.token, userId: s.userId, email: s.email };
      acme = await billedOrg(svc);
    });
    after(async () => svc?.close());

    it("lists what changed newest first with the actor's name and reason, filtered by person and kind", async () => {
      const inv = await openInvoice(svc, billie.token, acme.customerId, [150000]);
      const paid = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100000), sam.token, { 'Svc-Reason': 'customer rang' });
      expect(paid.status).to.equal(200);
      const all = await svc.call(ops['billing.activity.list'], { limit: 200 }, billie.token);
      expect(all.status, JSON.stringify(all.body)).to.equal(200);
      expect(all.body.items[0]).to.deep.include({ type: 'payment.recorded', reason: 'customer rang', organization_id: acme.orgId });
      expect(all.body.items[0]?.actor).to.deep.include({ type: 'staff', id: sam.userId, email: sam.email });
      expect(all.body.items[0]?.actor.name).to.be.a('string');
      const hers = await svc.call(ops['billing.activity.list'], { actor_id: billie.userId, limit: 200 }, billie.token);
      expect(hers.body.items.map((i) => i.type)).to.deep.equal(['invoice.finalized', 'invoice.created']);
      expect(hers.body.items.every((i) => i.actor.id === billie.userId && i.actor.email === billie.email)).to.equal(true);
      const payments = await svc.call(ops['billing.activity.list'], { subject_type: 'payment' }, billie.token);
      expect(payments.body.items.map((i) => i.actor.id)).to.deep.equal([sam.userId]);
      // Pages, newest first.
      const first = await svc.call(ops['billing.activity.list'], { limit: 1 }, billie.token);
      const second = await svc.call(ops['billing.activity.list'], { limit: 1, cursor: first.body.pagination?.cursor }, billie.token);
      expect(second.body.items[0]?.id).to.equal(all.body.items[1]?.id);
      // Staff only: an organization's own user is refused.
      expect((await svc.call(ops['billing.activity.list'], {}, acme.token)).status).to.equal(403);
    });

    it('answers the names behind ids, leaving unknown ids out', async () => {
      const unknown = '0190e4a0-0000-7000-8000-000000000000';
      const r = await svc.call(ops['billing.names.list'], { customers: [acme.customerId, unknown], organizations: [acme.orgId], users: [billie.userId] }, billie.token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.customers).to.have.length(1);
      expect(r.body.customers[0]).to.include({ id: acme.customerId, suspended: false, organization_id: acme.orgId });
      expect(r.body.customers[0]?.organization_name).to.be.a('string');
      expect(r.body.organizations[0]).to.include({ id: acme.orgId, customer_id: acme.customerId });
      expect(r.body.users).to.have.length(1);
      expect(r.body.users[0]).to.include({ id: billie.userId, email: billie.email });
      expect((await svc.call(ops['billing.names.list'], { customers: ['not-a-uuid'] }, billie.token)).status).to.equal(400);
    });
  });
}
