// The console's usage page over HTTP (issue 26): a month's orders with their billing state; an unrateable order refuses
// generation until staff hold it; the held order is listed with why, replaced with a reason from the page, and billed on
// a supplementary invoice; a void needs a reason; Needs attention links here.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { ops } from '../support/ops.ts';
import { billingStaff } from '../support/billing.ts';
import { type Seller, longPlatformStaff, order, pricing, sellerWithSubscription } from '../support/usage.ts';
import { settle } from '../support/settle.ts';

for (const backend of backends()) {
  describe(`billing console: usage of a month (${backend})`, () => {
    let svc: TestService;
    let web: WebClient;
    let staff: string;
    let seller: Seller;
    const clock = new TestClock('2026-02-27T12:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      seller = await sellerWithSubscription(svc, { platform: await longPlatformStaff(svc) });
      await pricing(svc, staff, seller.subscriptionId, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 50 });
      const buyer = (await svc.signUp()).orgId;
      const res = await svc.call(ops['billing.usage.insert'], { orders: [order('WEB-1', seller.orgId, buyer, 1000, '2026-02-03T00:00:00Z'), order('WEB-2', seller.orgId, buyer, 2000, '2026-02-04T00:00:00Z', 'EUR')] }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      clock.set('2026-03-02T00:00:00.000Z');
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
    });
    after(async () => svc?.close());

    it('holds the unrateable order, replaces it with a reason, and bills it on a supplementary invoice', async () => {
      const url = `/console/usage?subscription_id=${seller.subscriptionId}&period=2026-02`;
      const page = await web.get(url);
      expect(page.status).to.equal(200);
      expect(page.html).to.contain('WEB-1').and.to.contain('WEB-2').and.to.contain('unbilled');

      const gen = `/console/usage/${seller.subscriptionId}/2026-02/generate`;
      const refused = await web.post(gen, hiddenFields(page.html, gen));
      expect(refused.status).to.equal(409);
      expect(refused.html).to.contain('usage_unrateable');
      const held = await web.post(gen, { ...hiddenFields(page.html, gen), hold_unrateable: 'true' });
      expect(held.status).to.equal(303);
      const regular = held.headers.get('location')?.split('/').pop() ?? '';
      expect((await svc.call(ops['billing.invoices.get'], regular, staff)).body.total).to.equal(50);

      const heldPage = await web.get(`${url}&billing_state=held`);
      expect(heldPage.html).to.contain('WEB-2').and.to.contain('currency_mismatch').and.not.to.contain('WEB-1');
      // Needs attention links to this page.
      await settle(svc);
      const attention = await web.get('/console/attention');
      expect(attention.html).to.contain(`/console/usage?subscription_id=${seller.subscriptionId}&amp;period=2026-02&amp;billing_state=held`);

      const voidAction = `/console/usage/${seller.subscriptionId}/2026-02/void`;
      const noReason = await web.post(voidAction, { ...hiddenFields(heldPage.html, voidAction), order_id: 'WEB-2', reason: ' ' });
      expect(noReason.status).to.equal(400);
      const replace = `/console/usage/${seller.subscriptionId}/2026-02/replace`;
      const badAmount = await web.post(replace, { ...hiddenFields(heldPage.html, replace), order_id: 'WEB-2', amount: 'twenty', currency: 'GBP', reason: 'Sent in EUR' });
      expect(badAmount.status).to.equal(400);
      const replaced = await web.post(replace, { ...hiddenFields(heldPage.html, replace), order_id: 'WEB-2', amount: '20.00', currency: 'GBP', reason: 'Sent in EUR' });
      expect(replaced.status).to.equal(303);
      const listed = await svc.call(ops['billing.usage.list'], { order_id: 'WEB-2' }, staff);
      expect(listed.body.items[0]).to.deep.include({ revision: 1, billing_state: 'unbilled', amount: { amount: 2000, currency: 'GBP' } });

      const again = await web.get(url);
      const supplement = await web.post(gen, hiddenFields(again.html, gen));
      expect(supplement.status).to.equal(303);
      const supplementId = supplement.headers.get('location')?.split('/').pop() ?? '';
      expect(supplementId).to.not.equal(regular);
      expect((await svc.call(ops['billing.invoices.get'], supplementId, staff)).body.total).to.equal(50);
      const last = await web.get(url);
      expect(last.html).to.contain(`/console/invoices/${regular}`).and.to.contain(`/console/invoices/${supplementId}`).and.to.contain('Sent in EUR');
    });

    it('an invoiced order is replaced from the page too; staff land on its invoice\'s re-rating, which shows the difference', async () => {
      const url = `/console/usage?subscription_id=${seller.subscriptionId}&period=2026-02`;
      const page = await web.get(url);
      expect(page.html).to.contain('Fix WEB-1 (invoiced: the difference is billed by re-rating its invoice)');
      const replace = `/console/usage/${seller.subscriptionId}/2026-02/replace`;
      const replaced = await web.post(replace, { ...hiddenFields(page.html, replace), order_id: 'WEB-1', amount: '40.00', currency: 'GBP', reason: 'Amount was 40.00' });
      expect(replaced.status).to.equal(303);
      const invoiceId = (await svc.call(ops['billing.usage.list'], { order_id: 'WEB-1' }, staff)).body.items[0]?.invoice_id ?? '';
      expect(replaced.headers.get('location')).to.equal(`/console/invoices/${invoiceId}/rerate`);
      const rerate = await web.get(`/console/invoices/${invoiceId}/rerate`);
      expect(rerate.status).to.equal(200);
      expect(rerate.html).to.contain('WEB-1');
      // Needs attention lists the invoice until it is corrected, linking to that page.
      const attention = await web.get('/console/attention?kind=usage_correction_due');
      expect(attention.html).to.contain(`/console/invoices/${invoiceId}/rerate`).and.to.contain('Usage corrected after invoicing');
    });
  });
}
