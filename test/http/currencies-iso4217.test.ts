// Minor units are ISO 4217's over HTTP: what billing.currencies.list says, every enabled currency against ISO, a currency
// enabled before the service followed ISO (its amounts keep their exponent, so it stays off), and IQD amounts with
// three decimals where people read money: the console and the payment page.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { platformStaff, product } from '../support/catalogue.ts';
import { billingStaff, openInvoice } from '../support/billing.ts';
import { WebClient, logIn } from '../support/web.ts';
import { CLDR_DIFFERS, isoCodes, isoExponent } from '../support/iso4217.ts';
import { billingCurrenciesProjection } from '../../src/projections/billing/currencies.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`ISO 4217 minor units over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let billing: string;
    let user: string;
    before(async () => {
      svc = await startService(backend);
      staff = await platformStaff(svc);
      billing = await billingStaff(svc);
      user = (await svc.signUp()).token;
    });
    after(async () => svc?.close());

    it('billing.currencies.list gives ISO minor units, not the runtime ones: IQD 3; HUF, IDR, COP, PKR 2', async () => {
      const all = await svc.call(ops['billing.currencies.list'], {}, user);
      expect(all.status).to.equal(200);
      const byCode = new Map(all.body.map((c) => [c.code, c]));
      expect(byCode.get('IQD')).to.deep.equal({ code: 'IQD', name: 'Iraqi Dinar', minor_units: 3, enabled_for_billing: false, recorded_minor_units: null });
      for (const code of ['HUF', 'IDR', 'COP', 'PKR']) expect(byCode.get(code)?.minor_units, code).to.equal(2);
      for (const [code, minor] of Object.entries(CLDR_DIFFERS)) expect(byCode.get(code)?.minor_units, code).to.equal(minor);
      expect(all.body.map((c) => c.code)).to.deep.equal(isoCodes());
      for (const c of all.body) expect(c.minor_units, c.code).to.equal(isoExponent(c.code));
    });

    it('a currency enabled before the service followed ISO 4217 keeps the exponent its amounts were recorded with, and stays off', async () => {
      // What the service recorded when staff enabled IQD with the runtime's digits (0): no exponent on the event.
      const metadata = { org_id: null, actor: { type: 'staff' as const, id: 'earlier-version' }, request_id: null, correlation_id: null, causation_id: null };
      const data = { code: 'IQD', enabled_for_billing: true, changed_at: svc.clock.now().toISOString() };
      const appended = await svc.app.store.appendToStream('currency-IQD', [{ id: crypto.randomUUID(), type: 'CurrencyBillingChanged', data, metadata }], { expectedRevision: 'no_stream' });
      await svc.app.runner.waitFor(appended.position, [billingCurrenciesProjection], 10_000);
      const iqd = async () => (await svc.call(ops['billing.currencies.list'], {}, user)).body.find((c) => c.code === 'IQD');
      expect(await iqd()).to.deep.equal({ code: 'IQD', name: 'Iraqi Dinar', minor_units: 3, enabled_for_billing: false, recorded_minor_units: 0 });

      const enable = await svc.call(ops['billing.currencies.update'], { code: 'IQD', enabled_for_billing: true }, staff);
      expect(enable.status).to.equal(409);
      expect(enable.body.code).to.equal('currency_exponent_changed');
      const productId = await product(svc, staff, 'Dinar plan');
      const priced = await svc.call(ops['billing.prices.insert'], { product_id: productId, currency: 'IQD', unit_amount: 5000, type: 'one_time' }, staff);
      expect(priced.status).to.equal(400);
      expect(priced.body.code).to.equal('currency_not_enabled');
      const pricing = await svc.call(ops['billing.currencies.list'], { enabled_for_billing: true }, user);
      expect(pricing.body.map((c) => c.code)).not.to.include('IQD');

      const off = await svc.call(ops['billing.currencies.update'], { code: 'IQD', enabled_for_billing: false }, staff);
      expect(off.status).to.equal(200);
      expect(off.body).to.include({ enabled_for_billing: false, recorded_minor_units: 0, minor_units: 3 });
    });

    it('every currency enabled for billing has the exponent ISO 4217 gives it, recorded as such', async () => {
      const fresh = (await svc.call(ops['billing.currencies.list'], {}, user)).body.filter((c) => c.recorded_minor_units === null);
      for (const c of fresh) {
        const r = await svc.call(ops['billing.currencies.update'], { code: c.code, enabled_for_billing: true }, staff);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
      }
      const enabled = await svc.call(ops['billing.currencies.list'], { enabled_for_billing: true }, user);
      expect(enabled.body.map((c) => c.code)).to.deep.equal(isoCodes().filter((c) => c !== 'IQD'));
      for (const c of enabled.body) expect([c.code, c.minor_units, c.recorded_minor_units]).to.deep.equal([c.code, isoExponent(c.code), isoExponent(c.code)]);
    });

    it('an IQD amount is shown with three decimals in the console (invoice, customer, statement) and on the payment page', async () => {
      const u = await svc.signUp({ name: 'Baghdad Parts' });
      const customer = await svc.call(ops['billing.customers.insert'], { name: 'Baghdad Parts', email: 'ap@baghdad.example', currency: 'IQD', payment_terms_days: 30 }, u.token);
      expect(customer.status, JSON.stringify(customer.body)).to.equal(200);
      const inv = await openInvoice(svc, billing, customer.body.id, [1_234_567]);
      const iqd = /IQD\s1,234\.567/u;

      const staffUser = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const console = new WebClient(svc.url);
      await logIn(console, staffUser.email, PASSWORD);
      const invoicePage = await console.get(`/console/invoices/${inv.id}`);
      expect(invoicePage.status).to.equal(200);
      expect(invoicePage.html).to.match(iqd);
      expect(invoicePage.html).not.to.match(/IQD\s1,234,567/u);
      const customerPage = await console.get(`/console/customers/${customer.body.id}`);
      expect(customerPage.html).to.match(iqd);
      const statement = await console.get(`/console/customers/${customer.body.id}/statement?from=${svc.clock.now().toISOString().slice(0, 10)}&to=${svc.clock.now().toISOString().slice(0, 10)}`);
      expect(statement.status).to.equal(200);
      expect(statement.html).to.match(iqd);
      // The charts format their axis with the digits the page sends (the browser's own CLDR digits say 0 for IQD).
      expect(statement.html).to.match(/"digits":3/);

      const payer = new WebClient(svc.url);
      await logIn(payer, u.email, PASSWORD);
      const pay = await payer.get(`/billing/pay/${customer.body.id}`);
      expect(pay.status).to.equal(200);
      expect(pay.html).to.match(iqd);
    });
  });
}
