// Provider notifications are hints: the webhook asks the provider for its record of the payment or setup a notification
// names and applies that record, so a signed but wrong notification changes nothing; nothing a sender can send is a 500.
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { backends, openTestDb } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { WebClient } from '../support/web.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { deliverNotification, payForm, payPath, signedInPayer } from '../support/payer.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';

/** What the webhook answers. */
interface WebhookAnswer {
  received?: boolean;
  status?: string;
  matched?: boolean;
  type?: string;
  code?: string;
  issues?: { path: string; message: string }[];
  request_id?: string;
}

const answer = async (res: Response): Promise<WebhookAnswer> => (await res.json()) as WebhookAnswer;

const visaMethod = (ref: string) => ({ type: 'card', provider_ref: `pm_sbx_${ref}_4242`, brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, bank_name: null, mandate_reference: null });

for (const backend of backends()) {
  describe(`provider notifications are hints (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const streamTypes = async (stream: string) => svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type');
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n ?? 0);

    /** A payment the payer started with "a new card" but has not finished on the provider's page (the provider says requires_action). */
    async function pendingPayment(amount: number) {
      const p = await signedInPayer(svc, 'Hint Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [amount]);
      const fields = { ...(await payForm(p, inv.id)), method: 'new' };
      const sent = await p.web.post(payPath(p), fields);
      expect(sent.status).to.equal(303);
      const hosted = new URL(sent.location ?? '').pathname;
      const ref = hosted.split('/').pop() ?? '';
      const owner = { attempt_id: fields.attempt_id, invoice_id: inv.id, customer_id: p.customerId, organization_id: p.orgId };
      return { p, inv, hosted, ref, owner, attemptId: fields.attempt_id };
    }

    /** A card setup started but not finished on the provider's page (the provider says requires_action). */
    async function pendingSetup() {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Hint Ltd', email: 'ap@hint.example', currency: 'GBP' }, o.token);
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: c.body.id, return_url: `${svc.url}/back` }, o.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      const ref = new URL(next.url).pathname.split('/').pop() ?? '';
      return { token: o.token, customerId: c.body.id, setupId: setup.body.id, ref, owner: { setup_id: setup.body.id, customer_id: c.body.id, organization_id: o.orgId } };
    }

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('a signed "succeeded" for a payment the provider still has as requires_action is a hint: 200 matched false, the invoice stays unpaid and the attempt pending; paying for real then applies', async () => {
      const { p, inv, hosted, ref, owner, attemptId } = await pendingPayment(2500);
      const forged = JSON.stringify({ id: 'evt_forged_hint', type: 'payment.updated', payment: { ref, status: 'succeeded', amount: 2500, currency: 'GBP', charge_ref: 'ch_forged', next_action: null, failure: null, owner } });
      const res = await deliverNotification(svc, forged);
      expect(res.status).to.equal(200);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'open', amount_remaining: 2500 });
      expect(await streamTypes(`paymentattempt-${attemptId}`)).to.deep.equal(['PaymentAttemptStarted']);
      expect(await streamTypes(`invoice-${inv.id}`)).to.not.include('PaymentRecorded');
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.deep.equal([]);
      expect(await answer(res)).to.deep.equal({ received: true, status: 'requires_action', matched: false });
      // The payer finishes on the provider's page: its genuine notification applies.
      const result = await p.web.follow(await p.web.post(hosted, { number: TEST_CARDS.succeeds }));
      expect(result.html).to.contain('Payment received');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_remaining: 0 });
      expect(await streamTypes(`paymentattempt-${attemptId}`)).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
    });

    it('a signed notification naming a payment the provider does not have, or another attempt\'s payment, is 400 notification_mismatch and writes nothing', async () => {
      const { owner } = await pendingPayment(700);
      const other = await pendingPayment(800);
      const before = await eventCount();
      const payment = { status: 'succeeded', amount: 700, currency: 'GBP', charge_ref: 'ch_forged', next_action: null, failure: null };
      for (const named of [{ ...payment, ref: 'pi_sbx_00000000000000000000000000000000', owner }, { ...payment, ref: other.ref, owner }]) {
        const res = await deliverNotification(svc, JSON.stringify({ id: 'evt_forged_other', type: 'payment.updated', payment: named }));
        expect(res.status).to.equal(400);
        const body = await answer(res);
        expect(body.code).to.equal('notification_mismatch');
        expect(body.request_id).to.equal(res.headers.get('x-request-id'));
      }
      expect(await eventCount()).to.equal(before);
    });

    it('a signed "succeeded" for a setup the provider still has as requires_action changes nothing; one with method null is 400 naming setup.method', async () => {
      const s = await pendingSetup();
      const before = await streamTypes(`paymentprofile-${s.customerId}`);
      const setup = { ref: s.ref, status: 'succeeded', next_action: null, method: visaMethod(s.ref), failure: null, owner: s.owner };
      const forged = await deliverNotification(svc, JSON.stringify({ id: 'evt_forged_setup', type: 'setup.updated', setup }));
      expect(forged.status).to.equal(200);
      expect(await streamTypes(`paymentprofile-${s.customerId}`), 'the forged success appended nothing').to.deep.equal(before);
      expect(await answer(forged)).to.deep.equal({ received: true, status: 'requires_action', matched: false });
      const noMethod = await deliverNotification(svc, JSON.stringify({ id: 'evt_no_method', type: 'setup.updated', setup: { ...setup, method: null } }));
      expect(noMethod.status).to.equal(400);
      const body = await answer(noMethod);
      expect(body.code).to.equal('invalid_notification');
      expect(body.issues?.map((i) => i.path)).to.deep.equal(['setup.method']);
      expect(body.request_id).to.be.a('string');
      expect(await streamTypes(`paymentprofile-${s.customerId}`)).to.deep.equal(before);
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id: s.setupId }, s.token)).body.status).to.equal('requires_action');
      expect((await svc.call(ops['billing.payment-methods.list'], { customer_id: s.customerId }, s.token)).body.items).to.deep.equal([]);
    });

    it('malformed signed notifications are answered 4xx (never 500) and write nothing', async () => {
      const pay = await pendingPayment(900);
      const set = await pendingSetup();
      const payment = { ref: pay.ref, status: 'succeeded', amount: 900, currency: 'GBP', charge_ref: 'ch_x', next_action: null, failure: null, owner: pay.owner };
      const setup = { ref: set.ref, status: 'succeeded', next_action: null, method: visaMethod(set.ref), failure: null, owner: set.owner };
      const json = (v: unknown) => JSON.stringify(v);
      const bodies = [
        '', 'not json', 'null', '[]', '"payment.updated"', '{}', '1e999', `${'['.repeat(5000)}${']'.repeat(5000)}`,
        json({ id: 'evt_1', type: 'payment.deleted', payment }),
        json({ id: 'evt_2', type: 'setup.updated', setup: null }),
        json({ id: 'evt_3', type: 'setup.updated', setup: { ...setup, method: null } }),
        json({ id: 'evt_\u0000', type: 'payment.updated', payment }),
        json({ id: 'evt_\ud800', type: 'setup.updated', setup }),
        json({ id: 'x'.repeat(60_000), type: 'payment.updated', payment }),
        json({ id: 'evt_4', type: 'payment.updated', payment: { ...payment, ref: 'pi_sbx_\u0000' } }),
        json({ id: 'evt_5', type: 'payment.updated', payment: { ...payment, ref: 'pi_sbx_unknown', owner: { ...pay.owner, attempt_id: '\u0000' } } }),
        json({ id: 'evt_6', type: 'payment.updated', payment: { ...payment, amount: 1e308 } }),
        json({ id: 'evt_7', type: 'payment.updated', payment: { ...payment, amount: 2.5, currency: null } }),
        json({ id: 'evt_8', type: 'payment.updated', payment: { ...payment, owner: { ...pay.owner, organization_id: set.owner.organization_id } } }),
        json({ id: 'evt_9', type: 'setup.updated', setup: { ...setup, ref: pay.ref } }),
        json({ id: 'evt_10', type: 'setup.updated', setup: { ...setup, owner: { ...set.owner, setup_id: 'not-a-setup' } } }),
        json({ id: 'evt_11', type: 'payment.updated', payment: { ...payment, ref: set.ref } }),
        '{"id":"evt_12","type":"payment.updated","__proto__":{"payment":1},"payment":{"constructor":{}}}',
      ];
      const before = await eventCount();
      const answers: [number, number][] = [];
      for (const [i, body] of bodies.entries()) {
        const res = await deliverNotification(svc, body);
        const parsed = await answer(res);
        answers.push([i, res.status]);
        expect(res.status, `body ${i}`).to.be.within(200, 499);
        if (res.status >= 400) expect(parsed.code, `body ${i}`).to.be.a('string');
      }
      expect(answers.filter(([, status]) => status === 200).map(([i]) => i), 'none of them is accepted').to.deep.equal([]);
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.invoices.get'], pay.inv.id, pay.p.token)).body.status).to.equal('open');
    });
  });

  describe(`a genuine notification still applies (${backend})`, () => {
    let svc: TestService;
    // The provider's own deliveries go to a closed port: the test delivers the notification it would have sent.
    before(async () => {
      svc = await startService(backend, { env: { BASE_URL: 'http://127.0.0.1:9' } });
    });
    after(async () => svc?.close());
    const streamTypes = async (stream: string) => svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type');

    it('a payment: the notification mirroring the provider\'s record marks the invoice paid once; its replay appends nothing', async () => {
      const staff = await billingStaff(svc);
      const p = await signedInPayer(svc, 'Genuine Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [3300]);
      const fields = { ...(await payForm(p, inv.id)), method: 'new' };
      const hosted = new URL((await p.web.post(payPath(p), fields)).location ?? '').pathname;
      await p.web.post(hosted, { number: TEST_CARDS.succeeds });
      expect(await streamTypes(`paymentattempt-${fields.attempt_id}`)).to.deep.equal(['PaymentAttemptStarted']);
      const record = await svc.app.payments.findPayment(fields.attempt_id);
      expect(record?.status).to.equal('succeeded');
      const body = JSON.stringify({ id: 'evt_sbx_genuine_pay', type: 'payment.updated', payment: record });
      const res = await deliverNotification(svc, body);
      expect(res.status).to.equal(200);
      expect(await answer(res)).to.deep.equal({ received: true, status: 'succeeded', matched: true });
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_remaining: 0 });
      const types = await streamTypes(`paymentattempt-${fields.attempt_id}`);
      expect(types).to.deep.equal(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
      expect((await deliverNotification(svc, body)).status).to.equal(200);
      expect(await streamTypes(`paymentattempt-${fields.attempt_id}`)).to.deep.equal(types);
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items.map((x) => [x.method, x.amount])).to.deep.equal([['card', 3300]]);
    });

    it('a setup: the notification mirroring the provider\'s record saves the method once; its replay appends nothing', async () => {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Genuine Ltd', email: 'ap@genuine.example', currency: 'GBP' }, o.token);
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: c.body.id, return_url: 'https://app.example/back' }, o.token);
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect');
      const page = new URL(next.url).pathname;
      await new WebClient(svc.url).post(page, { number: TEST_CARDS.succeeds });
      const record = await svc.app.payments.getSetup(page.split('/').pop() ?? '');
      expect(record?.status).to.equal('succeeded');
      const body = JSON.stringify({ id: 'evt_sbx_genuine_setup', type: 'setup.updated', setup: record });
      const res = await deliverNotification(svc, body);
      expect(res.status).to.equal(200);
      expect(await answer(res)).to.deep.equal({ received: true, status: 'succeeded', matched: true });
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: c.body.id }, o.token);
      expect(list.body.items.map((m) => m.last4)).to.deep.equal(['4242']);
      const types = await streamTypes(`paymentprofile-${c.body.id}`);
      expect((await deliverNotification(svc, body)).status).to.equal(200);
      expect(await streamTypes(`paymentprofile-${c.body.id}`)).to.deep.equal(types);
    });
  });
}

describe('SANDBOX_WEBHOOK_SECRET at start', () => {
  it('in development without a secret of its own the service warns at start, naming SANDBOX_WEBHOOK_SECRET', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const db = await openTestDb('pglite');
    const config = loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', OBJECT_STORE: `file:${mkdtempSync(path.join(os.tmpdir(), 'core-objects-'))}` });
    // With a secret of its own it would not warn: config says so (test/unit/config.test.ts).
    expect(config.sandboxWebhookSecretIsDefault).to.equal(true);
    const app = await createApp(config, { db, logger, projections: false });
    try {
      await app.listen(0, '127.0.0.1');
    } finally {
      await app.close();
      await db.close();
    }
    const warnings = lines.filter((l) => l.level === 40 && l.msg.includes('SANDBOX_WEBHOOK_SECRET'));
    expect(warnings).to.have.length(1);
  });
});
