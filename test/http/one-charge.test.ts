// One charge per payment (issue 26, section 1): at most one charge attempt per invoice is in flight, whoever starts it (the payment
// page, automatic collection), decided on the invoice's stream; the others are told a payment is in progress and charge nothing.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { settle } from '../support/settle.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { type Payer, payForm, payPath, providerCharges, saveCard, signedInPayer } from '../support/payer.ts';
import type { PageReply } from '../support/web.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { CHARGE_ATTEMPT_TTL_MS } from '../../src/domain/billing/charge-attempt.ts';
import { collectionWorker } from '../../src/workers/billing/collection.ts';
import { holdInvoiceForCharge } from '../../src/commands/billing/charge-attempts.ts';
import { IdSource } from '../../src/ids.ts';
import { randomUUID } from 'node:crypto';

const code = (page: PageReply) => /data-code="([a-z_]+)"/.exec(page.html)?.[1] ?? null;

for (const backend of backends()) {
  describe(`one charge per payment (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    const succeeded = async (invoiceId: string) => (await providerCharges(svc, invoiceId)).filter((c) => c.status === 'succeeded');
    const payments = async (invoiceId: string) => (await svc.call(ops['billing.payments.list'], { invoice_id: invoiceId }, staff)).body.items.map((x) => [x.method, x.amount]);
    const invoiceLog = async (invoiceId: string) =>
      (await svc.app.knex('es_events').where({ stream_id: `invoice-${invoiceId}` }).orderBy('revision').select('type', 'data')) as { type: string; data: Record<string, unknown> }[];
    const attempts = async (invoiceId: string) =>
      (await invoiceLog(invoiceId)).filter((e) => e.type.startsWith('ChargeAttempt')).map((e) => (e.type === 'ChargeAttemptStarted' ? ['started', e.data.started_by] : ['ended', e.data.outcome, e.data.code]));
    const collectionPass = async () => {
      await settle(svc);
      const res = await collectionWorker.runOnce(svc.app);
      await settle(svc);
      return res;
    };
    // Ten loads of the payment page (ten forms, ten attempt ids), or the same form `n` times.
    const loads = (p: Payer, invoiceId: string, n = 10) => Promise.all(Array.from({ length: n }, () => payForm(p, invoiceId)));
    const hostedPage = (sent: PageReply) => new URL(sent.location ?? '').pathname;

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('ten loads of the payment page sent at once with the saved card: one charge at the provider, one payment; the others are refused and charge nothing', async () => {
      const p = await signedInPayer(svc, 'Ten Tabs Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [4200]);
      const forms = await loads(p, inv.id);
      const answers = await Promise.all(forms.map((f) => p.web.post(payPath(p), { ...f, method: methodId })));
      expect(await succeeded(inv.id)).to.have.length(1);
      expect(await providerCharges(svc, inv.id)).to.have.length(1);
      expect(await payments(inv.id)).to.deep.equal([['card', 4200]]);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_paid: 4200, amount_remaining: 0 });
      const paid = answers.filter((a) => a.status === 303);
      expect(paid).to.have.length(1);
      expect((await p.web.follow(paid[0] as PageReply)).html).to.contain('Payment received');
      // The others came while the charge was in flight (payment in progress) or once it had paid the invoice (nothing to pay).
      const refused = answers.filter((a) => a.status !== 303);
      expect(refused.map((a) => a.status)).to.deep.equal(Array(9).fill(409));
      for (const a of refused) expect(code(a)).to.be.oneOf(['payment_in_progress', 'invoice_not_payable']);
      expect(await attempts(inv.id)).to.deep.equal([['started', 'payment_page'], ['ended', 'succeeded', null]]);
    });

    it('ten forms sent at once while the first waits on the provider\'s page: nine are told a payment is in progress, the payer pays once', async () => {
      const p = await signedInPayer(svc, 'Hosted Page Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [990]);
      const answers = await Promise.all((await loads(p, inv.id)).map((f) => p.web.post(payPath(p), { ...f, method: 'new' })));
      const sent = answers.filter((a) => a.status === 303);
      expect(sent).to.have.length(1);
      const refused = answers.filter((a) => a.status === 409);
      expect(refused.map(code)).to.deep.equal(Array(9).fill('payment_in_progress'));
      // The refusal links to the payment in flight.
      const attemptId = /\/attempts\/([0-9a-f-]{36})"/.exec(refused[0]?.html ?? '')?.[1];
      expect((await svc.app.knex('sandbox_provider_payments').where({ idempotency_key: attemptId ?? '' }).first('id'))?.id).to.equal(hostedPage(sent[0] as PageReply).split('/').pop());
      expect(await svc.app.knex('sandbox_provider_payments').whereRaw(`doc->'payment'->'owner'->>'invoice_id' = ?`, [inv.id]).count({ n: '*' }).then((r) => Number(r[0]?.n))).to.equal(1);
      const result = await p.web.follow(await p.web.post(hostedPage(sent[0] as PageReply), { number: TEST_CARDS.succeeds }));
      expect(result.html).to.contain('Payment received');
      expect(await succeeded(inv.id)).to.have.length(1);
      expect(await payments(inv.id)).to.deep.equal([['card', 990]]);
    });

    it('the same form sent ten times at once (double clicks) is one attempt and one charge', async () => {
      const p = await signedInPayer(svc, 'Double Click Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [1234]);
      const form = { ...(await payForm(p, inv.id)), method: methodId };
      const answers = await Promise.all(Array.from({ length: 10 }, () => p.web.post(payPath(p), form)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(303));
      expect(await succeeded(inv.id)).to.have.length(1);
      expect(await payments(inv.id)).to.deep.equal([['card', 1234]]);
      expect(await attempts(inv.id)).to.deep.equal([['started', 'payment_page'], ['ended', 'succeeded', null]]);
    });

    it('automatic collection charges nothing for an invoice whose page payment is in flight; the page payment pays it once', async () => {
      const p = await signedInPayer(svc, 'Collected Garage');
      await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [5000]);
      const sent = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
      expect(sent.status).to.equal(303);
      const pass = await collectionPass();
      expect(pass.in_progress).to.include(inv.id);
      expect(pass.charged).to.not.include(inv.id);
      expect(await providerCharges(svc, inv.id)).to.deep.equal([]);
      expect(await svc.app.knex('es_events').where({ stream_id: `collection-${inv.id}` }).count({ n: '*' }).then((r) => Number(r[0]?.n))).to.equal(0);
      await p.web.follow(await p.web.post(hostedPage(sent), { number: TEST_CARDS.succeeds }));
      await collectionPass();
      expect(await succeeded(inv.id)).to.have.length(1);
      expect(await payments(inv.id)).to.deep.equal([['card', 5000]]);
      expect(await attempts(inv.id)).to.deep.equal([['started', 'payment_page'], ['ended', 'succeeded', null]]);
    });

    it('the payment page charges nothing while automatic collection\'s charge is in flight; the collection pass that continues it charges once', async () => {
      const p = await signedInPayer(svc, 'Worker First Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [6100]);
      // A collection pass holds the invoice and stops before the provider answers (as it would mid-charge, or after a crash).
      const ctx = { store: svc.app.store, ids: IdSource.random(svc.clock.now()), now: svc.clock.now(), metadata: { org_id: p.orgId, actor: { type: 'system' as const, id: 'collection-worker' }, request_id: null, correlation_id: null, causation_id: null } };
      await holdInvoiceForCharge(ctx, inv.id, { attempt_id: randomUUID(), provider_key: inv.id, started_by: 'automatic_collection' }, { orgId: p.orgId, reason: 'automatic collection' });
      const refused = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: methodId });
      expect(refused.status).to.equal(409);
      expect(code(refused)).to.equal('payment_in_progress');
      expect(refused.html).to.contain('Automatic collection');
      expect(await providerCharges(svc, inv.id)).to.deep.equal([]);
      expect(await svc.app.knex('sandbox_provider_payments').whereRaw(`doc->'payment'->'owner'->>'invoice_id' = ?`, [inv.id]).count({ n: '*' }).then((r) => Number(r[0]?.n))).to.equal(0);
      const pass = await collectionPass();
      expect(pass.charged).to.include(inv.id);
      expect((await succeeded(inv.id)).map((c) => [c.key, c.amount])).to.deep.equal([[inv.id, 6100]]);
      expect(await payments(inv.id)).to.deep.equal([['card', 6100]]);
      expect(await attempts(inv.id)).to.deep.equal([['started', 'automatic_collection'], ['ended', 'succeeded', null]]);
      expect((await p.web.get(payPath(p))).html).to.contain('Nothing to pay');
    });

    it('automatic collection and five payment forms at the same moment: one charge, one payment', async () => {
      const p = await signedInPayer(svc, 'Photo Finish Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [7300]);
      const forms = await loads(p, inv.id, 5);
      await settle(svc);
      await Promise.all([collectionWorker.runOnce(svc.app), ...forms.map((f) => p.web.post(payPath(p), { ...f, method: methodId }))]);
      await settle(svc);
      expect(await succeeded(inv.id)).to.have.length(1);
      expect((await payments(inv.id)).map(([, amount]) => amount)).to.deep.equal([7300]);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, p.token)).body).to.include({ status: 'paid', amount_paid: 7300 });
    });

    it('an attempt left open past 15 minutes no longer blocks: the next payment starts, and the old attempt is recorded as abandoned', async () => {
      const p = await signedInPayer(svc, 'Wandered Off Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [2500]);
      // The payer opens the provider's page and never comes back.
      expect((await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' })).status).to.equal(303);
      const moved = CHARGE_ATTEMPT_TTL_MS;
      try {
        svc.clock.advance(moved - 1000);
        const blocked = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
        expect(code(blocked)).to.equal('payment_in_progress');
        svc.clock.advance(1000);
        const next = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
        expect(next.status).to.equal(303);
        expect(await attempts(inv.id)).to.deep.equal([['started', 'payment_page'], ['ended', 'abandoned', 'expired'], ['started', 'payment_page']]);
        await p.web.follow(await p.web.post(hostedPage(next), { number: TEST_CARDS.succeeds }));
        expect(await succeeded(inv.id)).to.have.length(1);
        expect(await payments(inv.id)).to.deep.equal([['card', 2500]]);
      } finally {
        svc.clock.advance(-moved);
      }
    });

    it('automatic collection waits for a page attempt in flight and charges once it has expired', async () => {
      const p = await signedInPayer(svc, 'Patient Worker Garage');
      await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [3100]);
      expect((await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' })).status).to.equal(303);
      const moved = CHARGE_ATTEMPT_TTL_MS;
      try {
        svc.clock.advance(moved - 60_000);
        expect((await collectionPass()).in_progress).to.include(inv.id);
        expect(await providerCharges(svc, inv.id)).to.deep.equal([]);
        svc.clock.advance(60_000);
        expect((await collectionPass()).charged).to.include(inv.id);
        expect((await succeeded(inv.id)).map((c) => c.key)).to.deep.equal([inv.id]);
        expect(await payments(inv.id)).to.deep.equal([['card', 3100]]);
        expect(await attempts(inv.id)).to.deep.equal([['started', 'payment_page'], ['ended', 'abandoned', 'expired'], ['started', 'automatic_collection'], ['ended', 'succeeded', null]]);
      } finally {
        svc.clock.advance(-moved);
      }
    });
  });

  describe(`one charge per payment when the provider's notification is lost (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    // The provider cannot reach the service: only asking it (the result page, or the next start) learns an outcome.
    before(async () => {
      svc = await startService(backend, { env: { BASE_URL: 'http://127.0.0.1:9' } });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    it('a page attempt the provider has finished does not block the next start: its outcome is applied first (no second charge)', async () => {
      const p = await signedInPayer(svc, 'Silent Provider Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [4400]);
      expect((await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: methodId })).status).to.equal(303);
      const types = async () => (await svc.app.knex('es_events').where({ stream_id: `invoice-${inv.id}` }).orderBy('revision').pluck('type')).filter((t: string) => t.startsWith('ChargeAttempt'));
      // Charged, but the notification never arrived: the attempt is still in flight on the invoice.
      expect(await types()).to.deep.equal(['ChargeAttemptStarted']);
      const second = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: methodId });
      expect(second.status).to.equal(409);
      expect(code(second)).to.equal('invoice_not_payable');
      expect(await types()).to.deep.equal(['ChargeAttemptStarted', 'ChargeAttemptEnded']);
      expect((await providerCharges(svc, inv.id)).filter((c) => c.status === 'succeeded')).to.have.length(1);
      // Staff read another caller's write: the list shows it once the read model has applied it (it failed once under load).
      await settle(svc);
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items.map((x) => x.amount)).to.deep.equal([4400]);
    });

    it('a declined page attempt whose notification was lost: the next payment starts at once', async () => {
      const p = await signedInPayer(svc, 'Declined Silent Garage');
      const methodId = await saveCard(svc, p, TEST_CARDS.chargeDeclined);
      const inv = await openInvoice(svc, staff, p.customerId, [1800]);
      expect((await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: methodId })).status).to.equal(303);
      const next = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
      expect(next.status).to.equal(303);
      const log = (await svc.app.knex('es_events').where({ stream_id: `invoice-${inv.id}` }).orderBy('revision').select('type', 'data')) as { type: string; data: { outcome?: string; code?: string } }[];
      expect(log.filter((e) => e.type.startsWith('ChargeAttempt')).map((e) => [e.type, e.data.outcome ?? null])).to.deep.equal([
        ['ChargeAttemptStarted', null], ['ChargeAttemptEnded', 'failed'], ['ChargeAttemptStarted', null],
      ]);
    });
  });
}
