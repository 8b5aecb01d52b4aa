// A poisoned log fails loud: a malformed event stops only the read models that cannot apply it, /readyz, /metrics
// and the health page name them within seconds, the other read models keep serving fresh writes, writes that
// read a stopped model answer 503 read_model_failed, and an operator repairs it (retry, skip) without SQL.
// A stream with an unreadable event answers 409 stream_unreadable and still shows its history.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { skipProjectionEvent } from '../../src/commands/platform/projections.ts';
import { formatHistory } from '../../src/cli/history.ts';
import { formatStatuses } from '../../src/cli/projections.ts';
import { forgetUnreadableStream } from '../../src/unreadable-streams.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, draft } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { WebClient, logIn } from '../support/web.ts';

/** Polls (real time: the runner works on its own) until `check` holds, for at most `ms`. */
async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const backend of backends()) {
  describe(`a poisoned log fails loud (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let staffId: string;
    let staffEmail: string;
    let acme: BilledOrg;
    // Made as the suite starts, not as the file loads: run after other suites, a clock minutes behind the poisoned
    // event's real time reads its lag as 0, and the lag then seems to grow by less than the clock moved.
    let clock: TestClock;
    const poisonStream = `customer-${crypto.randomUUID()}`;
    let poisonId = '';

    // An operator's mistake: a row written into the log by hand, bypassing every schema.
    const insertEvent = async (stream: string, revision: number, type: string, data: unknown, metadata: unknown = {}) => {
      const id = crypto.randomUUID();
      await svc.app.knex.raw('insert into es_events (stream_id, revision, event_id, type, data, metadata) values (?, ?, ?, ?, ?::jsonb, ?::jsonb)', [stream, revision, id, type, JSON.stringify(data), JSON.stringify(metadata)]);
      return id;
    };
    const get = async (path: string) => {
      const res = await fetch(`${svc.url}${path}`);
      return { status: res.status, text: await res.text() };
    };
    // The one /readyz shape (issue 30): a check per read model; the stopped ones say at which event.
    const readyz = async () => {
      const r = await get('/readyz');
      const body = JSON.parse(r.text) as { status: string; checks: { name: string; ok: boolean; projection?: { name: string; failure: { event_id: string; type: string; error: string } | null } }[] };
      const stalled = body.checks.filter((c) => !c.ok && c.projection).map((c) => c.projection!);
      return { status: r.status, body: { projections: stalled.map((p) => p.name), details: stalled } };
    };

    before(async () => {
      clock = new TestClock(new Date());
      svc = await startService(backend, { clock });
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'], name: 'Platform' });
      staff = s.token;
      staffId = s.userId;
      staffEmail = s.email;
      acme = await billedOrg(svc);
      poisonId = await insertEvent(poisonStream, 0, 'CustomerCreated', { bogus: true });
    });
    after(async () => svc?.close());
    const poisoned = () => poisonId;

    it('names the stopped read models in /readyz with the event, at once, and keeps the others serving fresh writes', async () => {
      const ready = await eventually('readyz names billing.customers', async () => {
        const r = await readyz();
        return r.status === 503 && r.body.projections.includes('billing.customers') && r.body.projections.includes('billing.events') ? r : null;
      });
      const failure = ready.body.details?.find((d) => d.name === 'billing.customers')?.failure;
      expect(failure?.event_id).to.equal(poisoned());
      expect(failure?.type).to.equal('CustomerCreated');
      expect(failure?.error).to.equal('EventReadError');
      // Read models the event does not concern are not failed.
      expect(ready.body.projections).to.not.include('billing.invoices');

      // A write whose answer reads only healthy read models answers 200 and is readable.
      const d = await draft(svc, staff, acme.customerId, [1200]);
      expect(d.total).to.equal(1200);
      const listed = await svc.call(ops['billing.invoices.list'], { customer_id: acme.customerId }, staff);
      expect(listed.body.items.map((i) => i.id)).to.include(d.id);
    });

    it('says so in /metrics: the state, a failure count, and a lag that grows while it is stalled', async () => {
      // The test clock started before the event was written (in real time): past it, the lag is measurable.
      clock.advance(60_000);
      const before = await get('/metrics');
      expect(before.text).to.match(/projection_state\{projection="billing.customers",state="failed"\} 1/);
      expect(before.text).to.match(/projection_state\{projection="billing.invoices",state="running"\} 1/);
      expect(before.text).to.match(/projection_failures_total\{projection="billing.customers"\} 1/);
      const lagOf = (text: string) => Number(/projection_lag_seconds\{projection="billing.customers"\} ([0-9.e+-]+)/.exec(text)?.[1]);
      clock.advance(10 * 60_000);
      const after = await get('/metrics');
      expect(lagOf(after.text) - lagOf(before.text)).to.be.closeTo(600, 1);
      expect(lagOf(before.text)).to.be.greaterThan(0);
    });

    it('answers a write that reads a stopped read model with 503 read_model_failed naming it; the write is kept', async () => {
      const other = await svc.signUp();
      const r = await svc.call(ops['billing.customers.insert'], { name: 'Saved While Stopped Ltd', email: 'ap@stopped.example', currency: 'GBP' }, other.token, { 'Idempotency-Key': 'stopped-1' });
      expect(r.status).to.equal(503);
      expect(r.body.code).to.equal('read_model_failed');
      expect(r.body.message).to.contain('billing.customers');
      // Read through the log's reader: customer names are stored encrypted (issue 32).
      const stored = (await svc.app.store.readAll({ from: 'start', maxCount: 100_000 })).filter((e) => e.type === 'CustomerCreated' && (e.data as { name?: unknown }).name === 'Saved While Stopped Ltd');
      expect(stored).to.have.length(1);
    });

    it('shows the health on platform.health.get for billing staff', async () => {
      const h = await svc.call(ops['platform.health.get'], undefined, staff);
      expect(h.status).to.equal(200);
      expect(h.body.status).to.equal('degraded');
      const customers = h.body.projections.find((p) => p.name === 'billing.customers');
      expect(customers?.state).to.equal('failed');
      expect(customers?.failure?.stream_id).to.equal(poisonStream);
      expect(h.body.projections.find((p) => p.name === 'billing.invoices')?.state).to.equal('running');
      const member = await svc.signUp();
      expect((await svc.call(ops['platform.health.get'], undefined, member.token)).status).to.equal(403);
      // What `core-server projections` prints from the same statuses.
      const printed = formatStatuses(await svc.app.runner.statuses()).join('\n');
      expect(printed).to.match(/billing\.customers\s+failed/).and.contain(`stopped at event ${poisoned()} (CustomerCreated, ${poisonStream}`);
      expect(printed).to.match(/billing\.invoices\s+running/);
      // The console's health page shows the same, with how to repair it.
      const web = new WebClient(svc.url);
      await logIn(web, staffEmail, 'correct horse battery');
      const page = await web.get('/console/health');
      expect(page.status).to.equal(200);
      expect(page.html).to.contain('Needs attention').and.contain(poisoned()).and.contain(`core-server projections skip billing.customers --event ${poisoned()}`);
      // The Needs attention list names each stopped read model with the event, how to repair it and where; the count is in the navigation.
      const attention = await svc.call(ops['billing.attention.list'], { kind: 'stalled_read_model' }, staff);
      const stalled = attention.body.items.find((i) => i.key === 'stalled_read_model:billing.customers');
      expect(stalled?.cause).to.contain(poisoned());
      expect(stalled?.resolve).to.contain(`core-server projections skip billing.customers --event ${poisoned()}`);
      expect(stalled?.href).to.equal('/console/health');
      const listPage = await web.get('/console/attention');
      expect(listPage.html).to.contain('Stalled read models').and.contain('Read model billing.customers stopped at an event it cannot apply');
      expect(listPage.html).to.match(new RegExp(`id="attention-count">${attention.body.counts.total}<`));
      expect((await svc.call(ops['billing.attention.list'], {}, member.token)).status).to.equal(403);
    });

    it('reads the history of the poisoned stream: the unreadable event is shown as such, in the API and the CLI', async () => {
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: poisonStream.slice('customer-'.length) } }, staff);
      expect(h.status, JSON.stringify(h.body)).to.equal(200);
      expect(h.body.items).to.have.length(1);
      expect(h.body.items[0]?.unreadable).to.be.a('string').and.not.equal('');
      expect(h.body.items[0]?.actor.type).to.equal('system');
      const lines = await formatHistory(svc.app.store, svc.app.knex, poisonStream, { json: false });
      expect(lines.join('\n')).to.contain('CustomerCreated').and.contain('by unknown').and.contain(`unreadable`);
    });

    it('refuses a skip of another event, then skips the failing one with who, when and why: the read models resume and equal a rebuild', async () => {
      const wrong = await svc.call(ops['platform.projections.skip'], { name: 'billing.customers', event_id: crypto.randomUUID(), reason: 'typo' }, staff);
      expect(wrong.status).to.equal(409);
      expect(wrong.body.code).to.equal('event_not_failing');
      const unknown = await svc.call(ops['platform.projections.skip'], { name: 'billing.nothing', event_id: poisoned(), reason: 'typo' }, staff);
      expect(unknown.body.code).to.equal('projection_not_found');

      const skipped = await svc.call(ops['platform.projections.skip'], { name: 'billing.customers', event_id: poisoned(), reason: 'written by hand in error (ticket 42)' }, staff);
      expect(skipped.status, JSON.stringify(skipped.body)).to.equal(200);
      // The CLI's path: the same function, as an operator at a terminal.
      await skipProjectionEvent(svc.app.knex, svc.app.runner.names(), { name: 'billing.events', eventId: poisoned(), reason: 'same row (ticket 42)', actor: 'cli:operator', now: clock.now() });
      // The webhook outbox maps the same feed events, so it stopped at the row too.
      await skipProjectionEvent(svc.app.knex, svc.app.runner.names(), { name: 'billing.webhook-outbox', eventId: poisoned(), reason: 'same row (ticket 42)', actor: 'cli:operator', now: clock.now() });

      await eventually('readyz is ready', async () => (await readyz()).status === 200);
      const saved = await svc.call(ops['billing.customers.list'], { limit: 200 }, staff);
      expect(saved.body.items.map((c) => c.name)).to.include('Saved While Stopped Ltd');

      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: poisonStream.slice('customer-'.length) } }, staff);
      expect(h.body.items[0]?.skipped_by.map((s) => [s.projection, s.reason, s.actor])).to.deep.equal([
        ['billing.customers', 'written by hand in error (ticket 42)', `staff:${staffId}`],
        ['billing.events', 'same row (ticket 42)', 'cli:operator'],
        ['billing.webhook-outbox', 'same row (ticket 42)', 'cli:operator'],
      ]);
      const health = await svc.call(ops['platform.health.get'], undefined, staff);
      expect(health.body.skips.map((s) => s.projection)).to.deep.equal(['billing.customers', 'billing.events', 'billing.webhook-outbox']);

      const rows = async () => svc.app.knex('billing_customers').select('*').orderBy('id');
      const live = await rows();
      await svc.app.runner.rebuild(['billing.customers']);
      expect(await rows()).to.deep.equal(live);
    });

    it('retries a read model once the event is repaired: it applies it and goes on', async () => {
      const org = await svc.signUp();
      const customerId = crypto.randomUUID();
      const stream = `customer-${customerId}`;
      const good = { name: 'Repaired Row Ltd', email: 'ap@repaired.example', currency: 'GBP', payment_terms_days: 30, billing_address: null, tax_id: null, metadata: {}, customer_id: customerId, organization_id: org.orgId, created_at: clock.now().toISOString() };
      const id = await insertEvent(stream, 0, 'CustomerCreated', { ...good, currency: 42 }, { org_id: org.orgId, actor: { type: 'system', id: 'test' } });
      await eventually('billing.customers fails at the new row', async () => (await readyz()).body.details?.find((d) => d.name === 'billing.customers')?.failure?.event_id === id);
      const notYet = await svc.call(ops['platform.projections.retry'], { name: 'billing.invoices' }, staff);
      expect(notYet.body.code).to.equal('projection_not_failed');

      await svc.app.knex('es_events').where({ event_id: id }).update({ data: JSON.stringify(good) });
      for (const name of ['billing.customers', 'billing.events', 'billing.webhook-outbox']) {
        const r = await svc.call(ops['platform.projections.retry'], { name }, staff);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
      }
      await eventually('readyz is ready again', async () => (await readyz()).status === 200);
      const got = await svc.call(ops['billing.customers.get'], { id: customerId }, staff);
      expect(got.status, JSON.stringify(got.body)).to.equal(200);
      expect(got.body.name).to.equal('Repaired Row Ltd');
    });

    it('a year-0000 date written into the log by hand stops only the exchange rates, loudly; skipped, rates flow again', async () => {
      const ok = await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'EUR', target: 'GBP', rate: '0.85', as_of: '2026-01-01T00:00:00Z', source: 'ECB' }, staff);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      const good = (await svc.app.knex('es_events').where({ stream_id: 'exchangerate-EUR_GBP' }).first('data', 'metadata')) as { data: unknown; metadata: unknown };
      const data = typeof good.data === 'string' ? (JSON.parse(good.data) as Record<string, unknown>) : (good.data as Record<string, unknown>);
      const id = await insertEvent('exchangerate-USD_GBP', 0, 'ExchangeRateRecorded', { ...data, base: 'USD', as_of: '0000-01-01T00:00:00.000Z' }, good.metadata);
      await eventually('readyz names billing.exchange-rates', async () => (await readyz()).body.details?.find((d) => d.name === 'billing.exchange-rates')?.failure?.event_id === id);
      const blocked = await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'CHF', target: 'GBP', rate: '0.9', as_of: '2026-01-02T00:00:00Z', source: 'ECB' }, staff);
      expect(blocked.status).to.equal(503);
      expect(blocked.body.code).to.equal('read_model_failed');
      expect(blocked.body.message).to.contain('billing.exchange-rates');
      const skipped = await svc.call(ops['platform.projections.skip'], { name: 'billing.exchange-rates', event_id: id, reason: 'year 0000 typed by hand' }, staff);
      expect(skipped.status, JSON.stringify(skipped.body)).to.equal(200);
      await eventually('exchange rates running again', async () => !(await readyz()).body.details?.some((d) => d.name === 'billing.exchange-rates'));
      const listed = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP' }, staff);
      expect(listed.body.map((r) => r.base).sort()).to.deep.equal(['CHF', 'EUR']);
    });

    it('answers a command on a stream with an unreadable event 409 stream_unreadable naming the event, and lists the stream on the health page', async () => {
      const d = await draft(svc, staff, acme.customerId, [500]);
      const stream = `invoice-${d.id}`;
      const revision = Number(((await svc.app.knex('es_events').where({ stream_id: stream }).max('revision as r')) as { r: string | number }[])[0]?.r) + 1;
      const id = await insertEvent(stream, revision, 'InvoiceTeleported', { to: 'mars' }, { org_id: acme.orgId, actor: { type: 'system', id: 'test' } });
      const r = await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff);
      expect(r.status, JSON.stringify(r.body)).to.equal(409);
      expect(r.body.code).to.equal('stream_unreadable');
      expect(r.body.message).to.contain(id);
      const health = await svc.call(ops['platform.health.get'], undefined, staff);
      const listed = health.body.unreadable_streams.find((s) => s.stream_id === stream);
      expect(listed?.event_id).to.equal(id);
      expect(listed?.type).to.equal('InvoiceTeleported');
      const attention = async () => (await svc.call(ops['billing.attention.list'], { kind: 'unreadable_stream' }, staff)).body.items.map((i) => [i.key, i.cause]);
      expect(await attention()).to.deep.include([`unreadable_stream:${stream}`, `Event #${revision} (InvoiceTeleported, ${id}): ${listed?.error ?? ''}`]);
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: d.id } }, staff);
      expect(h.status).to.equal(200);
      expect(h.body.items.at(-1)?.unreadable).to.contain('unknown event type');
      expect(h.body.items[0]?.unreadable).to.equal(null);
      // Repaired (here: the row removed by hand), the operator drops it from the list (`projections forget-stream`).
      await svc.app.knex('es_events').where({ event_id: id }).delete();
      await forgetUnreadableStream(svc.app.knex, stream);
      expect((await svc.call(ops['platform.health.get'], undefined, staff)).body.unreadable_streams.map((u) => u.stream_id)).to.not.include(stream);
      expect((await attention()).map(([key]) => key)).to.not.include(`unreadable_stream:${stream}`);
      expect((await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staff)).status).to.equal(200);
    });
  });
}
