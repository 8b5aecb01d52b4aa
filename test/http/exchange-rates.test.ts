// billing.currency-exchange-rates.*: staff record rates as decimal strings; list gives the latest per pair for a target at `as_of`.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { platformStaff } from '../support/catalogue.ts';

for (const backend of backends()) {
  describe(`exchange rates over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    const streamEvents = async (stream: string) => (await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    before(async () => {
      svc = await startService(backend);
      staff = await platformStaff(svc);
    });
    after(async () => svc?.close());

    it('records a rate and answers it exactly as sent: decimal strings never pass through a float', async () => {
      for (const rate of ['1.23456789', '123456789012.123456789012345678', '0.000000000000000001']) {
        const res = await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'USD', target: 'JPY', rate, as_of: '2026-01-01T00:00:00Z', source: 'Test' }, staff);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body).to.deep.equal({ base: 'USD', target: 'JPY', rate, as_of: '2026-01-01T00:00:00.000Z', source: 'Test' });
        const listed = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'JPY' }, staff);
        expect(listed.body).to.deep.equal([res.body]);
      }
    });

    it('lists the latest rate per pair for a target; as_of asks what applied then', async () => {
      const rec = (base: string, rate: string, as_of: string) => svc.call(ops['billing.currency-exchange-rates.insert'], { base, target: 'GBP', rate, as_of, source: 'ECB' }, staff);
      await rec('EUR', '0.85', '2026-01-01T00:00:00Z');
      await rec('EUR', '0.86', '2026-01-02T00:00:00Z');
      await rec('USD', '0.79', '2026-01-01T12:00:00Z');
      await rec('EUR', '0.99', '2999-01-01T00:00:00Z');
      await svc.call(ops['billing.currency-exchange-rates.insert'], { base: 'EUR', target: 'USD', rate: '1.1', as_of: '2026-01-01T00:00:00Z', source: 'ECB' }, staff);
      const now = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP' }, staff);
      expect(now.body.map((r) => [r.base, r.rate, r.as_of])).to.deep.equal([['EUR', '0.86', '2026-01-02T00:00:00.000Z'], ['USD', '0.79', '2026-01-01T12:00:00.000Z']]);
      const then = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP', as_of: '2026-01-01T06:00:00Z' }, staff);
      expect(then.body.map((r) => [r.base, r.rate])).to.deep.equal([['EUR', '0.85']]);
      expect((await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP', as_of: '2025-12-31T00:00:00Z' }, staff)).body).to.deep.equal([]);
    });

    it('the same rate twice is one event; a different rate for the same as_of corrects it', async () => {
      const body = { base: 'CHF', target: 'EUR', rate: '1.05', as_of: '2026-01-05T00:00:00Z', source: 'SNB' };
      await svc.call(ops['billing.currency-exchange-rates.insert'], body, staff);
      const again = await svc.call(ops['billing.currency-exchange-rates.insert'], { ...body, rate: '1.050' }, staff);
      expect(again.body.rate).to.equal('1.05');
      expect(await streamEvents('exchangerate-CHF_EUR')).to.deep.equal(['ExchangeRateRecorded']);
      await svc.call(ops['billing.currency-exchange-rates.insert'], { ...body, rate: '1.06' }, staff);
      const listed = await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'EUR' }, staff);
      expect(listed.body.filter((r) => r.base === 'CHF').map((r) => r.rate)).to.deep.equal(['1.06']);
    });

    it('is platform staff only (403) and refuses bad rates with 400, writing nothing', async () => {
      const user = await svc.signUp();
      const billingStaff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const body = { base: 'EUR', target: 'GBP', rate: '0.9', as_of: '2026-01-03T00:00:00Z', source: 'x' };
      const before = await eventCount();
      for (const token of [user.token, billingStaff.token]) {
        expect((await svc.call(ops['billing.currency-exchange-rates.insert'], body, token)).status).to.equal(403);
        expect((await svc.call(ops['billing.currency-exchange-rates.list'], { target: 'GBP' }, token)).status).to.equal(403);
      }
      const cases: [unknown, string][] = [
        [{ ...body, rate: 0.9 }, 'invalid_request'],
        [{ ...body, rate: '1e3' }, 'invalid_request'],
        [{ ...body, rate: '-1' }, 'invalid_request'],
        [{ ...body, rate: '0.000' }, 'invalid_rate'],
        [{ ...body, target: 'EUR' }, 'invalid_rate'],
        [{ ...body, base: 'XYZ' }, 'invalid_request'],
        [{ ...body, as_of: 'yesterday' }, 'invalid_request'],
      ];
      for (const [req, code] of cases) {
        const res = await svc.send('billing.currency-exchange-rates.insert', req, staff);
        expect([res.status, res.body.code], JSON.stringify(req)).to.deep.equal([400, code]);
      }
      expect(await eventCount()).to.equal(before);
    });
  });
}
