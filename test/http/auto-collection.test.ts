// Automatic collection: a finalized invoice of a customer with a default method is charged by the worker (injected clock), declines retry on a schedule.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { settle } from '../support/settle.ts';
import { billedOrg, billingStaff, openInvoice, type BilledOrg } from '../support/billing.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { autoCollectedCustomers } from '../../src/queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../src/queries/billing/statements.ts';
import { invoices } from '../../src/commands/billing/handlers.ts';
import { IdSource } from '../../src/ids.ts';
import { isoDate } from '../../src/clock.ts';
import { randomUUID } from 'node:crypto';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`automatic collection (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const collectionLog = async (invoiceId: string) =>
      (await svc.app.knex('es_events').where({ stream_id: `collection-${invoiceId}` }).orderBy('revision').select('type', 'data')) as { type: string; data: Record<string, unknown> }[];
    const collectionEvents = async (invoiceId: string) => (await collectionLog(invoiceId)).map((r) => r.type);
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

    it('a charge made by a pass that stopped before recording it goes onto the invoice only up to what it still owes; the rest is recorded as to refund', async () => {
      const org = await billedOrg(svc);
      await addCard(org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [4200]);
      await settle(svc);
      // The earlier pass: the provider charged the whole invoice under the first attempt's key, then the pass stopped.
      const method = (await autoCollectedCustomers(svc.app.knex)).find((c) => c.customer_id === org.customerId)?.method;
      if (!method) throw new Error('expected the customer to be auto-collected');
      const first = await svc.app.payments.charge({ method_ref: method.provider_ref, amount: 4200, currency: 'GBP', idempotency_key: inv.id });
      // Meanwhile the customer paid part of it by bank transfer.
      const manual = await svc.call(ops['billing.payments.insert'], { invoice_id: inv.id, amount: 1000, currency: 'GBP', method: 'bank_transfer', reference: 'BACS 1', received_on: isoDate(svc.clock.now()) }, staff);
      expect(manual.status).to.equal(200);
      await pass();
      const got = await svc.call(ops['billing.invoices.get'], inv.id, org.token);
      expect(got.body).to.include({ status: 'paid', amount_paid: 4200, amount_remaining: 0 });
      const payments = await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff);
      expect(payments.body.items.map((p) => [p.method, p.amount]).sort()).to.deep.equal([['bank_transfer', 1000], ['card', 3200]]);
      const log = await collectionLog(inv.id);
      expect(log.map((e) => [e.type, e.data.charge_ref, e.data.amount, e.data.applied])).to.deep.equal([['ChargeSucceeded', first.charge_ref, 4200, 3200]]);
      await pass();
      expect(await collectionEvents(inv.id)).to.have.length(1);
    });

    it('charges what the invoice\'s stream says is owed, not what a read model behind it says', async () => {
      const org = await billedOrg(svc);
      await addCard(org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [5000]);
      await settle(svc);
      // Another process records a payment while this one's projections stand still: it is in the log, and the
      // pass reads the receivables read model without it.
      await svc.app.runner.stop();
      try {
        const other = { store: svc.app.store, ids: IdSource.random(svc.clock.now()), now: svc.clock.now(), metadata: { org_id: org.orgId, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null } };
        const payment = { payment_id: randomUUID(), amount: 2000, currency: 'GBP', method: 'bank_transfer' as const, reference: 'BACS 2', received_on: isoDate(svc.clock.now()) };
        await invoices.run(other, inv.id, { type: 'RecordPayment', data: payment }, { orgId: org.orgId });
        expect((await unpaidInvoices(svc.app.knex, org.customerId)).map((i) => [i.invoice_id, i.amount_remaining])).to.deep.equal([[inv.id, 5000]]);
        await svc.app.workers.runOnce();
      } finally {
        svc.app.runner.start();
      }
      await settle(svc);
      const log = await collectionLog(inv.id);
      expect(log.map((e) => [e.type, e.data.amount, e.data.applied])).to.deep.equal([['ChargeSucceeded', 3000, 3000]]);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, org.token)).body).to.include({ status: 'paid', amount_paid: 5000 });
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
