// billing.entitlements.*, billing.products.entitlements.*, billing.entitlement-overrides.*, billing.subscriptions.* and
// billing.entitlements.effective.get over HTTP, including suspension for non-payment turning everything off.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type BilledOrg, openInvoice, paymentBody } from '../support/billing.ts';
import { billedOrgLong, signUpLong } from '../support/long-session.ts';
import { settle } from '../support/settle.ts';
import { enableCurrency, price, product } from '../support/catalogue.ts';

const MISSING = '0190c6a2-0000-7000-8000-00000000dead';

for (const backend of backends()) {
  describe(`entitlements over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let billingStaff: string;
    let acme: BilledOrg;
    let other: BilledOrg;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    const streamEvents = async (stream: string) => (await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    const effective = async (token: string, organization_id?: string) => svc.call(ops['billing.entitlements.effective.get'], organization_id ? { organization_id } : {}, token);
    const states = async (token: string, organization_id?: string) =>
      Object.fromEntries((await effective(token, organization_id)).body.entitlements.map((e) => [e.key, `${e.enabled ? 'on' : 'off'}:${e.reason}`]));

    before(async () => {
      svc = await startService(backend, { clock });
      staff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
      billingStaff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
      acme = await billedOrgLong(svc, { payment_terms_days: 30 });
      other = await billedOrgLong(svc);
      await enableCurrency(svc, staff, 'GBP');
    });
    after(async () => svc?.close());

    it('entitlements.insert upserts by key: the same values twice are one event and one state', async () => {
      const body = { key: 'parts.search', name: 'Parts search', description: 'Search parts catalogues' };
      const first = await svc.call(ops['billing.entitlements.insert'], body, staff);
      expect(first.status).to.equal(200);
      expect(first.body).to.deep.equal({ ...body, created_at: clock.now().toISOString(), updated_at: clock.now().toISOString() });
      clock.advance(1000);
      const again = await svc.call(ops['billing.entitlements.insert'], body, staff);
      expect(again.body).to.deep.equal(first.body);
      expect(await streamEvents('entitlement-parts.search')).to.deep.equal(['EntitlementDefined']);
      const renamed = await svc.call(ops['billing.entitlements.insert'], { ...body, name: 'Search' }, staff);
      expect(renamed.body).to.deep.equal({ ...first.body, name: 'Search', updated_at: clock.now().toISOString() });
      for (const [key, name] of [['parts.order', 'Ordering'], ['reports', 'Reports'], ['api', 'API access']] as const) await svc.call(ops['billing.entitlements.insert'], { key, name }, staff);
      const list = await svc.call(ops['billing.entitlements.list'], undefined, staff);
      expect(list.body.map((e) => e.key)).to.deep.equal(['api', 'parts.order', 'parts.search', 'reports']);
    });

    it('entitlements, overrides and product grants are platform staff only (403, nothing written); bad keys are 400', async () => {
      const before = await eventCount();
      for (const token of [acme.token, billingStaff]) {
        expect((await svc.call(ops['billing.entitlements.insert'], { key: 'x', name: 'X' }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.entitlements.list'], undefined, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: acme.orgId, entitlement_key: 'api', mode: 'grant', reason: 'x' }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.entitlement-overrides.list'], { organization_id: acme.orgId }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.entitlement-overrides.remove'], { organization_id: acme.orgId, entitlement_key: 'api' }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.products.entitlements.insert'], { product_id: MISSING, entitlement_key: 'api' }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.products.entitlements.remove'], { product_id: MISSING, entitlement_key: 'api' }, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.subscriptions.insert'], { organization_id: acme.orgId, items: [], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2026-02-01T00:00:00Z' }, token)).status).to.equal(403);
      }
      for (const key of ['Parts', 'a b', '', '-x', 'x'.repeat(101)]) {
        const res = await svc.send('billing.entitlements.insert', { key, name: 'X' }, staff);
        expect([res.status, res.body.code], key).to.deep.equal([400, 'invalid_request']);
      }
      expect(await eventCount()).to.equal(before);
    });

    it('products.entitlements relate a product to an existing entitlement once; remove needs the relation', async () => {
      const p = await product(svc, staff, 'Grants');
      const rel = { product_id: p, entitlement_key: 'reports' };
      expect((await svc.call(ops['billing.products.entitlements.insert'], rel, staff)).body).to.deep.equal({});
      expect((await svc.call(ops['billing.products.entitlements.insert'], rel, staff)).status).to.equal(200);
      expect((await svc.call(ops['billing.products.get'], p, acme.token)).body.entitlements).to.deep.equal(['reports']);
      const before = await eventCount();
      const unknown = await svc.call(ops['billing.products.entitlements.insert'], { product_id: p, entitlement_key: 'nope' }, staff);
      expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'entitlement_not_found']);
      const noProduct = await svc.call(ops['billing.products.entitlements.insert'], { product_id: MISSING, entitlement_key: 'reports' }, staff);
      expect([noProduct.status, noProduct.body.code]).to.deep.equal([404, 'product_not_found']);
      const notRelated = await svc.call(ops['billing.products.entitlements.remove'], { product_id: p, entitlement_key: 'api' }, staff);
      expect([notRelated.status, notRelated.body.code]).to.deep.equal([404, 'product_entitlement_not_found']);
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.products.entitlements.remove'], rel, staff)).body).to.deep.equal({});
      expect((await svc.call(ops['billing.products.get'], p, acme.token)).body.entitlements).to.deep.equal([]);
      expect(await streamEvents(`product-${p}`)).to.deep.equal(['ProductCreated', 'ProductEntitlementAdded', 'ProductEntitlementRemoved']);
    });

    it('overrides upsert by organization and entitlement; bad input is 4xx and writes nothing; remove deletes', async () => {
      const body = { organization_id: other.orgId, entitlement_key: 'api', mode: 'grant' as const, reason: 'Pilot', expires_at: '2026-06-01T00:00:00Z' };
      const set = await svc.call(ops['billing.entitlement-overrides.insert'], body, staff);
      expect(set.status).to.equal(200);
      expect(set.body).to.deep.include({ organization_id: other.orgId, entitlement_key: 'api', mode: 'grant', reason: 'Pilot', expires_at: '2026-06-01T00:00:00.000Z' });
      const id = set.body.id;
      clock.advance(1000);
      expect((await svc.call(ops['billing.entitlement-overrides.insert'], { ...body, expires_at: '2026-06-01T00:00:00.000Z' }, staff)).body).to.deep.equal(set.body);
      expect(await streamEvents(`entitlementoverride-${id}`)).to.deep.equal(['EntitlementOverrideSet']);
      const revoke = await svc.call(ops['billing.entitlement-overrides.insert'], { ...body, mode: 'revoke', expires_at: null, reason: 'Misuse' }, staff);
      expect(revoke.body).to.deep.equal({ ...set.body, mode: 'revoke', expires_at: null, reason: 'Misuse', updated_at: clock.now().toISOString() });
      const before = await eventCount();
      const cases: [unknown, number, string][] = [
        [{ ...body, organization_id: MISSING }, 404, 'organization_not_found'],
        [{ ...body, entitlement_key: 'nope' }, 404, 'entitlement_not_found'],
        [{ ...body, expires_at: '2026-01-01T00:00:00Z' }, 400, 'invalid_override'],
        [{ ...body, reason: '' }, 400, 'invalid_request'],
        [{ ...body, reason: undefined }, 400, 'invalid_request'],
        [{ ...body, mode: 'maybe' }, 400, 'invalid_request'],
      ];
      for (const [req, status, code] of cases) {
        const res = await svc.send('billing.entitlement-overrides.insert', req, staff);
        expect([res.status, res.body.code], JSON.stringify(req)).to.deep.equal([status, code]);
      }
      expect(await eventCount()).to.equal(before);
      expect((await svc.call(ops['billing.entitlement-overrides.list'], { organization_id: other.orgId }, staff)).body).to.deep.equal([revoke.body]);
      expect((await svc.call(ops['billing.entitlement-overrides.remove'], { organization_id: other.orgId, entitlement_key: 'api' }, staff)).body).to.deep.equal({});
      expect((await svc.call(ops['billing.entitlement-overrides.list'], { organization_id: other.orgId }, staff)).body).to.deep.equal([]);
      const twice = await svc.call(ops['billing.entitlement-overrides.remove'], { organization_id: other.orgId, entitlement_key: 'api' }, staff);
      expect([twice.status, twice.body.code]).to.deep.equal([404, 'entitlement_override_not_found']);
    });

    it('subscriptions: staff subscribe an organization to active prices; bad items are 4xx; org users list only their own', async () => {
      const p = await product(svc, staff, 'Sub plan');
      const pr = await price(svc, staff, p, { type: 'recurring', recurring: { interval: 'month' }, unit_amount: 1000 });
      const archived = await price(svc, staff, p);
      await svc.call(ops['billing.prices.remove'], archived.id, staff);
      const period = { current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2026-02-01T00:00:00Z' };
      const before = await eventCount();
      const cases: [unknown, number, string][] = [
        [{ organization_id: other.orgId, items: [{ price_id: pr.id, quantity: -1 }], ...period }, 400, 'invalid_quantity'],
        [{ organization_id: other.orgId, items: [{ price_id: pr.id, quantity: 1.5 }], ...period }, 400, 'invalid_request'],
        [{ organization_id: other.orgId, items: [{ price_id: archived.id, quantity: 1 }], ...period }, 409, 'price_inactive'],
        [{ organization_id: other.orgId, items: [{ price_id: MISSING, quantity: 1 }], ...period }, 404, 'price_not_found'],
        [{ organization_id: MISSING, items: [{ price_id: pr.id, quantity: 1 }], ...period }, 404, 'organization_not_found'],
        [{ organization_id: other.orgId, items: [], ...period }, 400, 'invalid_subscription'],
        [{ organization_id: other.orgId, items: [{ price_id: pr.id, quantity: 1 }], current_period_start: period.current_period_end, current_period_end: period.current_period_start }, 400, 'invalid_subscription'],
      ];
      for (const [req, status, code] of cases) {
        const res = await svc.send('billing.subscriptions.insert', req, staff);
        expect([res.status, res.body.code], JSON.stringify(req)).to.deep.equal([status, code]);
      }
      expect(await eventCount()).to.equal(before);
      const sub = await svc.call(ops['billing.subscriptions.insert'], { organization_id: other.orgId, items: [{ price_id: pr.id, quantity: 3 }], ...period }, staff);
      expect(sub.status).to.equal(200);
      expect(sub.body).to.deep.include({ organization_id: other.orgId, status: 'active', current_period_start: '2026-01-01T00:00:00.000Z', current_period_end: '2026-02-01T00:00:00.000Z' });
      expect((await svc.call(ops['billing.subscriptions.list'], {}, other.token)).body).to.deep.equal([sub.body]);
      expect((await svc.call(ops['billing.subscriptions.list'], {}, acme.token)).body).to.deep.equal([]);
      expect((await svc.call(ops['billing.subscriptions.list'], { organization_id: other.orgId }, acme.token)).status).to.equal(403);
      expect((await svc.call(ops['billing.subscriptions.list'], { organization_id: other.orgId }, staff)).body).to.deep.equal([sub.body]);
      const canceled = await svc.call(ops['billing.subscriptions.update'], { id: sub.body.id, status: 'canceled' }, staff);
      expect(canceled.body.status).to.equal('canceled');
      const again = await svc.call(ops['billing.subscriptions.update'], { id: sub.body.id, status: 'active' }, staff);
      expect([again.status, again.body.code]).to.deep.equal([409, 'subscription_canceled']);
    });

    it('effective entitlements: products of active subscriptions, plus grants, minus revokes, expired overrides ignored; each says why', async () => {
      const p = await product(svc, staff, 'Effective plan');
      await svc.call(ops['billing.products.entitlements.insert'], { product_id: p, entitlement_key: 'parts.search' }, staff);
      await svc.call(ops['billing.products.entitlements.insert'], { product_id: p, entitlement_key: 'parts.order' }, staff);
      const pr = await price(svc, staff, p, { type: 'recurring', recurring: { interval: 'month' }, unit_amount: 0 });
      expect(await states(acme.token)).to.deep.equal({ api: 'off:not_granted', 'parts.order': 'off:not_granted', 'parts.search': 'off:not_granted', reports: 'off:not_granted' });
      await svc.call(ops['billing.subscriptions.insert'], { organization_id: acme.orgId, items: [{ price_id: pr.id, quantity: 1 }], current_period_start: '2026-01-01T00:00:00Z', current_period_end: '2026-02-01T00:00:00Z' }, staff);
      await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: acme.orgId, entitlement_key: 'parts.order', mode: 'revoke', reason: 'Dispute' }, staff);
      await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: acme.orgId, entitlement_key: 'api', mode: 'grant', reason: 'Trial', expires_at: '2026-01-10T00:00:00Z' }, staff);
      const got = await effective(acme.token);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.include({ organization_id: acme.orgId, suspended: false, as_of: clock.now().toISOString() });
      expect(got.body.entitlements.find((e) => e.key === 'parts.search')).to.deep.equal({ key: 'parts.search', name: 'Search', enabled: true, reason: 'product', products: [p], override: null });
      expect(await states(acme.token)).to.deep.equal({ api: 'on:granted', 'parts.order': 'off:revoked', 'parts.search': 'on:product', reports: 'off:not_granted' });
      // Staff read any organization; an org user only its own.
      expect(await states(staff, acme.orgId)).to.deep.equal(await states(acme.token));
      expect((await effective(other.token, acme.orgId)).status).to.equal(403);
      expect((await effective(staff, MISSING)).body.code).to.equal('organization_not_found');
      // The trial grant expires.
      clock.set('2026-01-10T00:00:00.000Z');
      expect((await states(acme.token)).api).to.equal('off:not_granted');
    });

    it('suspension for non-payment turns every effective entitlement off; paying and the next pass restore them', async () => {
      const inv = await openInvoice(svc, billingStaff, acme.customerId, [10000]); // issued 2026-01-10, due 2026-02-09, suspended from 2026-02-23
      const before = await states(acme.token);
      expect(before['parts.search']).to.equal('on:product');
      clock.set('2026-02-24T09:00:00.000Z');
      await settle(svc);
      await svc.app.workers.runOnce();
      await settle(svc);
      const suspended = await effective(acme.token);
      expect(suspended.body.suspended).to.equal(true);
      expect(suspended.body.entitlements.map((e) => `${e.enabled}:${e.reason}`)).to.deep.equal(Array(4).fill('false:suspended'));
      const paid = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 10000, { received_on: '2026-02-24' }), billingStaff);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      await settle(svc);
      await svc.app.workers.runOnce();
      await settle(svc);
      expect(await states(acme.token)).to.deep.equal(before);
    });
  });
}
