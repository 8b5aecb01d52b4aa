// Refunds due and reconciliation (issue 26, section 2): every charge taken but not (fully) applied is listed for billing staff, who
// resolve it once (a refund through the provider, or applied to another open invoice of the customer); a reconciliation pass records a
// charge only the provider knew, so it lands in the same list.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { settle } from '../support/settle.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { payForm, payPath, saveCard, signedInPayer } from '../support/payer.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { autoCollectedCustomers } from '../../src/queries/billing/payment-methods.ts';
import { collectionWorker } from '../../src/workers/billing/collection.ts';
import { RECONCILIATION_SETTLE_MS, reconciliationWorker } from '../../src/workers/billing/reconciliation.ts';
import { isoDate } from '../../src/clock.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { systemAuth } from '../../src/context.ts';
import { charges } from '../../src/commands/billing/handlers.ts';
import { systemContext } from '../support/system.ts';

for (const backend of backends()) {
  describe(`refunds due and reconciliation (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;

    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    const dueList = async (customerId?: string) => {
      const r = await svc.call(ops['billing.refunds-due.list'], customerId ? { customer_id: customerId } : {}, staff);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.items;
    };
    const refunds = async (chargeRef: string) => (await svc.app.knex('sandbox_provider_refunds').where({ charge_ref: chargeRef }).select('doc')) as { doc: { amount: number; status: string } }[];
    const streamEvents = async (stream: string) => (await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').pluck('type')) as string[];
    const methodOf = async (customerId: string) => {
      const m = (await autoCollectedCustomers(svc.app.knex)).find((c) => c.customer_id === customerId)?.method;
      if (!m) throw new Error('expected the customer to be auto-collected');
      return m;
    };
    const today = () => isoDate(svc.clock.now());

    it('the console resolves a row: a refund needs a reason and the box ticked, then refunds once; another row is applied to an open invoice', async () => {
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const owe = async (amount: number) => {
        const inv = await openInvoice(svc, staff, org.customerId, [amount]);
        await settle(svc);
        const charge = await svc.app.payments.charge({ method_ref: (await methodOf(org.customerId)).provider_ref, amount, currency: 'GBP', idempotency_key: inv.id });
        if (charge.status !== 'succeeded') throw new Error('expected a charge');
        // All but 1.00 paid by bank transfer meanwhile: once collection records the charge, the rest of it is due back.
        expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, amount - 100, { received_on: today() }), staff)).status).to.equal(200);
        return charge.charge_ref;
      };
      const [refundRef, applyRef] = [await owe(700), await owe(300)];
      await settle(svc);
      await collectionWorker.runOnce(svc.app);
      await settle(svc);
      const open = await openInvoice(svc, staff, org.customerId, [5000]);
      await settle(svc);
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
      const page = await web.get(`/console/refunds-due?customer_id=${org.customerId}`);
      expect(page.status).to.equal(200);
      expect(page.html).to.contain(`id="charge-${refundRef}"`).and.contain(`id="charge-${applyRef}"`).and.contain('GBP 6.00');
      const formOf = (html: string, action: string, ref: string) => {
        const forms = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].filter((m) => m[1] === action && (m[2] ?? '').includes(`value="${ref}"`));
        return hiddenFields(forms[0]?.[0] ?? '', action);
      };

      // No reason, box not ticked: the page says so and nothing moves.
      const bare = await web.post('/console/refunds-due/refund', formOf(page.html, '/console/refunds-due/refund', refundRef));
      expect(bare.status).to.equal(400);
      expect(bare.html).to.contain('give a reason and confirm');
      expect(await refunds(refundRef)).to.deep.equal([]);
      // With both, the same form sent twice refunds once and the row leaves the list.
      const fields = { ...formOf(page.html, '/console/refunds-due/refund', refundRef), reason: 'customer paid by transfer', confirm: 'yes' };
      for (let i = 0; i < 2; i++) {
        const done = await web.post('/console/refunds-due/refund', fields);
        expect([done.status, done.location]).to.deep.equal([303, '/console/refunds-due?done=refunded']);
        expect((await web.get(done.location ?? '')).html).to.contain('Refund sent through the payment provider');
      }
      expect((await refunds(refundRef)).map((r) => r.doc.amount)).to.deep.equal([600]);

      // The other is applied to the open invoice chosen in the form.
      const applyFields = { ...formOf(page.html, '/console/refunds-due/apply', applyRef), invoice_id: open.id, reason: 'keep it on the next invoice', confirm: 'yes' };
      const applied = await web.post('/console/refunds-due/apply', applyFields);
      expect([applied.status, applied.location]).to.deep.equal([303, '/console/refunds-due?done=charge_applied']);
      expect((await web.get(applied.location ?? '')).html).to.contain('Charge applied to the invoice');
      await settle(svc);
      expect((await svc.call(ops['billing.invoices.get'], open.id, staff)).body.amount_remaining).to.equal(4800);
      expect((await dueList(org.customerId)).map((r) => r.charge_ref)).to.not.include.members([refundRef, applyRef]);
      expect((await web.get(`/console/refunds-due?customer_id=${org.customerId}`)).html).to.contain('Nothing is due back.');
    });

    it('automatic collection charged more than the invoice still owed: the rest is listed as due back; ten refunds at once refund it once and it leaves the list', async () => {
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [4200]);
      await settle(svc);
      // A pass charged the whole invoice and stopped; meanwhile the customer paid part of it by bank transfer.
      const first = await svc.app.payments.charge({ method_ref: (await methodOf(org.customerId)).provider_ref, amount: 4200, currency: 'GBP', idempotency_key: inv.id });
      if (first.status !== 'succeeded') throw new Error('expected a charge');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1000, { received_on: today() }), staff)).status).to.equal(200);
      await settle(svc);
      await collectionWorker.runOnce(svc.app);
      await settle(svc);

      const rows = await dueList(org.customerId);
      expect(rows).to.have.length(1);
      const row = rows[0];
      expect(row).to.deep.include({
        charge_ref: first.charge_ref, amount_charged: 4200, amount_applied: 3200, amount_due: 1000, currency: 'GBP', status: 'due', resolution: null, provider: null,
        customer: { id: org.customerId, name: `Customer of ${org.orgId.slice(0, 8)}` }, invoice: { id: inv.id, number: inv.number },
      });
      expect(row?.why?.code).to.equal('partly_applied');
      expect(row?.why?.text).to.match(/more than the invoice still owed/);
      expect(row?.since).to.equal(svc.clock.now().toISOString());
      // Staff see it across customers too; organization users do not see the list.
      expect((await dueList()).map((r) => r.charge_ref)).to.include(first.charge_ref);
      expect((await svc.call(ops['billing.refunds-due.list'], {}, org.token)).status).to.equal(403);
      // The Needs attention list shows it too, until it is resolved.
      const attention = async (kind: 'refund_due' | 'unrecorded_provider_charge') => (await svc.call(ops['billing.attention.list'], { kind, limit: 200 }, staff)).body.items;
      expect((await attention('refund_due')).find((i) => i.key === `refund_due:${first.charge_ref}`)).to.deep.include({
        invoice_id: inv.id, href: `/console/refunds-due#charge-${first.charge_ref}`, amount: { amount: 1000, currency: 'GBP' }, customer: { id: org.customerId, name: `Customer of ${org.orgId.slice(0, 8)}` },
      });

      // A refund needs a reason; an unknown charge is 404. Neither writes anything.
      expect((await svc.send('billing.refunds-due.refund', { charge_ref: first.charge_ref }, staff)).body.code).to.equal('invalid_request');
      const unknown = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: 'ch_sbx_nope', reason: 'test' }, staff);
      expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'charge_not_found']);
      expect(await streamEvents(`charge-${first.charge_ref}`)).to.deep.equal([]);

      // Ten tabs refund it at once: one refund at the provider, one 200, the others are told it is resolved or being resolved.
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => svc.call(ops['billing.refunds-due.refund'], { charge_ref: first.charge_ref, reason: `tab ${i}: customer asked for it back` }, staff)));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok, JSON.stringify(answers.map((a) => a.body))).to.have.length(1);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).to.equal(409);
        expect(a.body.code).to.be.oneOf(['charge_not_due', 'charge_resolution_in_progress']);
      }
      expect((await refunds(first.charge_ref)).map((r) => [r.doc.status, r.doc.amount])).to.deep.equal([['succeeded', 1000]]);
      expect(ok[0]?.body).to.deep.include({ status: 'refunded', amount_due: 0, why: null });
      expect(ok[0]?.body.resolution).to.include({ kind: 'refund', amount: 1000, invoice_id: null });
      expect(ok[0]?.body.resolution?.refund_ref).to.match(/^re_sbx_/);
      expect(await streamEvents(`charge-${first.charge_ref}`)).to.deep.equal(['ChargeResolutionStarted', 'ChargeRefunded']);
      expect(await dueList(org.customerId)).to.deep.equal([]);
      expect((await attention('refund_due')).map((i) => i.key)).to.not.include(`refund_due:${first.charge_ref}`);
      // A retry of the answered request (same Idempotency-Key) answers the same and refunds nothing more.
      const keyed = { 'idempotency-key': `refund-again-${first.charge_ref}` };
      const again = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: first.charge_ref, reason: 'again' }, staff, keyed);
      expect([again.status, again.body.code]).to.deep.equal([409, 'charge_not_due']);
      expect(await refunds(first.charge_ref)).to.have.length(1);
      // The invoice is untouched: it was paid by the transfer and the applied part of the charge.
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_paid: 4200 });
    });

    it('a page payment that lands after the invoice was paid by other means is due back in full; staff apply it to another open invoice of the customer', async () => {
      const p = await signedInPayer(svc, 'Late Page Garage');
      const inv = await openInvoice(svc, staff, p.customerId, [990]);
      const next = await openInvoice(svc, staff, p.customerId, [5000]);
      const sent = await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: 'new' });
      expect(sent.status).to.equal(303);
      // While the payer is on the provider's page, the invoice is paid by bank transfer.
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 990, { received_on: today() }), staff)).status).to.equal(200);
      await p.web.follow(await p.web.post(new URL(sent.location ?? '').pathname, { number: TEST_CARDS.succeeds }));
      await settle(svc);
      const [row] = await dueList(p.customerId);
      expect(row).to.deep.include({ amount_charged: 990, amount_applied: 0, amount_due: 990, status: 'due', invoice: { id: inv.id, number: inv.number } });
      expect(row?.why?.code).to.equal('not_applied');
      const chargeRef = row?.charge_ref ?? '';

      // Another customer's invoice, a paid invoice, or one owing less than the amount due are refused, and nothing is written.
      const other = await billedOrg(svc);
      const theirs = await openInvoice(svc, staff, other.customerId, [9000]);
      const small = await openInvoice(svc, staff, p.customerId, [500]);
      const apply = (invoiceId: string) => svc.call(ops['billing.refunds-due.apply'], { charge_ref: chargeRef, invoice_id: invoiceId, reason: 'use it for the next invoice' }, staff);
      for (const [invoiceId, status, code] of [[theirs.id, 409, 'invoice_customer_mismatch'], [inv.id, 409, 'invoice_not_payable'], [small.id, 409, 'amount_exceeds_remaining']] as const) {
        const refused = await apply(invoiceId);
        expect([refused.status, refused.body.code], invoiceId).to.deep.equal([status, code]);
      }
      expect(await streamEvents(`charge-${chargeRef}`)).to.deep.equal([]);
      expect(await dueList(p.customerId)).to.have.length(1);

      const applied = await apply(next.id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
      expect(applied.body).to.deep.include({ status: 'applied', amount_due: 0 });
      expect(applied.body.resolution).to.include({ kind: 'apply', amount: 990, invoice_id: next.id, refund_ref: null, reason: 'use it for the next invoice' });
      expect(await dueList(p.customerId)).to.deep.equal([]);
      const got = await svc.call(ops['billing.invoices.get'], next.id, staff);
      expect(got.body).to.include({ status: 'open', amount_paid: 990, amount_remaining: 4010 });
      const pays = await svc.call(ops['billing.payments.list'], { invoice_id: next.id }, staff);
      expect(pays.body.items.map((x) => [x.id, x.amount, x.method, x.reference])).to.deep.equal([[applied.body.resolution?.payment_id, 990, 'other', chargeRef]]);
      // Resolved once: a refund of it now refunds nothing.
      const late = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: chargeRef, reason: 'two tabs' }, staff);
      expect([late.status, late.body.code]).to.deep.equal([409, 'charge_not_due']);
      expect(await refunds(chargeRef)).to.deep.equal([]);
    });

    it('a charge only the provider knows (a pass that charged, then stopped) is found by reconciliation and listed; a second pass adds nothing; the gauge counts it', async () => {
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [2500]);
      await settle(svc);
      const method = await methodOf(org.customerId);
      // The customer paid by transfer; a collection pass that had started charged anyway and stopped before recording anything.
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 2500, { received_on: today() }), staff)).status).to.equal(200);
      const lost = await svc.app.payments.charge({
        method_ref: method.provider_ref, amount: 2500, currency: 'GBP', idempotency_key: inv.id,
        owner: { invoice_id: inv.id, customer_id: org.customerId, organization_id: org.orgId, attempt_id: null },
      });
      if (lost.status !== 'succeeded') throw new Error('expected a charge');
      // And a charge made by hand at the provider, which names nobody.
      const stray = await svc.app.payments.charge({ method_ref: method.provider_ref, amount: 999, currency: 'GBP', idempotency_key: `by-hand-${inv.id}` });
      if (stray.status !== 'succeeded') throw new Error('expected a charge');
      // The collection worker never visits a paid invoice again: without reconciliation nobody would know.
      await collectionWorker.runOnce(svc.app);
      await settle(svc);
      expect(await dueList(org.customerId)).to.deep.equal([]);
      // A charge younger than the settle window may still be recorded by its holder: not compared yet.
      expect((await reconciliationWorker.runOnce(svc.app)).found).to.deep.equal([]);
      const moved = RECONCILIATION_SETTLE_MS + 60_000;
      svc.clock.advance(moved);
      try {
        const pass = await reconciliationWorker.runOnce(svc.app);
        // Every charge the earlier tests made is known to the service: only these are found.
        expect(pass.found).to.deep.equal([lost.charge_ref, stray.charge_ref]);
        expect(pass.listed).to.be.greaterThan(1);
        await settle(svc);
        const [row] = await dueList(org.customerId);
        expect(row).to.deep.include({
          charge_ref: lost.charge_ref, provider: 'sandbox', amount_charged: 2500, amount_applied: 0, amount_due: 2500, status: 'due',
          customer: { id: org.customerId, name: `Customer of ${org.orgId.slice(0, 8)}` }, invoice: { id: inv.id, number: inv.number },
        });
        const unrecorded = (await svc.call(ops['billing.attention.list'], { kind: 'unrecorded_provider_charge', limit: 200 }, staff)).body.items.map((i) => [i.key, i.amount?.amount]);
        expect(unrecorded).to.deep.include.members([[`unrecorded_provider_charge:${lost.charge_ref}`, 2500], [`unrecorded_provider_charge:${stray.charge_ref}`, 999]]);
        expect(row?.why).to.deep.equal({ code: 'unknown_at_service', text: 'Found at the payment provider by reconciliation: the service never recorded this charge.' });
        // The charge nobody is named for is listed too; it can only be refunded.
        const strayRow = (await dueList()).find((r) => r.charge_ref === stray.charge_ref);
        expect(strayRow).to.deep.include({ customer: null, invoice: null, organization_id: null, amount_due: 999, currency: 'GBP', status: 'due' });
        const nowhere = await svc.call(ops['billing.refunds-due.apply'], { charge_ref: stray.charge_ref, invoice_id: inv.id, reason: 'try' }, staff);
        expect([nowhere.status, nowhere.body.code]).to.deep.equal([409, 'charge_customer_unknown']);
        expect((await svc.call(ops['billing.refunds-due.refund'], { charge_ref: stray.charge_ref, reason: 'not ours to keep' }, staff)).status).to.equal(200);
        // The checkpoint is durable (an event) and a rerun over the same charges records nothing twice.
        const rerun = await reconciliationWorker.runOnce(svc.app);
        expect(rerun.found).to.deep.equal([]);
        expect(await streamEvents(`charge-${lost.charge_ref}`)).to.deep.equal(['ProviderChargeFound']);
        expect(await streamEvents('reconciliation-sandbox')).to.have.length(2);
        // Visible without the console.
        const metrics = await (await fetch(`${svc.url}/metrics`)).text();
        const gauge = Number(/^billing_refunds_due (\d+)$/m.exec(metrics)?.[1]);
        expect(gauge).to.equal((await dueList()).length);
        expect(gauge).to.be.greaterThan(0);
        // Refunded, it leaves the list.
        const refunded = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: lost.charge_ref, reason: 'charged after payment by transfer' }, staff);
        expect(refunded.status, JSON.stringify(refunded.body)).to.equal(200);
        expect((await refunds(lost.charge_ref)).map((r) => r.doc.amount)).to.deep.equal([2500]);
        expect(await dueList(org.customerId)).to.deep.equal([]);
        expect((await reconciliationWorker.runOnce(svc.app)).found).to.deep.equal([]);
      } finally {
        svc.clock.advance(-moved);
      }
    });

    it('a pass that resumes a charge reconciliation had listed: refunded by staff, it applies nothing; not yet resolved, it applies it through the charge and staff cannot refund it too', async () => {
      // After the test above moved its clock there and back: charges made now would be older than its checkpoint.
      const past = 2 * 60_000;
      const moved = RECONCILIATION_SETTLE_MS + 60_000;
      svc.clock.advance(past);
      try {
        // Two invoices each charged by a collection pass that stopped before recording anything (its first attempt's key).
        const stopped = await Promise.all([2500, 1800].map(async (amount) => {
          const org = await billedOrg(svc);
          await saveCard(svc, org, TEST_CARDS.succeeds);
          const inv = await openInvoice(svc, staff, org.customerId, [amount]);
          await settle(svc);
          const charge = await svc.app.payments.charge({
            method_ref: (await methodOf(org.customerId)).provider_ref, amount, currency: 'GBP', idempotency_key: inv.id,
            owner: { invoice_id: inv.id, customer_id: org.customerId, organization_id: org.orgId, attempt_id: null },
          });
          if (charge.status !== 'succeeded') throw new Error('expected a charge');
          return { org, inv, chargeRef: charge.charge_ref };
        }));
        const [refunded, kept] = stopped as [(typeof stopped)[0], (typeof stopped)[0]];
        svc.clock.advance(moved);
        expect((await reconciliationWorker.runOnce(svc.app)).found).to.include.members([refunded.chargeRef, kept.chargeRef]);
        await settle(svc);
        const refund = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: refunded.chargeRef, reason: 'unknown charge: given back' }, staff);
        expect(refund.status, JSON.stringify(refund.body)).to.equal(200);
        // The collection pass comes back: the provider answers each invoice's key with the charge made before.
        await collectionWorker.runOnce(svc.app);
        await settle(svc);
        // Given back by staff: not also a payment of its invoice, which still owes it.
        const stillOwed = await svc.call(ops['billing.invoices.get'], refunded.inv.id, staff);
        expect(stillOwed.body).to.include({ status: 'open', amount_paid: 0, amount_remaining: 2500 });
        expect((await svc.call(ops['billing.payments.list'], { invoice_id: refunded.inv.id }, staff)).body.items).to.deep.equal([]);
        expect((await refunds(refunded.chargeRef)).map((r) => r.doc.amount)).to.deep.equal([2500]);
        expect(await dueList(refunded.org.customerId)).to.deep.equal([]);
        // Not resolved yet: the pass holds it on the charge's stream and applies it to its own invoice; staff can no longer refund it.
        expect((await svc.call(ops['billing.invoices.get'], kept.inv.id, staff)).body).to.include({ status: 'paid', amount_paid: 1800 });
        expect(await streamEvents(`charge-${kept.chargeRef}`)).to.deep.equal(['ProviderChargeFound', 'ChargeResolutionStarted', 'ChargeAppliedToInvoice']);
        expect(await dueList(kept.org.customerId)).to.deep.equal([]);
        const late = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: kept.chargeRef, reason: 'try' }, staff);
        expect([late.status, late.body.code]).to.deep.equal([409, 'charge_not_due']);
        expect(await refunds(kept.chargeRef)).to.deep.equal([]);
      } finally {
        svc.clock.advance(-moved - past);
      }
    });

    it('a refund the provider refuses is 409 refund_failed: the charge stays due and can be resolved again', async () => {
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [1500]);
      await settle(svc);
      const charge = await svc.app.payments.charge({ method_ref: (await methodOf(org.customerId)).provider_ref, amount: 1500, currency: 'GBP', idempotency_key: inv.id });
      if (charge.status !== 'succeeded') throw new Error('expected a charge');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1000, { received_on: today() }), staff)).status).to.equal(200);
      await settle(svc);
      await collectionWorker.runOnce(svc.app);
      await settle(svc);
      expect((await dueList(org.customerId)).map((r) => [r.charge_ref, r.amount_due])).to.deep.equal([[charge.charge_ref, 1000]]);
      // Someone refunded the whole charge at the provider's dashboard: nothing is left there to refund.
      expect((await svc.app.payments.refund({ charge_ref: charge.charge_ref, amount: 1500, currency: 'GBP', idempotency_key: 'dashboard-1', reason: 'by hand' })).status).to.equal('succeeded');
      const refused = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: charge.charge_ref, reason: 'customer asked' }, staff);
      expect([refused.status, refused.body.code]).to.deep.equal([409, 'refund_failed']);
      expect(refused.body.message).to.match(/left to refund/);
      expect(await streamEvents(`charge-${charge.charge_ref}`)).to.deep.equal(['ChargeResolutionStarted', 'ChargeResolutionFailed']);
      expect((await dueList(org.customerId)).map((r) => [r.charge_ref, r.status, r.amount_due])).to.deep.equal([[charge.charge_ref, 'due', 1000]]);
      // Applied elsewhere instead, it leaves the list.
      const next = await openInvoice(svc, staff, org.customerId, [1000]);
      const applied = await svc.call(ops['billing.refunds-due.apply'], { charge_ref: charge.charge_ref, invoice_id: next.id, reason: 'already refunded at the provider by mistake; keep it on account' }, staff);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
      expect((await svc.call(ops['billing.invoices.get'], next.id, staff)).body).to.include({ status: 'paid', amount_paid: 1000 });
      expect(await dueList(org.customerId)).to.deep.equal([]);
    });

    it('five refunds and five applies of one row at once: exactly one resolution moves money', async () => {
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, org.customerId, [2000]);
      await settle(svc);
      const charge = await svc.app.payments.charge({ method_ref: (await methodOf(org.customerId)).provider_ref, amount: 2000, currency: 'GBP', idempotency_key: inv.id });
      if (charge.status !== 'succeeded') throw new Error('expected a charge');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1200, { received_on: today() }), staff)).status).to.equal(200);
      await settle(svc);
      await collectionWorker.runOnce(svc.app);
      await settle(svc);
      const targets = await Promise.all(Array.from({ length: 5 }, () => openInvoice(svc, staff, org.customerId, [5000])));
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => svc.call(ops['billing.refunds-due.refund'], { charge_ref: charge.charge_ref, reason: 'refund tab' }, staff)),
        ...targets.map((t) => svc.call(ops['billing.refunds-due.apply'], { charge_ref: charge.charge_ref, invoice_id: t.id, reason: 'apply tab' }, staff)),
      ]);
      expect(answers.filter((a) => a.status === 200), JSON.stringify(answers.map((a) => a.body))).to.have.length(1);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).to.equal(409);
        expect(a.body.code).to.be.oneOf(['charge_not_due', 'charge_resolution_in_progress']);
      }
      const refunded = (await refunds(charge.charge_ref)).length;
      const applied = (await Promise.all(targets.map(async (t) => (await svc.call(ops['billing.payments.list'], { invoice_id: t.id }, staff)).body.items.length))).reduce((a, b) => a + b, 0);
      // 800 was due back: it went back once, either to the card or onto one invoice, never both.
      expect(refunded + applied).to.equal(1);
      expect(await dueList(org.customerId)).to.deep.equal([]);
    });

    it('pages the list with limit and cursor, oldest first', async () => {
      const before = await dueList();
      const org = await billedOrg(svc);
      await saveCard(svc, org, TEST_CARDS.succeeds);
      const method = await methodOf(org.customerId);
      for (let i = 0; i < 3; i++) {
        const inv = await openInvoice(svc, staff, org.customerId, [100 + i]);
        await settle(svc);
        await svc.app.payments.charge({ method_ref: method.provider_ref, amount: 100 + i, currency: 'GBP', idempotency_key: inv.id });
        expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 50, { received_on: today() }), staff)).status).to.equal(200);
        await settle(svc);
        await collectionWorker.runOnce(svc.app);
        svc.clock.advance(1000);
      }
      await settle(svc);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const r = await svc.call(ops['billing.refunds-due.list'], { limit: 2, ...(cursor ? { cursor } : {}) }, staff);
        expect(r.status).to.equal(200);
        seen.push(...r.body.items.map((x) => x.charge_ref));
        cursor = r.body.pagination?.cursor;
      } while (cursor);
      expect(seen).to.have.length(before.length + 3);
      expect(new Set(seen).size).to.equal(seen.length);
      expect((await dueList(org.customerId)).map((r) => [r.amount_charged, r.amount_due])).to.deep.equal([[100, 50], [101, 50], [102, 50]]);
      expect((await svc.call(ops['billing.refunds-due.list'], { cursor: 'not-a-cursor' }, staff)).body.code).to.equal('invalid_cursor');
    });
  });

  describe(`reconciliation when the provider's notifications are lost (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    before(async () => {
      svc = await startService(backend, { env: { BASE_URL: 'http://127.0.0.1:9' } });
      staff = await billingStaff(svc);
    });
    after(async () => svc?.close());

    // A payer pays `amount` on the payment page; the provider charges, and its notification never reaches the service.
    const paidUnheard = async (name: string, amount: number) => {
      const p = await signedInPayer(svc, name);
      const methodId = await saveCard(svc, p, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, p.customerId, [amount]);
      expect((await p.web.post(payPath(p), { ...(await payForm(p, inv.id)), method: methodId })).status).to.equal(303);
      await settle(svc);
      return { p, inv };
    };

    it('a page payment whose outcome never reached the service is applied from the provider\'s record, not listed as unknown', async () => {
      const { p, inv } = await paidUnheard('Silent Reconciled Garage', 3300);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body.status).to.equal('open');
      const moved = RECONCILIATION_SETTLE_MS + 60_000;
      svc.clock.advance(moved);
      try {
        const pass = await reconciliationWorker.runOnce(svc.app);
        expect(pass.found).to.deep.equal([]);
        expect(pass.listed).to.be.greaterThan(0);
        await settle(svc);
        expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_paid: 3300 });
        expect((await svc.call(ops['billing.refunds-due.list'], { customer_id: p.customerId }, staff)).body.items).to.deep.equal([]);
      } finally {
        svc.clock.advance(-moved);
      }
    });

    it("a page payment's outcome that comes after staff gave its listed charge back is not applied: the invoice still owes it", async () => {
      const { p, inv } = await paidUnheard('Late Outcome Garage', 2700);
      const paid = await svc.app.knex('sandbox_provider_payments').whereRaw(`doc->'payment'->'owner'->>'invoice_id' = ?`, [inv.id]).first('doc');
      const { charge_ref: chargeRef, owner } = (paid?.doc as { payment: { charge_ref: string; owner: { attempt_id: string } } }).payment;
      // Listed for staff as reconciliation lists a charge it cannot match (as when the provider's record of the payment was not
      // final yet when it asked), and given back by them.
      await charges.run(systemContext(svc.app, 'reconciliation'), chargeRef, {
        type: 'RecordProviderCharge',
        data: { charge_ref: chargeRef, provider: 'sandbox', amount: 2700, currency: 'GBP', organization_id: p.orgId, customer_id: p.customerId, invoice_id: inv.id, charged_at: svc.clock.now().toISOString() },
      }, { orgId: p.orgId, reason: 'reconciliation' });
      await settle(svc);
      const refund = await svc.call(ops['billing.refunds-due.refund'], { charge_ref: chargeRef, reason: 'unknown charge: given back' }, staff);
      expect(refund.status, JSON.stringify(refund.body)).to.equal(200);
      // Then the provider's final record is applied (the payer's return to the result page asks for it).
      const { body } = await svc.app.invoke(ops['billing.payment-attempts.resume'], { attempt_id: owner.attempt_id, visible: true }, { auth: systemAuth('payment-provider', p.orgId) });
      expect(body.applied).to.equal(true);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'open', amount_paid: 0, amount_remaining: 2700 });
      expect((await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff)).body.items).to.deep.equal([]);
      expect((await svc.call(ops['billing.refunds-due.list'], { customer_id: p.customerId }, staff)).body.items).to.deep.equal([]);
      const refunds = (await svc.app.knex('sandbox_provider_refunds').where({ charge_ref: chargeRef }).select('doc')) as { doc: { amount: number } }[];
      expect(refunds.map((r) => r.doc.amount)).to.deep.equal([2700]);
    });
  });
}
