// Input a business would call nonsense is refused before it is stored (issue 25): dates and instants outside the years
// 1900-9999 (once in UTC), forged cursors, huge quantities, empty months before a subscription started and record keys
// JavaScript gives a meaning to. Each answers 4xx naming the field, writes nothing, and leaves the read models serving.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { type RawReply, startService, type TestService } from '../support/app.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { price, product } from '../support/catalogue.ts';
import { ops } from '../support/ops.ts';
import { longPlatformStaff, order, pricing, sellerWithSubscription, type Seller } from '../support/usage.ts';
import { logIn, WebClient } from '../support/web.ts';

const YEAR_0 = '0000-01-01T00:00:00Z';
/** Instants out of range once in UTC: year 0, year -1 through an offset, the day before 1900, year 10000 through an offset. */
const BAD_INSTANTS = [YEAR_0, '0000-01-01T00:30:00+01:00', '1899-12-31T23:59:59Z', '1900-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', '-000001-01-01T00:00:00Z', '10000-01-01T00:00:00Z'];
const BAD_DATES = ['0000-01-01', '1899-12-31', '-000001-12-31', '10000-01-01'];
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

for (const backend of backends()) {
  describe(`bounded input over HTTP (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let platform: string;
    let staff: string;
    let seller: Seller;
    let buyer: string;
    let acme: Awaited<ReturnType<typeof billedOrg>>;
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    const refusedNaming = (res: RawReply, path: string, what: string) => {
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.code, what).to.equal('invalid_request');
      expect(res.body.issues?.map((i) => i.path), what).to.include(path);
    };

    before(async () => {
      svc = await startService(backend);
      svc.clock.set('2026-03-15T12:00:00Z');
      platform = await longPlatformStaff(svc);
      staff = await billingStaff(svc);
      seller = await sellerWithSubscription(svc, { platform });
      buyer = (await svc.signUp()).orgId;
      acme = await billedOrg(svc);
      await pricing(svc, staff, seller.subscriptionId, { effective_from: '2025-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 } });
    });
    after(async () => svc?.close());

    it('a usage order of year 0000 (or before 1900 once in UTC) is 400 naming its occurred_at, stores nothing, and usage recording goes on', async () => {
      for (const [i, at] of BAD_INSTANTS.entries()) {
        const before = await eventCount();
        const res = await svc.send('billing.usage.insert', { orders: [order(`OK-${i}`, seller.orgId, buyer, 100, '2026-02-01T00:00:00Z'), order(`BAD-${i}`, seller.orgId, buyer, 100, at)] }, staff);
        refusedNaming(res, 'orders.1.occurred_at', at);
        expect(await eventCount(), at).to.equal(before);
      }
      const later = await svc.call(ops['billing.usage.insert'], { orders: [order('LATER-1', seller.orgId, buyer, 100, '1900-01-01T00:00:00Z'), order('LATER-2', seller.orgId, buyer, 100, '2026-03-01T00:30:00+01:00')] }, staff);
      expect(later.status, JSON.stringify(later.body)).to.equal(200);
      expect(later.body.recorded).to.equal(2);
    });

    it('an exchange rate as of year 0000 is 400 naming as_of, stores nothing, and rates go on being recorded and listed', async () => {
      for (const at of BAD_INSTANTS) {
        const before = await eventCount();
        const res = await svc.send('billing.currency-exchange-rates.insert', { base: 'EUR', target: 'GBP', rate: '0.85', as_of: at, source: 'typo' }, platform);
        refusedNaming(res, 'as_of', at);
        expect(await eventCount(), at).to.equal(before);
      }
      const ok = await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'EUR', target: 'GBP', rate: '0.86', as_of: '2026-01-01T00:30:00+01:00', source: 'ECB' }, platform);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body.as_of).to.equal('2025-12-31T23:30:00.000Z');
      const listed = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP' }, platform);
      expect(listed.body.map((r) => [r.base, r.rate])).to.deep.equal([['EUR', '0.86']]);
    });

    it('every other request date and instant outside 1900-9999 is 400 naming the field and writes nothing', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const pay = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100), staff);
      expect(pay.status, JSON.stringify(pay.body)).to.equal(200);
      const priceId = (await price(svc, platform, await product(svc, platform, 'Bounds'))).id;
      const period = { current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2027-01-01T00:00:00Z' };
      const cases: [string, (bad: string) => unknown, string, string, 'date' | 'instant'][] = [
        ['billing.payments.insert', (d) => paymentBody(inv.id, 100, { received_on: d }), 'received_on', staff, 'date'],
        ['billing.payments.update', (d) => ({ id: pay.body.payment.id, received_on: d, reason: 'typo' }), 'received_on', staff, 'date'],
        ['billing.customers.statement.get', (d) => ({ customer_id: acme.customerId, from: d, to: '2026-01-31' }), 'from', acme.token, 'date'],
        ['billing.customers.statement.get', (d) => ({ customer_id: acme.customerId, from: '2026-01-01', to: d }), 'to', acme.token, 'date'],
        ['billing.history.get', (d) => ({ subject: { type: 'customer', id: acme.customerId }, as_of: d }), 'as_of', staff, 'instant'],
        ['billing.entitlement-overrides.insert', (d) => ({ organization_id: acme.orgId, entitlement_key: 'parts.search', mode: 'grant', expires_at: d, reason: 'r' }), 'expires_at', platform, 'instant'],
        ['billing.subscriptions.insert', (d) => ({ organization_id: acme.orgId, items: [{ price_id: priceId, quantity: 1 }], ...period, current_period_start: d }), 'current_period_start', platform, 'instant'],
        ['billing.subscriptions.update', (d) => ({ id: seller.subscriptionId, current_period_end: d }), 'current_period_end', platform, 'instant'],
        ['analytics.events.insert', (d) => ({ name: 'page_view', occurred_at: d }), 'occurred_at', acme.token, 'instant'],
        ['billing.currency-exchange-rates.list', (d) => ({ target: 'GBP', as_of: d }), 'as_of', platform, 'instant'],
        ['billing.configuration.resolve.get', (d) => ({ subscription_id: seller.subscriptionId, event: { seller: seller.orgId, buyer, occurred_at: d } }), 'event.occurred_at', staff, 'instant'],
      ];
      for (const [id, body, path, token, kind] of cases) {
        for (const bad of kind === 'date' ? BAD_DATES : BAD_INSTANTS) {
          const before = await eventCount();
          refusedNaming(await svc.send(id, body(bad), token), path, `${id} ${path}=${bad}`);
          expect(await eventCount(), `${id} ${bad}`).to.equal(before);
        }
      }
    });

    it('list filters past 1900-9999 are 400 naming the filter for any organization user, never 500; the edges of the range answer 200', async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ...['issue_date_from', 'issue_date_to', 'due_date_from', 'due_date_to'].flatMap((f): [string, Record<string, unknown>, string][] => BAD_DATES.map((d) => ['billing.invoices.list', { [f]: d }, f])),
        ...['occurred_from', 'occurred_before'].flatMap((f): [string, Record<string, unknown>, string][] => BAD_INSTANTS.map((t) => ['billing.events.list', { [f]: t }, f])),
        ...BAD_DATES.flatMap((d): [string, Record<string, unknown>, string][] => [['analytics.counts.list', { from: d, to: '2026-01-01' }, 'from'], ['analytics.counts.list', { from: '2026-01-01', to: d }, 'to']]),
      ];
      for (const [id, body, path] of cases) refusedNaming(await svc.send(id, body, acme.token), path, `${id} ${JSON.stringify(body)}`);
      const edges: [string, Record<string, unknown>][] = [
        ['billing.invoices.list', { issue_date_from: '1900-01-01', issue_date_to: '9999-12-31', due_date_from: '1900-01-01', due_date_to: '9999-12-31' }],
        ['billing.events.list', { occurred_from: '1900-01-01T00:00:00Z', occurred_before: '9999-12-31T23:59:59.999Z' }],
        ['analytics.counts.list', { from: '9999-01-01', to: '9999-12-31' }],
        ['analytics.counts.list', { from: '1900-01-01', to: '1900-12-31' }],
        ['billing.customers.statement.get', { customer_id: acme.customerId, from: '9999-12-31', to: '9999-12-31' }],
        ['billing.customers.statement.get', { customer_id: acme.customerId, from: '1900-01-01', to: '1900-01-01' }],
      ];
      for (const [id, body] of edges) {
        const res = await svc.send(id, body, acme.token);
        expect(res.status, `${id} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).to.equal(200);
      }
    });

    it('a cursor that does not decode to what the list issued is 400 invalid_cursor on every list, never 500', async () => {
      const supplier = await svc.signUp({ kind: 'supplier' });
      const inv = await openInvoice(svc, staff, acme.customerId, [700]);
      const uuid = acme.customerId;
      const forged = [
        'not base64url!', b64('not json'), b64({}), b64([]), b64([null]), b64([YEAR_0, uuid]), b64(['0000-01-01T00:00:00.000Z', uuid]), b64(['-000001-12-31T23:30:00.000Z', uuid]),
        b64(['2026-01-01T00:00:00.000Z', 'x']), b64(['0000-01-01', 'page_view']), b64(['pg1:x']), b64([1e308]), b64([-1]), b64(['1']), b64([2 ** 31, 0]), b64([0, -1]), b64(['a', 'b', 'c']),
      ];
      const lists: [string, Record<string, unknown>, string, string[]?][] = [
        ['billing.customers.list', {}, staff],
        ['billing.invoices.list', {}, acme.token],
        ['billing.payments.list', {}, staff],
        ['billing.products.list', {}, platform],
        ['billing.prices.list', {}, platform],
        ['billing.credit-note-requests.list', {}, staff],
        ['billing.notes.list', { subject: { type: 'customer', id: acme.customerId } }, acme.token],
        ['billing.customers.attachments.list', { customer_id: acme.customerId }, acme.token],
        ['billing.invoices.attachments.list', { invoice_id: inv.id }, acme.token],
        ['billing.events.list', {}, acme.token],
        ['billing.invoices.orders.list', { invoice_id: inv.id }, staff],
        ['billing.history.get', { subject: { type: 'invoice', id: inv.id } }, staff],
        ['billing.configuration.history.get', { subscription_id: seller.subscriptionId }, staff],
        ['analytics.events.list', {}, acme.token],
        ['analytics.counts.list', { from: '2026-01-01', to: '2026-03-01' }, acme.token],
        // A SKU is any text, so a one-string cursor is one this list may have issued.
        ['sellable-items.list', {}, supplier.token, [b64(['pg1:x']), b64(['1'])]],
      ];
      for (const [id, body, token, possible = []] of lists) {
        const fine = await svc.send(id, body, token);
        expect(fine.status, `${id}: ${JSON.stringify(fine.body)}`).to.equal(200);
        for (const cursor of forged.filter((c) => !possible.includes(c))) {
          const res = await svc.send(id, { ...body, cursor }, token);
          const what = `${id} cursor ${Buffer.from(cursor, 'base64url').toString()}: ${res.status} ${JSON.stringify(res.body)}`;
          expect([res.status, res.body.code], what).to.deep.equal([400, 'invalid_cursor']);
        }
      }
    });

    it(`a subscription quantity above 1,000,000 is 400 naming it; 1,000,000 is fine`, async () => {
      const priceId = (await price(svc, platform, await product(svc, platform, 'Seats'))).id;
      const body = (quantity: number) => ({ organization_id: acme.orgId, items: [{ price_id: priceId, quantity }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2027-01-01T00:00:00Z' });
      for (const quantity of [2 ** 31, 2 ** 31 - 1, 2 ** 53 - 1, 1_000_001]) {
        const before = await eventCount();
        refusedNaming(await svc.send('billing.subscriptions.insert', body(quantity), platform), 'items.0.quantity', String(quantity));
        refusedNaming(await svc.send('billing.subscriptions.update', { id: seller.subscriptionId, items: [{ price_id: priceId, quantity }] }, platform), 'items.0.quantity', `update ${quantity}`);
        expect(await eventCount()).to.equal(before);
      }
      const ok = await svc.call(ops['billing.subscriptions.insert'], body(1_000_000), platform);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });

    it('invoices.generate for an empty month before the subscription started is 409 period_before_subscription; a backfilled month before it is invoiced', async () => {
      // The subscription was recorded in 2026-03 with a period from 2026-01: it starts in 2026-01.
      for (const period of ['2025-12', '1970-01', '1969-12', '1900-02']) {
        const before = await eventCount();
        const res = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period }, staff);
        expect([res.status, res.body.code], period).to.deep.equal([409, 'period_before_subscription']);
        expect(await eventCount()).to.equal(before);
      }
      for (const period of ['0000-01', '1899-12', '10000-01']) refusedNaming(await svc.send('billing.invoices.generate', { subscription_id: seller.subscriptionId, period }, staff), 'period', period);
      const first = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2026-01' }, staff);
      expect([first.status, first.body.total]).to.deep.equal([200, 0]);
      expect((await svc.call(ops['billing.usage.insert'], { orders: [order('BACKFILL-1', seller.orgId, buyer, 10_000, '2025-11-20T10:00:00Z')] }, staff)).status).to.equal(200);
      const backfilled = await svc.call(ops['billing.invoices.generate'], { subscription_id: seller.subscriptionId, period: '2025-11' }, staff);
      expect([backfilled.status, backfilled.body.total], JSON.stringify(backfilled.body)).to.deep.equal([200, 250]);
    });

    it('__proto__, constructor and prototype keys in metadata and properties are 400 naming the key, never dropped', async () => {
      const key = (k: string) => JSON.parse(`{${JSON.stringify(k)}:"x","kept":"y"}`) as Record<string, string>;
      const newcomer = (await svc.signUp()).token;
      for (const k of ['__proto__', 'constructor', 'prototype']) {
        const before = await eventCount();
        refusedNaming(await svc.send('billing.customers.update', { id: acme.customerId, metadata: key(k) }, acme.token), `metadata.${k}`, `customers.update ${k}`);
        refusedNaming(await svc.send('billing.customers.insert', { name: 'Proto', email: 'p@example.com', currency: 'GBP', metadata: key(k) }, newcomer), `metadata.${k}`, `customers.insert ${k}`);
        refusedNaming(await svc.send('billing.products.insert', { name: 'Proto', metadata: key(k) }, platform), `metadata.${k}`, `products.insert ${k}`);
        refusedNaming(await svc.send('billing.invoices.insert', { customer_id: acme.customerId, lines: [{ description: 'a', unit_amount: 1 }], metadata: key(k) }, staff), `metadata.${k}`, `invoices.insert ${k}`);
        refusedNaming(await svc.send('analytics.events.insert', { name: 'page_view', properties: key(k) }, acme.token), `properties.${k}`, `analytics.events.insert ${k}`);
        expect(await eventCount(), k).to.equal(before);
      }
      const ok = await svc.call(ops['billing.customers.update'], { id: acme.customerId, metadata: { kept: 'y', proto: 'fine' } }, acme.token);
      expect([ok.status, ok.body.metadata]).to.deep.equal([200, { kept: 'y', proto: 'fine' }]);
    });

    it('an id written in capitals names the same resource: reads find it and writes land on its stream, not a new one', async () => {
      const inv = await openInvoice(svc, staff, acme.customerId, [2500]);
      const upper = inv.id.toUpperCase();
      const got = await svc.call(ops['billing.invoices.get'], upper, staff);
      expect([got.status, got.body.id]).to.deep.equal([200, inv.id]);
      const paid = await svc.call(ops['billing.payments.insert'], paymentBody(upper, 2500), staff);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staff)).body).to.include({ status: 'paid', amount_remaining: 0 });
      expect(await svc.app.knex('es_events').where('stream_id', 'like', `%${upper}%`).count({ n: '*' }).first().then((r) => Number(r?.n))).to.equal(0);
    });

    it("the console's history page shows the API's 400 for an as_of it cannot read, not a 500 or another instant", async () => {
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
      for (const asOf of ['2026-13-01T10:00', '2026-02-30T10:00', '0000-01-01', 'yesterday']) {
        const page = await web.get(`/console/history?type=customer&id=${acme.customerId}&as_of=${encodeURIComponent(asOf)}`);
        expect(page.status, `${asOf}: ${page.html.slice(0, 300)}`).to.equal(400);
        expect(page.html, asOf).to.contain('as_of');
      }
      expect((await web.get(`/console/history?type=customer&id=${acme.customerId}&as_of=2026-03-01`)).status).to.equal(200);
    });
  });
}
