// Automatic collection: a finalized invoice of a customer with a default method is charged by the worker (injected clock), declines retry on a schedule.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { settle } from '../support/settle.ts';
import { billedOrg, billingStaff, openInvoice, type BilledOrg } from '../support/billing.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`automatic collection (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const collectionEvents = async (invoiceId: string) =>
      (await svc.app.knex('es_events').where({ stream_id: `collection-${invoiceId}` }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    const addCard = async (org: BilledOrg, number: string) => {
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: org.customerId, return_url: `${svc.url}/` }, org.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      await new WebClient(svc.url).post(new URL(next.url).pathname, { number });
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, org.token)).body.status).to.equal('succeeded');
    };
    const pass = async () => {
      await settle(svc);
      const res = await svc.app.workers.runOnce();
      await settle(svc);
      return res;
    };

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('charges the default card: a card payment through the invoice stream and a paid invoice; the next pass does nothing', async () => {
      const org = await billedOrg(svc);
      await addCard(org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [4200]);
      await pass();
      const got = await svc.call(ops['billing.invoices.get'], inv.id, org.token);
      expect(got.body).to.include({ status: 'paid', amount_remaining: 0 });
      const payments = await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff);
      expect(payments.body.items.map((p) => [p.method, p.amount])).to.deep.equal([['card', 4200]]);
      expect(await collectionEvents(inv.id)).to.deep.equal(['ChargeSucceeded']);
      await pass();
      expect(await collectionEvents(inv.id)).to.deep.equal(['ChargeSucceeded']);
    });

    it('a decline is an event and retries after 3, 5 and 7 days, then stops; the invoice stays open and becomes overdue', async () => {
      const org = await billedOrg(svc, { payment_terms_days: 7 });
      await addCard(org, TEST_CARDS.chargeDeclined);
      const inv = await openInvoice(svc, staff, org.customerId, [1500]);
      await pass();
      expect(await collectionEvents(inv.id)).to.deep.equal(['ChargeFailed']);
      await pass();
      expect(await collectionEvents(inv.id)).to.have.length(1);
      for (const [days, n] of [[2, 1], [1, 2], [5, 3], [7, 4], [30, 4]] as const) {
        svc.clock.advance(days * DAY);
        await pass();
        expect(await collectionEvents(inv.id), `after ${days} more days`).to.have.length(n);
      }
      expect((await svc.call(ops['billing.invoices.get'], inv.id, org.token)).body.status).to.equal('open');
      const overdue = await svc.call(ops['billing.invoices.overdue-status.get'], {}, org.token);
      expect(overdue.body.past_due).to.equal(true);
      expect(overdue.body.payment_url).to.be.a('string');
    });

    it('no automatic collection after the card is removed', async () => {
      const org = await billedOrg(svc);
      await addCard(org, TEST_CARDS.succeeds);
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: org.customerId }, org.token);
      await svc.call(ops['billing.payment-methods.remove'], { customer_id: org.customerId, id: list.body.items[0]?.id ?? '' }, org.token);
      const inv = await openInvoice(svc, staff, org.customerId, [900]);
      await pass();
      expect(await collectionEvents(inv.id)).to.deep.equal([]);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, org.token)).body.status).to.equal('open');
    });
  });
}
