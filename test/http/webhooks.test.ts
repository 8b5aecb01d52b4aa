// Outbound webhooks (issue 29): a real receiver verifies every delivery with the `standardwebhooks` package; the worker is
// stopped and started again mid-stream, the receiver fails for a while and hangs; every event arrives, in log order per
// endpoint, duplicates only with the same webhook-id, nothing of another organization; 3 days of failures disable an endpoint.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { settle } from '../support/settle.ts';
import { ops } from '../support/ops.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { type Received, WebhookReceiver } from '../support/webhook-receiver.ts';
import { importFile, itemsCsv } from '../support/ingest.ts';
import type { WebhookPassResult } from '../../src/workers/billing/webhooks.ts';
import { webhookBacklog } from '../../src/queries/billing/webhook-outbox.ts';
import { WebhookPayload } from '../../src/contract/schemas/billing-webhooks.ts';

const ENV = { WEBHOOK_PASS_WAIT_MS: '1500', WEBHOOK_TIMEOUT_MS: '5000' };

/** One pass of the delivery worker, once the read models (the outbox among them) caught up. */
async function pass(svc: TestService): Promise<WebhookPassResult> {
  await settle(svc);
  return (await svc.app.workers.runOnce('webhooks')).webhooks as WebhookPassResult;
}

/** Passes until nothing is left to send (the backlog gauge's count is 0); a failure moves the clock past its retry (the backoff is on the injected clock). */
async function drain(svc: TestService): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const r = await pass(svc);
    if (r.failed > 0 || r.still_running > 0) {
      svc.clock.advance(3600_000);
      continue;
    }
    if (r.delivered > 0) continue;
    if ((await webhookBacklog(svc.app.knex)) === 0) return;
    svc.clock.advance(3600_000); // waiting for a retry
  }
  throw new Error('deliveries did not drain');
}

/** Event ids the caller sees in billing.events.list for these types, in log order. */
async function feedIds(svc: TestService, token: string, types: string[]): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await svc.call(ops['billing.events.list'], { types, limit: 200, cursor }, token);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    ids.push(...r.body.items.map((e) => e.id));
    cursor = r.body.pagination?.cursor;
  } while (cursor);
  return ids;
}

/** The webhook-ids in the order they first arrived; checks that every repeat carried the same body. */
function firstSeen(got: Received[]): string[] {
  const bodies = new Map<string, string>();
  for (const g of got) {
    expect(g.verifiedBy, `delivery ${g.webhookId} does not verify`).to.be.at.least(0);
    expect(g.body.id).to.equal(g.webhookId);
    expect(WebhookPayload.safeParse(g.body).success, `payload of ${g.webhookId} is the documented shape`).to.equal(true);
    const seen = bodies.get(g.webhookId);
    if (seen !== undefined) expect(g.raw, `repeat of ${g.webhookId}`).to.equal(seen);
    else bodies.set(g.webhookId, g.raw);
  }
  return [...bodies.keys()];
}

for (const backend of backends()) {
  describe(`outbound webhooks (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let staff: string;
    const receiver = new WebhookReceiver();

    before(async () => {
      await receiver.start();
      svc = await startService(backend, { env: ENV });
      staff = await billingStaff(svc);
    });
    after(async () => {
      await svc?.close();
      await receiver.stop();
    });

    it('delivers every event, signed, in log order per endpoint, through a worker restart and a failing receiver; nothing of another organization', async () => {
      const a = await billedOrg(svc);
      const b = await billedOrg(svc);
      const aTypes = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'payment.recorded'] as const;
      const staffTypes = ['customer.updated', 'invoice.created'] as const;
      const before = new Set([...(await feedIds(svc, staff, [...aTypes]))]);

      const ea = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('a'), event_types: [...aTypes], description: 'ERP sync' }, a.token);
      expect(ea.status, JSON.stringify(ea.body)).to.equal(200);
      expect(ea.body.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(ea.body).to.include({ organization_id: a.orgId, status: 'enabled', description: 'ERP sync' });
      receiver.secrets('a', [ea.body.secret]);
      const eb = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('b'), event_types: ['customer.updated'] }, b.token);
      receiver.secrets('b', [eb.body.secret]);
      const es = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('staff'), event_types: [...staffTypes] }, staff);
      expect(es.body.organization_id).to.equal(null);
      receiver.secrets('staff', [es.body.secret]);
      // The secret is shown once: reads never carry it.
      const got = await svc.call(ops['billing.webhook-endpoints.get'], ea.body.id, a.token);
      expect(got.body).not.to.have.property('secret');

      for (let i = 0; i < 4; i++) {
        expect((await svc.call(ops['billing.customers.update'], { id: a.customerId, payment_terms_days: 10 + i }, a.token)).status).to.equal(200);
        expect((await svc.call(ops['billing.customers.update'], { id: b.customerId, payment_terms_days: 20 + i }, b.token)).status).to.equal(200);
      }
      const invoice = await openInvoice(svc, staff, a.customerId, [2500]);
      const paid = await svc.call(ops['billing.payments.insert'], paymentBody(invoice.id, 2500), staff);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);

      // The receiver takes 3 deliveries, then holds the 4th: the worker is stopped with it in flight, and started again.
      receiver.mode('a', { kind: 'hang', after: 3 });
      const first = await pass(svc);
      expect(first.still_running).to.equal(1);
      expect(receiver.got('a')).to.have.length(4);
      await svc.app.close();
      receiver.release('a');
      svc = await startService(backend, { db: svc.db, clock: svc.clock, env: ENV });

      // Then it fails twice (500), and the worker backs off on the clock before trying again.
      receiver.mode('a', { kind: 'status', status: 500, times: 2 });
      const failed = await pass(svc);
      expect(failed.failed).to.equal(1);
      const again = await pass(svc);
      expect(again.failed, 'nothing is retried before the backoff is over').to.equal(0);
      expect(again.delivered).to.equal(0);
      await drain(svc);

      const wantA = (await feedIds(svc, a.token, [...aTypes])).filter((id) => !before.has(id));
      const wantB = (await feedIds(svc, b.token, ['customer.updated'])).filter((id) => !before.has(id));
      const wantStaff = (await feedIds(svc, staff, [...staffTypes])).filter((id) => !before.has(id));
      expect(wantA).to.have.length(4 + 3); // the updates; finalized, paid, payment recorded (not the draft's invoice.created)
      expect(firstSeen(receiver.got('a'))).to.deep.equal(wantA);
      expect(firstSeen(receiver.got('b'))).to.deep.equal(wantB);
      expect(firstSeen(receiver.got('staff'))).to.deep.equal(wantStaff);
      // The draft's invoice.created is staff-only: the staff endpoint got it, the organization's did not.
      expect(receiver.got('staff').map((g) => g.body.type)).to.include('invoice.created');
      expect(receiver.got('a').map((g) => g.body.type)).not.to.include('invoice.created');
      expect(receiver.got('b').every((g) => !wantA.includes(g.webhookId))).to.equal(true);
      // At least once: the delivery in flight when the worker stopped came again, with the same webhook-id.
      expect(receiver.got('a').length).to.be.greaterThan(wantA.length);
      // The body is billing.events.get's.
      const sample = receiver.got('a').at(-1);
      const event = await svc.call(ops['billing.events.get'], sample?.webhookId ?? '', a.token);
      expect(sample?.body).to.deep.equal(event.body);

      // Every attempt is recorded: the two 500s, then the delivery.
      const list = await svc.call(ops['billing.webhook-deliveries.list'], { endpoint_id: ea.body.id, limit: 200 }, a.token);
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const retried = list.body.items.find((d) => d.attempts.length === 3);
      expect(retried?.status).to.equal('delivered');
      expect(retried?.attempts.map((t) => t.status_code)).to.deep.equal([200, 500, 500]);
      expect(retried?.attempts[1]?.response_excerpt).to.equal('receiver failing (500)');
      expect((await svc.call(ops['billing.webhook-deliveries.list'], { endpoint_id: ea.body.id }, b.token)).status).to.equal(404);

      // Redelivery: the same webhook-id and body again, after what was queued.
      const one = list.body.items[0];
      const count = receiver.got('a').length;
      const redo = await svc.call(ops['billing.webhook-deliveries.redeliver'], { id: one?.id ?? '' }, a.token);
      expect(redo.status, JSON.stringify(redo.body)).to.equal(200);
      await drain(svc);
      expect(receiver.got('a')).to.have.length(count + 1);
      expect(receiver.got('a').at(-1)?.webhookId).to.equal(one?.webhook_id);
      expect(firstSeen(receiver.got('a'))).to.deep.equal(wantA);

      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      expect(metrics).to.match(/deliveries_total\{channel="webhook",result="delivered"\} [1-9]/);
      expect(metrics).to.match(/deliveries_total\{channel="webhook",result="failed"\} 2/);
      expect(metrics).to.match(/webhook_deliveries_pending 0/);
    });

    it('a slow endpoint holds up neither another endpoint nor another organization', async () => {
      const a = await billedOrg(svc);
      const b = await billedOrg(svc);
      const slow = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('slow'), event_types: ['customer.updated'] }, a.token);
      receiver.secrets('slow', [slow.body.secret]);
      const fast = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('fast'), event_types: ['customer.updated'] }, b.token);
      receiver.secrets('fast', [fast.body.secret]);
      receiver.mode('slow', { kind: 'hang', after: 0 });
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'Slow one' }, a.token);
      for (let i = 0; i < 3; i++) await svc.call(ops['billing.customers.update'], { id: b.customerId, name: `Fast ${i}` }, b.token);
      const r = await pass(svc);
      expect(r.still_running).to.equal(1);
      expect(receiver.got('fast')).to.have.length(3);
      // A later event of the other organization goes while the slow endpoint still holds its first.
      await svc.call(ops['billing.customers.update'], { id: b.customerId, name: 'Fast 3' }, b.token);
      await pass(svc);
      expect(receiver.got('fast')).to.have.length(4);
      receiver.release('slow');
      await drain(svc);
      expect(firstSeen(receiver.got('slow'))).to.have.length(1);
    });

    it('disables an endpoint failing for 3 days and lists it under Needs attention; enabling it delivers the backlog', async () => {
      const a = await billedOrg(svc);
      const e = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('dead'), event_types: ['customer.updated'] }, a.token);
      receiver.secrets('dead', [e.body.secret]);
      receiver.mode('dead', { kind: 'status', status: 503, times: 10_000 });
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'Never heard' }, a.token);
      const start = svc.clock.now().getTime();
      let disabled: string[] = [];
      for (let i = 0; i < 60 && disabled.length === 0; i++) {
        disabled = (await pass(svc)).disabled;
        if (disabled.length === 0) svc.clock.advance(6 * 3600_000);
      }
      expect(disabled).to.deep.equal([e.body.id]);
      const failingFor = svc.clock.now().getTime() - start;
      expect(failingFor).to.be.at.least(3 * 86_400_000).and.below(4 * 86_400_000);
      const attempts = receiver.got('dead').length;
      expect(attempts, 'retries back off: far fewer attempts than passes').to.be.within(8, 20);

      const got = await svc.call(ops['billing.webhook-endpoints.get'], e.body.id, a.token);
      expect(got.body).to.include({ status: 'disabled', disabled_reason: 'failing' });
      const attention = await svc.call(ops['billing.attention.list'], { kind: 'webhook_endpoint_failing' }, staff);
      expect(attention.body.items.map((i) => i.key)).to.include(`webhook_endpoint_failing:${e.body.id}`);
      const page = await fetch(`${svc.url}/metrics`);
      expect(await page.text()).to.match(/deliveries_total\{channel="webhook",result="gave_up"\} 1/);

      // Nothing is attempted while disabled; enabled again, the receiver fixed, the event goes.
      svc.clock.advance(86_400_000);
      await pass(svc);
      expect(receiver.got('dead')).to.have.length(attempts);
      receiver.mode('dead', { kind: 'ok' });
      const on = await svc.call(ops['billing.webhook-endpoints.enable'], { id: e.body.id }, a.token);
      expect(on.body).to.include({ status: 'enabled', disabled_reason: null });
      await drain(svc);
      expect(receiver.got('dead').at(-1)?.answered).to.equal(200);
      const after = await svc.call(ops['billing.attention.list'], { kind: 'webhook_endpoint_failing' }, staff);
      expect(after.body.items.map((i) => i.key)).not.to.include(`webhook_endpoint_failing:${e.body.id}`);
    });

    it('rotating the secret: both sign for 24 hours, then only the new one', async () => {
      const a = await billedOrg(svc);
      const e = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('rot'), event_types: ['customer.updated'] }, a.token);
      const rotated = await svc.call(ops['billing.webhook-endpoints.rotate-secret'], { id: e.body.id }, a.token);
      expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
      expect(rotated.body.secret).not.to.equal(e.body.secret);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - svc.clock.now().getTime()).to.equal(86_400_000);
      receiver.secrets('rot', [e.body.secret]);
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'Old secret' }, a.token);
      await drain(svc);
      expect(receiver.got('rot').at(-1)?.verifiedBy).to.equal(0);
      receiver.secrets('rot', [rotated.body.secret]);
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'New secret' }, a.token);
      await drain(svc);
      expect(receiver.got('rot').at(-1)?.verifiedBy).to.equal(0);
      // After 24 hours the old secret signs no more.
      svc.clock.advance(86_400_000 + 1000);
      receiver.secrets('rot', [e.body.secret, rotated.body.secret]);
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'Later' }, a.token);
      await drain(svc);
      const last = receiver.got('rot').at(-1);
      expect(last?.verifiedBy).to.equal(1);
      expect(String(last && last.raw)).to.contain('Later');
    });

    it('delivers the completion of a catalogue import to the importing organization', async () => {
      const supplier = await svc.signUp({ kind: 'supplier' });
      const e = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('imports'), event_types: ['import.completed', 'import.failed'] }, supplier.token);
      expect(e.status, JSON.stringify(e.body)).to.equal(200);
      receiver.secrets('imports', [e.body.secret]);
      const done = await importFile(svc, { token: supplier.token }, 'csv', itemsCsv(3));
      expect(done.body.status).to.equal('completed');
      await drain(svc);
      const got = receiver.got('imports');
      expect(got.map((g) => [g.body.type, g.body.subject])).to.deep.equal([['import.completed', { type: 'import', id: done.body.id }]]);
      expect(got[0]?.verifiedBy).to.equal(0);
    });

    it('refuses a bad URL or event type with a 400 naming the field; another organization cannot see or change an endpoint', async () => {
      const a = await billedOrg(svc);
      const b = await billedOrg(svc);
      const insecure = await svc.call(ops['billing.webhook-endpoints.insert'], { url: 'http://example.com/hook', event_types: ['invoice.paid'] }, a.token);
      expect(insecure.status).to.equal(400);
      expect(insecure.body.code).to.equal('invalid_webhook_url');
      expect(insecure.body.issues?.[0]?.path).to.equal('url');
      const internal = await svc.send('billing.webhook-endpoints.insert', { url: 'https://example.com/hook', event_types: ['InvoiceFinalized'] }, a.token);
      expect(internal.status).to.equal(400);
      expect(JSON.stringify(internal.body.issues)).to.contain('event_types');
      const e = await svc.call(ops['billing.webhook-endpoints.insert'], { url: 'https://example.com/hook', event_types: ['invoice.paid'] }, a.token);
      expect(e.status).to.equal(200);
      expect((await svc.call(ops['billing.webhook-endpoints.get'], e.body.id, b.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.webhook-endpoints.update'], { id: e.body.id, description: 'mine now' }, b.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.webhook-endpoints.list'], {}, b.token)).body.items).to.deep.equal([]);
      const updated = await svc.call(ops['billing.webhook-endpoints.update'], { id: e.body.id, event_types: ['invoice.paid', 'invoice.finalized'], description: 'Ledger' }, a.token);
      expect(updated.body).to.include({ description: 'Ledger' });
      expect(updated.body.event_types).to.deep.equal(['invoice.finalized', 'invoice.paid']);
      const staffList = await svc.call(ops['billing.webhook-endpoints.list'], { organization_id: a.orgId }, staff);
      expect(staffList.body.items.map((x) => x.id)).to.deep.equal([e.body.id]);
      const off = await svc.call(ops['billing.webhook-endpoints.disable'], { id: e.body.id }, a.token);
      expect(off.body).to.include({ status: 'disabled', disabled_reason: 'manual' });
      expect((await svc.call(ops['billing.webhook-endpoints.remove'], { id: e.body.id }, a.token)).status).to.equal(200);
      expect((await svc.call(ops['billing.webhook-endpoints.get'], e.body.id, a.token)).status).to.equal(404);
    });

    it('keeps delivered deliveries WEBHOOK_RETENTION_DAYS (30 by default): older ones leave the list with their attempts; one still failing stays', async () => {
      const a = await billedOrg(svc);
      const kept = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('month'), event_types: ['customer.updated'] }, a.token);
      receiver.secrets('month', [kept.body.secret]);
      const failing = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url('down'), event_types: ['customer.updated'] }, a.token);
      receiver.secrets('down', [failing.body.secret]);
      receiver.mode('down', { kind: 'status', status: 503, times: 10_000 });
      await svc.call(ops['billing.customers.update'], { id: a.customerId, name: 'Kept a month' }, a.token);
      await pass(svc);
      const list = async (id: string) => (await svc.call(ops['billing.webhook-deliveries.list'], { endpoint_id: id }, a.token)).body.items;
      const attempts = async (id: string) => Number((await svc.app.knex('webhook_delivery_attempts').where({ delivery_id: id }).count({ n: '*' }))[0]?.n);
      const [delivered] = await list(kept.body.id);
      expect(delivered).to.include({ status: 'delivered' });
      const [stuck] = await list(failing.body.id);
      expect(stuck).to.include({ status: 'failing' });
      expect(await attempts(delivered?.id ?? '')).to.equal(1);
      svc.clock.advance(29 * 86_400_000);
      await pass(svc);
      expect((await list(kept.body.id)).map((d) => d.id)).to.deep.equal([delivered?.id]);
      svc.clock.advance(2 * 86_400_000);
      expect((await pass(svc)).pruned).to.be.at.least(1);
      expect(await list(kept.body.id)).to.deep.equal([]);
      expect(await attempts(delivered?.id ?? '')).to.equal(0);
      // Not delivered yet (its endpoint gave up and waits to be enabled): kept, with its attempts, whatever its age.
      expect((await list(failing.body.id)).map((d) => [d.id, d.status])).to.deep.equal([[stuck?.id, 'failing']]);
      expect(await attempts(stuck?.id ?? '')).to.be.at.least(1);
    });
  });
}
