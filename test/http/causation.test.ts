// Every surface calls operations through invoke, and the event log says why each event exists: after a scenario that runs every
// kind of caller (the API, the payment page, the payment webhook, the collection, overdue and usage invoice workers), no event
// lacks a correlation id; each event a worker appends names the event that caused it (causation id) or shares its pass's
// correlation id, and each event the provider's notification causes carries the notification's id as its correlation id.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { payForm, payPath, saveCard, signedInPayer } from '../support/payer.ts';
import { longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';
import { settle } from '../support/settle.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { WebClient } from '../support/web.ts';
import type { EventMetadata } from '../../src/eventstore/port.ts';
import { sessionAuth } from '../../src/queries/identity/identity.ts';
import { systemAuth } from '../../src/context.ts';
import { DomainError } from '../../src/domain/errors.ts';

interface Logged {
  id: string;
  type: string;
  stream_id: string;
  data: Record<string, unknown>;
  metadata: Partial<EventMetadata>;
}

for (const backend of backends()) {
  describe(`the event log says what caused each event (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { selfUrl: true });
      svc.clock.set('2026-02-27T12:00:00Z');
    });
    after(async () => svc?.close());

    // The whole log, as the event store reads it (the same on every backend).
    const log = async (): Promise<Logged[]> => {
      const out: Logged[] = [];
      for (let page = await svc.app.store.readAll({ from: 'start', maxCount: 1000 }); page.length; ) {
        out.push(...page.map((e) => ({ id: e.id, type: e.type, stream_id: e.streamId, data: e.data as Record<string, unknown>, metadata: e.metadata })));
        const last = page.at(-1);
        page = last ? await svc.app.store.readAll({ from: { after: last.position }, maxCount: 1000 }) : [];
      }
      return out;
    };

    it('internal operations have no URL and no place in the OpenAPI documents or /docs, and only the system calls a system operation', async () => {
      const internal = svc.app.registry.list('internal');
      expect(internal.map((op) => op.id)).to.include.members(['billing.invoices.collect', 'billing.payment-notifications.apply', 'billing.payment-attempts.pay']);
      const core = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
      const integrations = (await (await fetch(`${svc.url}/api/2026-01/openapi.json`)).json()) as { paths: Record<string, unknown> };
      const docs = await (await fetch(`${svc.url}/docs/guide`)).text();
      const owner = await svc.signUp();
      for (const op of internal) {
        for (const prefix of ['/api/v1/', '/api/2026-01/']) {
          const res = await fetch(`${svc.url}${prefix}${op.id}`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: '{}' });
          expect([op.id, prefix, res.status, ((await res.json()) as { code: string }).code]).to.deep.equal([op.id, prefix, 404, 'unknown_operation']);
        }
        expect(Object.keys(core.paths).some((p) => p.endsWith(`/${op.id}`)), op.id).to.equal(false);
        expect(Object.keys(integrations.paths).some((p) => p.endsWith(`/${op.id}`)), op.id).to.equal(false);
        expect(docs, op.id).to.not.contain(op.id);
      }
      // In process, a system operation refuses a signed-in person and an anonymous caller before its handler runs.
      const auth = await sessionAuth(svc.app.knex, owner.token, svc.clock.now());
      if (auth?.kind !== 'session') throw new Error('no session');
      const input = { customer_id: '00000000-0000-4000-8000-000000000000' };
      for (const caller of [auth, { kind: 'anonymous' as const }]) {
        const refused = await svc.app.invoke(ops['billing.customer-access.review'], input, { auth: caller }).then(() => null, (err: unknown) => err);
        expect(refused instanceof DomainError ? [refused.status, refused.code] : refused).to.deep.equal([403, 'forbidden']);
      }
      // The system itself gets through (a customer nobody owes anything: nothing changes).
      expect((await svc.app.invoke(ops['billing.customer-access.review'], input, { auth: systemAuth('overdue-worker', owner.orgId) })).body).to.deep.equal({ changed: null });
    });

    it('after the API, the payment page, the webhook and every billing worker: each event has a correlation id, and each system event its cause', async () => {
      const staff = await billingStaff(svc);
      // Automatic collection: a saved card (the provider's notification saves it), an open invoice, a collection pass.
      const auto = await signedInPayer(svc, 'Auto');
      await saveCard(svc, auto, TEST_CARDS.succeeds);
      const collected = await openInvoice(svc, staff, auto.customerId, [4200]);
      await settle(svc);
      expect((await svc.app.workers.runOnce()).collection).to.deep.include({ charged: [collected.id] });
      // The payment page with a new card: the provider's page, then its notification records the payment.
      const payer = await signedInPayer(svc, 'Payer');
      const paid = await openInvoice(svc, staff, payer.customerId, [1500]);
      await settle(svc);
      const sent = await payer.web.post(payPath(payer), { ...(await payForm(payer, paid.id)), method: 'new' });
      expect(sent.status).to.equal(303);
      const hosted = sent.headers.get('location') ?? '';
      const back = await new WebClient(svc.url).post(new URL(hosted).pathname, { number: TEST_CARDS.succeeds });
      expect(back.status).to.equal(303);
      expect((await svc.call(ops['billing.invoices.get'], paid.id, payer.token)).body.status).to.equal('paid');
      // Usage of February, invoiced by the worker once the month has ended.
      const platform = await longPlatformStaff(svc);
      const seller = await sellerWithSubscription(svc, { platform });
      await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 });
      const buyer = (await svc.signUp()).orgId;
      expect((await svc.call(ops['billing.usage.insert'], { orders: [order('C-1', seller.orgId, buyer, 12000, '2026-02-10T10:00:00Z')] }, staff)).status).to.equal(200);
      // An invoice left unpaid: past its grace period the overdue worker suspends access.
      const late = await signedInPayer(svc, 'Late');
      await openInvoice(svc, staff, late.customerId, [900]);
      svc.clock.set('2026-05-01T00:05:00Z');
      await settle(svc);
      const pass = await svc.app.workers.runOnce();
      expect(pass['usage-invoices']).to.have.nested.property('generated.length', 1);
      expect(pass.overdue).to.have.nested.property('suspended.length').that.is.greaterThan(0);
      await settle(svc);

      const events = await log();
      const ids = new Set(events.map((e) => e.id));
      // No event without a correlation id, whoever appended it.
      expect(events.filter((e) => !e.metadata.correlation_id).map((e) => `${e.type} by ${JSON.stringify(e.metadata.actor)}`)).to.deep.equal([]);

      const by = (job: string) => events.filter((e) => e.metadata.actor?.type === 'system' && e.metadata.actor.id === job);
      // Collection: caused by the invoice's last event before the pass (in the log), in the invoice's correlation.
      const collection = by('collection-worker');
      expect(collection.map((e) => e.type)).to.include.members(['ChargeAttemptStarted', 'PaymentRecorded', 'ChargeSucceeded']);
      for (const e of collection) {
        expect(e.metadata.causation_id, e.type).to.be.a('string');
        expect(ids.has(String(e.metadata.causation_id)), `${e.type}'s cause is in the log`).to.equal(true);
        const cause = events.find((c) => c.id === e.metadata.causation_id);
        expect(cause?.stream_id).to.equal(`invoice-${collected.id}`);
        expect(e.metadata.correlation_id).to.equal(cause?.metadata.correlation_id);
      }
      // Overdue: caused by the last event of the debt (the oldest unpaid invoice).
      const overdue = by('overdue-worker');
      expect(overdue.map((e) => e.type)).to.include('AccessSuspended');
      for (const e of overdue) expect(events.find((c) => c.id === e.metadata.causation_id)?.stream_id, e.type).to.match(/^invoice-/);
      // Usage invoices: a month's end causes them, not an event; the events of one pass share its correlation id.
      const usage = by('usage-invoices-worker');
      expect(usage.map((e) => e.type)).to.include('InvoiceDrafted');
      expect(new Set(usage.map((e) => e.metadata.correlation_id)).size).to.equal(1);
      expect(usage.every((e) => e.metadata.correlation_id !== e.metadata.request_id)).to.equal(true);
      // The provider: every event its notification caused is correlated by the notification's id, which the events also record.
      const provider = by('payment-provider');
      expect(provider.map((e) => e.type)).to.include.members(['PaymentMethodSetupSucceeded', 'PaymentRecorded', 'PaymentAttemptSucceeded']);
      for (const e of provider.filter((x) => typeof x.data.notification_id === 'string')) expect(e.metadata.correlation_id, e.type).to.equal(e.data.notification_id);
      const notified = new Set(provider.filter((x) => typeof x.data.notification_id === 'string').map((x) => x.metadata.correlation_id));
      for (const e of provider) expect(notified.has(e.metadata.correlation_id ?? null), `${e.type} is correlated with a notification`).to.equal(true);
    });
  });
}
