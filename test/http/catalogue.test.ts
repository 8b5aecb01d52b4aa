// billing.products.*, billing.prices.*, billing.currencies.*: the full path over HTTP (command -> events -> projection -> query).
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type Price, enableCurrency, platformStaff, price, product } from '../support/catalogue.ts';
import { isoCodes } from '../support/iso4217.ts';

for (const backend of backends()) {
  describe(`billing catalogue over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let user: string;
    let billingStaff: string;
    const streamEvents = async (stream: string) => (await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    before(async () => {
      svc = await startService(backend);
      staff = await platformStaff(svc);
      user = (await svc.signUp()).token;
      billingStaff = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
      await enableCurrency(svc, staff, 'GBP');
    });
    after(async () => svc?.close());

    describe('currencies', () => {
      it('lists the ISO 4217 currencies with minor units; GBP is enabled, JPY is not', async () => {
        const all = await svc.call(ops['billing.currencies.list'], {}, user);
        expect(all.status).to.equal(200);
        const byCode = new Map(all.body.map((c) => [c.code, c]));
        expect(byCode.get('GBP')).to.deep.equal({ code: 'GBP', name: 'British Pound', minor_units: 2, enabled_for_billing: true, recorded_minor_units: 2 });
        expect(byCode.get('JPY')).to.deep.equal({ code: 'JPY', name: 'Japanese Yen', minor_units: 0, enabled_for_billing: false, recorded_minor_units: null });
        expect(all.body.map((c) => c.code)).to.deep.equal(isoCodes());
        const enabled = await svc.call(ops['billing.currencies.list'], { enabled_for_billing: true }, user);
        expect(enabled.body.map((c) => c.code)).to.deep.equal(['GBP']);
      });

      it('only platform staff switch a currency; the same switch twice is one event', async () => {
        expect((await svc.call(ops['billing.currencies.update'], { code: 'EUR', enabled_for_billing: true }, user)).status).to.equal(403);
        expect((await svc.call(ops['billing.currencies.update'], { code: 'EUR', enabled_for_billing: true }, billingStaff)).status).to.equal(403);
        const on = await svc.call(ops['billing.currencies.update'], { code: 'EUR', enabled_for_billing: true }, staff);
        expect(on.body).to.deep.equal({ code: 'EUR', name: 'Euro', minor_units: 2, enabled_for_billing: true, recorded_minor_units: 2 });
        const again = await svc.call(ops['billing.currencies.update'], { code: 'EUR', enabled_for_billing: true }, staff);
        expect(again.body).to.deep.equal(on.body);
        expect(await streamEvents('currency-EUR')).to.deep.equal(['CurrencyBillingChanged']);
        const off = await svc.call(ops['billing.currencies.update'], { code: 'EUR', enabled_for_billing: false }, staff);
        expect(off.body.enabled_for_billing).to.equal(false);
        const bad = await svc.send('billing.currencies.update', { code: 'XYZ', enabled_for_billing: true }, staff);
        expect(bad.status).to.equal(400);
        expect(bad.body.code).to.equal('invalid_request');
      });
    });

    describe('products', () => {
      it('staff create, read, rename and archive a product; org users read it', async () => {
        const created = await svc.call(ops['billing.products.insert'], { name: 'Parts search', description: 'Search every parts catalogue', metadata: { sku: 'PS' } }, staff);
        expect(created.status).to.equal(200);
        expect(created.body).to.include({ name: 'Parts search', description: 'Search every parts catalogue', active: true, created_at: svc.clock.now().toISOString() });
        expect((await svc.call(ops['billing.products.get'], created.body.id, user)).body).to.deep.equal(created.body);
        svc.clock.advance(1000);
        const archived = await svc.call(ops['billing.products.update'], { id: created.body.id, active: false, description: null }, staff);
        expect(archived.body).to.deep.equal({ ...created.body, active: false, description: null, updated_at: svc.clock.now().toISOString() });
        const same = await svc.call(ops['billing.products.update'], { id: created.body.id, active: false }, staff);
        expect(same.body).to.deep.equal(archived.body);
        expect(await streamEvents(`product-${created.body.id}`)).to.deep.equal(['ProductCreated', 'ProductUpdated']);
        const inactive = await svc.call(ops['billing.products.list'], { active: false }, user);
        expect(inactive.body.items.map((p) => p.id)).to.deep.equal([created.body.id]);
      });

      it('org users and billing staff cannot write products (403, nothing written); unknown ids are 404', async () => {
        const before = await eventCount();
        expect((await svc.call(ops['billing.products.insert'], { name: 'Nope' }, user)).status).to.equal(403);
        expect((await svc.call(ops['billing.products.insert'], { name: 'Nope' }, billingStaff)).status).to.equal(403);
        expect((await svc.call(ops['billing.products.insert'], { name: 'Nope' }, null)).status).to.equal(401);
        expect(await eventCount()).to.equal(before);
        const missing = await svc.call(ops['billing.products.get'], '0190c6a2-0000-7000-8000-000000000000', user);
        expect(missing.status).to.equal(404);
        expect(missing.body.code).to.equal('product_not_found');
        const update = await svc.call(ops['billing.products.update'], { id: '0190c6a2-0000-7000-8000-000000000000', name: 'X' }, staff);
        expect(update.body.code).to.equal('product_not_found');
      });
    });

    describe('prices', () => {
      it('creates a price for an active product; get and list answer the same; org users read it', async () => {
        const p = await product(svc, staff);
        const created = await svc.call(ops['billing.prices.insert'], {
          product_id: p, currency: 'GBP', unit_amount: 4999, type: 'recurring', recurring: { interval: 'month' }, nickname: 'Monthly', lookup_key: 'pro_monthly', metadata: { tier: 'pro' },
        }, staff);
        expect(created.status).to.equal(200);
        expect(created.body).to.deep.include({
          product_id: p, currency: 'GBP', unit_amount: 4999, type: 'recurring', recurring: { interval: 'month' }, active: true,
          nickname: 'Monthly', lookup_key: 'pro_monthly', metadata: { tier: 'pro' }, created_at: svc.clock.now().toISOString(),
        });
        expect((await svc.call(ops['billing.prices.get'], created.body.id, user)).body).to.deep.equal(created.body);
        const listed = await svc.call(ops['billing.prices.list'], { product: p }, user);
        const { metadata: _m, updated_at: _u, ...item } = created.body;
        expect(listed.body.items).to.deep.equal([item]);
      });

      it('refuses an unknown or archived product, a disabled or unknown currency, bad amounts and bad types with 4xx, writing nothing', async () => {
        const p = await product(svc, staff);
        const archived = await product(svc, staff, 'Old plan');
        await svc.call(ops['billing.products.update'], { id: archived, active: false }, staff);
        const before = await eventCount();
        const body = { product_id: p, currency: 'GBP', unit_amount: 100, type: 'one_time' as const };
        const cases: [unknown, number, string][] = [
          [{ ...body, product_id: '0190c6a2-0000-7000-8000-000000000000' }, 404, 'product_not_found'],
          [{ ...body, product_id: archived }, 409, 'product_archived'],
          [{ ...body, currency: 'JPY' }, 400, 'currency_not_enabled'],
          [{ ...body, currency: 'XYZ' }, 400, 'invalid_request'],
          [{ ...body, unit_amount: 0 }, 400, 'invalid_amount'],
          [{ ...body, unit_amount: 0, type: 'per_unit' }, 400, 'invalid_amount'],
          [{ ...body, unit_amount: -5 }, 400, 'invalid_amount'],
          [{ ...body, unit_amount: 12.5 }, 400, 'invalid_request'],
          [{ ...body, unit_amount: '100' }, 400, 'invalid_request'],
          [{ ...body, type: 'recurring' }, 400, 'invalid_price'],
          [{ ...body, recurring: { interval: 'month' } }, 400, 'invalid_price'],
          [{ ...body, type: 'weekly' }, 400, 'invalid_request'],
          [{ ...body, colour: 'red' }, 400, 'invalid_request'],
        ];
        for (const [req, status, code] of cases) {
          const res = await svc.send('billing.prices.insert', req, staff);
          expect([res.status, res.body.code], JSON.stringify(req)).to.deep.equal([status, code]);
        }
        expect(await eventCount()).to.equal(before);
        expect((await svc.call(ops['billing.prices.list'], { product: p }, user)).body.items).to.deep.equal([]);
        // A free recurring price is allowed (a free plan still grants entitlements).
        expect((await price(svc, staff, p, { unit_amount: 0, type: 'recurring', recurring: { interval: 'year' } })).unit_amount).to.equal(0);
      });

      it('a retried insert with the same Idempotency-Key answers the same price and writes it once', async () => {
        const p = await product(svc, staff);
        const body = { product_id: p, currency: 'GBP', unit_amount: 700, type: 'one_time' as const };
        const first = await svc.call(ops['billing.prices.insert'], body, staff, { 'idempotency-key': 'price-retry-1' });
        const again = await svc.call(ops['billing.prices.insert'], body, staff, { 'idempotency-key': 'price-retry-1' });
        expect(again.status).to.equal(200);
        expect(again.body).to.deep.equal(first.body);
        expect((await svc.call(ops['billing.prices.list'], { product: p }, user)).body.items.map((i) => i.id)).to.deep.equal([first.body.id]);
      });

      it('only platform staff write prices (403, nothing written)', async () => {
        const p = await product(svc, staff);
        const pr = await price(svc, staff, p);
        const before = await eventCount();
        for (const token of [user, billingStaff]) {
          expect((await svc.call(ops['billing.prices.insert'], { product_id: p, currency: 'GBP', unit_amount: 1, type: 'one_time' }, token)).status).to.equal(403);
          expect((await svc.call(ops['billing.prices.update'], { id: pr.id, nickname: 'x' }, token)).status).to.equal(403);
          expect((await svc.call(ops['billing.prices.remove'], pr.id, token)).status).to.equal(403);
        }
        expect(await eventCount()).to.equal(before);
      });

      it('update changes only active, nickname, lookup key and metadata; the amount is immutable', async () => {
        const p = await product(svc, staff);
        const pr = await price(svc, staff, p, { lookup_key: 'old' });
        svc.clock.advance(1000);
        const updated = await svc.call(ops['billing.prices.update'], { id: pr.id, nickname: 'Launch', lookup_key: null, metadata: { a: 'b' } }, staff);
        expect(updated.body).to.deep.equal({ ...pr, nickname: 'Launch', lookup_key: null, metadata: { a: 'b' }, updated_at: svc.clock.now().toISOString() });
        const amount = await svc.send('billing.prices.update', { id: pr.id, unit_amount: 1 }, staff);
        expect([amount.status, amount.body.code]).to.deep.equal([400, 'invalid_request']);
        const same = await svc.call(ops['billing.prices.update'], { id: pr.id, nickname: 'Launch' }, staff);
        expect(same.body).to.deep.equal(updated.body);
        expect(await streamEvents(`price-${pr.id}`)).to.deep.equal(['PriceCreated', 'PriceUpdated']);
        const missing = await svc.call(ops['billing.prices.update'], { id: '0190c6a2-0000-7000-8000-000000000000', active: false }, staff);
        expect([missing.status, missing.body.code]).to.deep.equal([404, 'price_not_found']);
      });

      it('remove archives (still readable, inactive); removing again is a no-op; unknown is 404', async () => {
        const p = await product(svc, staff);
        const pr = await price(svc, staff, p);
        svc.clock.advance(1000);
        const removed = await svc.call(ops['billing.prices.remove'], pr.id, staff);
        expect([removed.status, removed.body]).to.deep.equal([200, {}]);
        expect((await svc.call(ops['billing.prices.get'], pr.id, user)).body).to.deep.equal({ ...pr, active: false, updated_at: svc.clock.now().toISOString() });
        expect((await svc.call(ops['billing.prices.remove'], pr.id, staff)).status).to.equal(200);
        expect(await streamEvents(`price-${pr.id}`)).to.deep.equal(['PriceCreated', 'PriceArchived']);
        const missing = await svc.call(ops['billing.prices.remove'], '0190c6a2-0000-7000-8000-000000000000', staff);
        expect([missing.status, missing.body.code]).to.deep.equal([404, 'price_not_found']);
      });

      it('lists by product, currency, active, type and lookup key, page by page', async () => {
        await enableCurrency(svc, staff, 'JPY');
        const p = await product(svc, staff, 'List plan');
        const made: Price[] = [];
        for (const over of [{ lookup_key: 'a' }, { currency: 'JPY', unit_amount: 500, type: 'per_unit' as const }, { type: 'recurring' as const, recurring: { interval: 'month' as const }, lookup_key: 'a' }, { active: false }]) {
          svc.clock.advance(1000);
          made.push(await price(svc, staff, p, over));
        }
        const ids = async (req: Omit<Parameters<typeof svc.call<(typeof ops)['billing.prices.list']>>[1], 'product'>) =>
          (await svc.call(ops['billing.prices.list'], { product: p, ...req }, user)).body.items.map((i) => i.id);
        const id = (i: number) => made[i]?.id;
        expect(await ids({})).to.deep.equal([0, 1, 2, 3].map(id));
        expect(await ids({ currency: 'JPY' })).to.deep.equal([id(1)]);
        expect(await ids({ active: false })).to.deep.equal([id(3)]);
        expect(await ids({ type: 'recurring' })).to.deep.equal([id(2)]);
        expect(await ids({ lookup_key: 'a' })).to.deep.equal([id(0), id(2)]);
        const first = await svc.call(ops['billing.prices.list'], { product: p, limit: 3 }, user);
        expect(first.body.items.map((i) => i.id)).to.deep.equal([0, 1, 2].map(id));
        const cursor = first.body.pagination?.cursor;
        expect(cursor).to.be.a('string');
        const second = await svc.call(ops['billing.prices.list'], { product: p, limit: 3, cursor }, user);
        expect(second.body.items.map((i) => i.id)).to.deep.equal([id(3)]);
        expect(second.body.pagination).to.equal(null);
      });
    });
  });
}
