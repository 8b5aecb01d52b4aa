// The payment page behind overdue status's payment link (/billing/pay/<customer>): sign-in, paying with a saved method or a new card
// through the sandbox, the asynchronous signed notification that records the payment, declines, and what forged or foreign requests get.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { payForm, payPath, signedInPayer, type Payer } from '../support/payer.ts';
import { SANDBOX_SIGNATURE_HEADER, SANDBOX_WEBHOOK_PATH, TEST_CARDS } from '../../src/payments/sandbox.ts';
import { signPayload } from '../../src/payments/signature.ts';

for (const backend of backends()) {
  describe(`payment page (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const streamTypes = async (stream: string) => svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type');
    const attemptEventCount = async () => Number((await svc.app.knex('es_events').where('stream_id', 'like', 'paymentattempt-%').count({ n: '*' }))[0]?.n ?? 0);

    const payer = (name = 'Pay Garage') => signedInPayer(svc, name);

    async function saveCard(p: Payer, number: string): Promise<string> {
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: p.customerId, return_url: `${svc.url}/` }, p.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      await new WebClient(svc.url).post(new URL(next.url).pathname, { number });
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: p.customerId }, p.token);
      const m = list.body.items.find((x) => x.last4 === number.slice(-4));
      if (!m) throw new Error('card not saved');
      return m.id;
    }

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('the payment link of overdue status asks for sign-in, then shows the open invoices, escaped, on a page that cannot be framed', async () => {
      const p = await payer();
      const inv = await openInvoice(svc, staff, p.customerId, [12345]);
      const status = await svc.call(ops['billing.invoices.overdue-status.get'], {}, p.token);
      const link = new URL(status.body.payment_url ?? '');
      expect(link.pathname).to.equal(payPath(p));
      const anonymous = await new WebClient(svc.url).get(link.pathname);
      expect(anonymous.status).to.equal(303);
      expect(anonymous.location).to.equal(`/auth/login?return_to=${encodeURIComponent(link.pathname)}`);
      const page = await p.web.get(link.pathname);
      expect(page.status).to.equal(200);
      expect(page.html).to.contain(inv.number ?? 'no number');
      expect(page.html).to.contain('£123.45');
      expect(page.html).to.contain('Pay Garage &lt;Ltd&gt;');
      expect(page.html).to.not.contain('Pay Garage <Ltd>');
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
      expect(page.headers.get('content-security-policy')).to.contain("default-src 'none'");
    });

    it('pays with a saved card: the notification records a card payment on the invoice stream, the invoice is paid and overdue status is clear; the same form again charges nothing more', async () => {
      const p = await payer();
      const methodId = await saveCard(p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [4200]);
      svc.clock.advance(10 * 86_400_000);
      try {
        expect((await svc.call(ops['billing.invoices.overdue-status.get'], {}, p.token)).body.past_due).to.equal(true);
        const fields = { ...(await payForm(p, inv.id)), method: methodId };
        const sent = await p.web.post(payPath(p), fields);
        expect(sent.status).to.equal(303);
        expect(sent.location).to.equal(`${svc.url}${payPath(p)}/attempts/${fields.attempt_id}`);
        const result = await p.web.follow(sent);
        expect(result.html).to.contain('Payment received');
        expect(result.html).to.contain('£42.00');
        expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_remaining: 0 });
        const payments = await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff);
        expect(payments.body.items.map((x) => [x.method, x.amount])).to.deep.equal([['card', 4200]]);
        expect((await svc.call(ops['billing.invoices.overdue-status.get'], {}, p.token)).body).to.include({ past_due: false });
        expect(await streamTypes(`paymentattempt-${fields.attempt_id}`)).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
        const again = await p.web.post(payPath(p), fields);
        expect(again.status).to.equal(303);
        expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.have.length(1);
        const providerPayment = await svc.app.knex('sandbox_provider_payments').where({ idempotency_key: fields.attempt_id }).first('id');
        const charges = await svc.app.knex('sandbox_provider_charges').where({ idempotency_key: providerPayment.id }).count({ n: '*' });
        expect(Number(charges[0]?.n)).to.equal(1);
      } finally {
        svc.clock.advance(-10 * 86_400_000);
      }
    });

    it('a new card on the sandbox page: the declining one shows a clear error and records nothing; the succeeding one pays', async () => {
      const p = await payer();
      const inv = await openInvoice(svc, staff, p.customerId, [990]);
      const declined = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
      expect(declined.status).to.equal(303);
      const hosted = new URL(declined.location ?? '');
      expect(hosted.pathname).to.match(/^\/sandbox\/pay\/pi_sbx_[0-9a-f]{32}$/);
      const back = await p.web.post(hosted.pathname, { number: TEST_CARDS.declined });
      const shown = await p.web.follow(back);
      expect(shown.html).to.contain('Payment declined');
      expect(shown.html).to.match(/role="alert">The card was declined\. Nothing was charged/);
      expect(await streamTypes(`invoice-${inv.id}`)).to.not.include('PaymentRecorded');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'open', amount_remaining: 990 });

      const paid = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
      const page = new URL(paid.location ?? '').pathname;
      expect((await p.web.post(page, { number: '1234' })).location).to.equal(`${page}?error=invalid`);
      const result = await p.web.follow(await p.web.post(page, { number: TEST_CARDS.succeeds }));
      expect(result.html).to.contain('Payment received');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body.status).to.equal('paid');
      const next = await p.web.get(payPath(p));
      expect(next.html).to.contain('Nothing to pay');
    });

    it('a saved card whose charges are declined: a clear message, no payment, the invoice still open', async () => {
      const p = await payer();
      const methodId = await saveCard(p, TEST_CARDS.chargeDeclined);
      const inv = await openInvoice(svc, staff, p.customerId, [1500]);
      const fields = { ...(await payForm(p, inv.id)), method: methodId };
      const result = await p.web.follow(await p.web.post(payPath(p), fields));
      expect(result.html).to.contain('Payment declined');
      expect(await streamTypes(`paymentattempt-${fields.attempt_id}`)).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptFailed']);
      expect(await streamTypes(`invoice-${inv.id}`)).to.not.include('PaymentRecorded');
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.deep.equal([]);
    });

    it('forged and foreign requests: no or wrong CSRF token 403, another organization\'s page, invoice or payment 404, an unknown method 400; nothing written', async () => {
      const acme = await payer('Acme');
      const other = await payer('Other');
      const inv = await openInvoice(svc, staff, acme.customerId, [700]);
      const fields = await payForm(acme, inv.id);
      const before = await attemptEventCount();
      expect((await acme.web.post(payPath(acme), { ...fields, csrf: '', method: 'new' })).status).to.equal(403);
      expect((await acme.web.post(payPath(acme), { ...fields, csrf: 'forged', method: 'new' })).status).to.equal(403);
      expect((await new WebClient(svc.url).post(payPath(acme), { ...fields, method: 'new' })).status).to.equal(303);
      expect((await other.web.get(payPath(acme))).status).to.equal(404);
      const otherCsrf = (await payForm(other, (await openInvoice(svc, staff, other.customerId, [100])).id)).csrf;
      expect((await other.web.post(payPath(acme), { ...fields, csrf: otherCsrf, method: 'new' })).status).to.equal(404);
      expect((await other.web.post(payPath(other), { ...fields, csrf: otherCsrf, method: 'new' })).status).to.equal(404);
      expect((await acme.web.post(payPath(acme), { ...fields, method: 'not-a-method' })).status).to.equal(400);
      expect((await acme.web.post(payPath(acme), { ...fields, attempt_id: 'nope', method: 'new' })).status).to.equal(404);
      expect(await attemptEventCount()).to.equal(before);
      const sent = await acme.web.post(payPath(acme), { ...fields, method: 'new' });
      expect(sent.status).to.equal(303);
      expect((await other.web.get(`${payPath(other)}/attempts/${fields.attempt_id}`)).status).to.equal(404);
      expect((await other.web.get(`${payPath(acme)}/attempts/${fields.attempt_id}`)).status).to.equal(404);
      const second = await openInvoice(svc, staff, acme.customerId, [800]);
      expect((await acme.web.post(payPath(acme), { ...fields, invoice_id: second.id, method: 'new' })).status).to.equal(409);
    });

    it('a forged payment notification changes nothing, signed or not; a replayed one is accepted and records nothing more', async () => {
      const p = await payer();
      const methodId = await saveCard(p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [2500]);
      const fields = { ...(await payForm(p, inv.id)), method: methodId };
      const ownerOf = { attempt_id: fields.attempt_id, invoice_id: inv.id, customer_id: p.customerId, organization_id: p.orgId };
      const deliver = (body: string, signature: string) => fetch(`${svc.url}${SANDBOX_WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signature }, body });
      const payment = { ref: 'pi_sbx_00000000000000000000000000000000', status: 'succeeded', amount: 2500, currency: 'GBP', charge_ref: 'ch_forged', next_action: null, failure: null, owner: ownerOf };
      const forgedBody = JSON.stringify({ id: 'evt_forged_pay', type: 'payment.updated', payment });
      expect((await deliver(forgedBody, signPayload('not-the-secret-at-all', forgedBody, svc.clock.now()))).status).to.equal(400);
      // Signed, but naming a payment the provider does not have (the attempt was never started): refused, nothing recorded.
      const signedForged = await deliver(forgedBody, signPayload(svc.app.config.sandboxWebhookSecret, forgedBody, svc.clock.now()));
      expect(signedForged.status).to.equal(400);
      expect(((await signedForged.json()) as { code: string }).code).to.equal('notification_mismatch');
      expect(await streamTypes(`invoice-${inv.id}`)).to.not.include('PaymentRecorded');
      await p.web.follow(await p.web.post(payPath(p), fields));
      const recorded = await streamTypes(`invoice-${inv.id}`);
      expect(recorded.filter((t) => t === 'PaymentRecorded')).to.have.length(1);
      const record = await svc.app.payments.findPayment(fields.attempt_id);
      expect(record?.status).to.equal('succeeded');
      const replay = JSON.stringify({ id: 'evt_sbx_replayed_pay', type: 'payment.updated', payment: { ...record, charge_ref: 'ch_again' } });
      expect((await deliver(replay, signPayload(svc.app.config.sandboxWebhookSecret, replay, svc.clock.now()))).status).to.equal(200);
      expect(await streamTypes(`invoice-${inv.id}`)).to.deep.equal(recorded);
      expect(await streamTypes(`paymentattempt-${fields.attempt_id}`)).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
    });
  });

  describe(`payment page when the provider's notification is lost (${backend})`, () => {
    let svc: TestService;
    // The provider cannot reach the service: its notifications go to a closed port, so only the result page's resume records the outcome.
    before(async () => {
      svc = await startService(backend, { env: { BASE_URL: 'http://127.0.0.1:9' } });
    });
    after(async () => svc?.close());

    it('an abandoned payment says "processing" while it holds the invoice, then that it was not confirmed and the invoice can be paid again', async () => {
      const staff = await billingStaff(svc);
      const p = await signedInPayer(svc, 'Abandoned Page Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [4100]);
      const fields = { ...(await payForm(p, inv.id)), method: 'new' };
      expect((await p.web.post(payPath(p), fields)).status).to.equal(303);
      // The payer closes the provider's page without paying.
      const result = `${payPath(p)}/attempts/${fields.attempt_id}`;
      expect((await p.web.get(result)).html).to.contain('Payment processing');
      svc.clock.advance(16 * 60_000);
      try {
        const late = await p.web.get(result);
        expect(late.html).to.contain('Payment not confirmed');
        expect(late.html).to.match(/role="alert">The payment provider did not confirm the payment of £41\.00/);
        expect(late.html).to.not.contain('Payment processing');
        // The page's promise holds: the invoice is on the payment page again and a new payment is taken.
        const again = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
        expect(again.status).to.equal(303);
        expect(new URL(again.location ?? '').pathname).to.match(/^\/sandbox\/pay\//);
      } finally {
        svc.clock.advance(-16 * 60_000);
      }
    });

    it('the result page asks the provider: a payment whose notification never arrived is recorded once, and the page says received', async () => {
      const staff = await billingStaff(svc);
      const p = await signedInPayer(svc, 'Lost Notice Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [3300]);
      const fields = { ...(await payForm(p, inv.id)), method: 'new' };
      const sent = await p.web.post(payPath(p), fields);
      expect(sent.status).to.equal(303);
      const hosted = new URL(sent.location ?? '').pathname;
      const back = await p.web.post(hosted, { number: TEST_CARDS.succeeds });
      const result = new URL(back.location ?? '').pathname;
      expect(result).to.equal(`${payPath(p)}/attempts/${fields.attempt_id}`);
      expect(await svc.app.knex('es_events').where({ stream_id: `paymentattempt-${fields.attempt_id}` }).pluck('type')).to.deep.equal(['PaymentAttemptStarted']);
      const page = await p.web.get(result);
      expect(page.html).to.contain('Payment received');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_remaining: 0 });
      const types = () => svc.app.knex('es_events').where({ stream_id: `paymentattempt-${fields.attempt_id}` }).orderBy('revision').pluck('type');
      expect(await types()).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
      expect((await p.web.get(result)).html).to.contain('Payment received');
      expect(await types()).to.have.length(2);
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items.map((x) => [x.method, x.amount])).to.deep.equal([['card', 3300]]);
    });
  });
}
