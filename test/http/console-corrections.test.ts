// The console's side of issue 26 section 5 over HTTP: "Issue correction" under a usage invoice's re-rate preview (reason and
// confirmation, the API's refusal shown), the invoice's corrections, and a revision's impact previewed from the configuration form.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { type ConfiguredSeller, buyer, configuredSeller, pricing } from '../support/configuration.ts';
import { order } from '../support/usage.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`billing console: re-rating corrections (${backend})`, () => {
    let svc: TestService;
    let web: WebClient;
    let c: ConfiguredSeller;
    let early: string;
    let invoiceId: string;
    const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);

    before(async () => {
      svc = await startService(backend, { clock: new TestClock('2026-11-02T09:00:00.000Z') });
      c = await configuredSeller(svc);
      expect((await svc.call(ops['billing.customers.insert'], { name: 'Usage Seller Ltd', email: 'ap@usage.example', currency: 'GBP' }, c.seller.token)).status).to.equal(200);
      early = (await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 } })).id;
      const b = await buyer(svc);
      const orders = [order('OCT-1', c.seller.orgId, b, 10000, '2026-10-05T10:00:00Z'), order('OCT-2', c.seller.orgId, b, 20000, '2026-10-12T10:00:00Z'), order('OCT-3', c.seller.orgId, b, 30000, '2026-10-20T10:00:00Z')];
      expect((await svc.call(ops['billing.usage.insert'], { orders }, c.billingStaff)).status).to.equal(200);
      invoiceId = (await svc.call(ops['billing.invoices.generate'], { subscription_id: c.subscriptionId, period: '2026-10' }, c.billingStaff)).body.id;
      expect((await svc.call(ops['billing.invoices.update'], { id: invoiceId, action: 'finalize' }, c.billingStaff)).status).to.equal(200);
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
    });
    after(async () => svc?.close());

    it('previews a revision\'s impact from the configuration form (nothing recorded), keeping the form filled', async () => {
      const page = await web.get(`/console/configuration?subscription_id=${c.subscriptionId}`);
      const action = `/console/configuration/${c.subscriptionId}/pricing`;
      const before = await events();
      const res = await web.post(action, {
        ...hiddenFields(page.html, action), intent: 'impact', effective_from: '2026-10-10', currency: 'GBP', platform_introduced: '600', pre_existing: '200', minimum_fee: '0',
        supersedes: early, reason: 'Rate agreed late',
      });
      expect(res.status, res.html.slice(0, 500)).to.equal(200);
      expect(res.html).to.contain('Impact of this pricing revision (nothing was recorded)').and.to.contain('+GBP 5.00').and.to.contain(`/console/invoices/${invoiceId}`);
      expect(res.html).to.contain('value="Rate agreed late"');
      expect(await events()).to.equal(before);
    });

    it('issues the correction from the re-rate preview with a reason and a confirmation; the preview then shows nothing left', async () => {
      await pricing(svc, c, { effective_from: '2026-10-10', rates_bps: { platform_introduced: 600, pre_existing: 200 }, supersedes: [early], reason: 'Rate agreed late' });
      const url = `/console/invoices/${invoiceId}`;
      const shown = await web.get(`${url}/rerate`);
      expect(shown.status).to.equal(200);
      expect(shown.html).to.contain('Issue correction').and.to.contain('a draft correction invoice of GBP 5.00');
      const action = `${url}/rerate/apply`;
      const form = hiddenFields(shown.html, action);
      const before = await events();
      const unconfirmed = await web.post(action, { ...form, reason: 'Rate agreed late' });
      expect(unconfirmed.status).to.equal(400);
      const stale = await web.post(action, { ...form, diff_hash: '0'.repeat(64), reason: 'Rate agreed late', confirm: 'yes' });
      expect(stale.status).to.equal(409);
      expect(stale.html).to.contain('rerate_diff_changed');
      expect(await events()).to.equal(before);
      // Each form carries its own idempotency key: a second tab opened on the same diff has another.
      const tab = hiddenFields((await web.get(`${url}/rerate`)).html, action);
      const other = hiddenFields((await web.get(`${url}/rerate`)).html, action);
      expect(tab.diff_hash).to.equal(form.diff_hash);
      const issued = await web.post(action, { ...tab, reason: 'Rate agreed late', confirm: 'yes' });
      expect(issued.status, issued.html.slice(0, 500)).to.equal(303);
      const list = await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: invoiceId }, c.billingStaff);
      expect(list.body.items.map((x) => [x.difference, x.reason])).to.deep.equal([[500, 'Rate agreed late']]);
      const page = await web.get(url);
      expect(page.html).to.contain('Corrections of this invoice').and.to.contain(`/console/invoices/${list.body.items[0]?.correction_invoice_id}`);
      const again = await web.get(`${url}/rerate`);
      expect(again.html).to.contain('No order differs').and.not.to.contain('Issue correction');
      // The same form sent again (a second tab) issues nothing more.
      const twice = await web.post(action, { ...other, reason: 'Rate agreed late', confirm: 'yes' });
      expect(twice.status).to.equal(303);
      expect((await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: invoiceId }, c.billingStaff)).body.items).to.have.length(1);
    });
  });
}
