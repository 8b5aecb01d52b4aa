// Paying an overdue invoice in Chromium: overdue status -> its payment_link -> sign in -> a new card on the sandbox's hosted page.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { ops } from '../support/ops.ts';
import { billingStaff, openInvoice, type Invoice } from '../support/billing.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';
import { providerCharges, saveCard } from '../support/payer.ts';

const DAY = 86_400_000;

for (const backend of backends()) {
  describe(`paying an overdue invoice in Chromium (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let token: string;
    let invoice: Invoice;
    const overdue = async () => (await svc.call(ops['billing.invoices.overdue-status.get'], {}, token)).body;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend, { selfUrl: true }), launchBrowser()]);
      const staff = await billingStaff(svc);
      owner = await svc.signUp({ name: 'Late Garage' });
      token = (await createSession(svc.app.knex, { userId: owner.userId, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 * 366 })).token;
      const customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Late Garage Ltd', email: 'ap@late.example', currency: 'GBP', payment_terms_days: 7 }, token)).body.id;
      invoice = await openInvoice(svc, staff, customerId, [15000, 2550]);
      svc.clock.advance(10 * DAY);
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });
    beforeEach(async () => {
      context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      page = await context.newPage();
    });
    afterEach(async () => context?.close());

    // Follows the payment link of overdue status, signs in, and sends the invoice's form with "a new card".
    async function payWithNewCard(number: string): Promise<void> {
      const status = await overdue();
      expect(status.past_due).to.equal(true);
      await page.goto(status.payment_url ?? '');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Pay your invoices' }).waitFor();
      const form = page.locator(`form[data-invoice="${invoice.id}"]`);
      await form.getByText(invoice.number ?? '').waitFor();
      await form.getByLabel("A new card (on the sandbox provider's page)").check();
      await form.getByRole('button', { name: 'Pay £175.50' }).click();
      await page.getByRole('heading', { name: 'Pay £175.50 (sandbox)' }).waitFor();
      await page.getByLabel('Card number').fill(number);
      await page.getByLabel('Expiry').fill('12/30');
      await page.getByLabel('CVC').fill('123');
      await page.getByRole('button', { name: 'Pay £175.50' }).click();
    }

    it('the declining card: a clear error, nothing recorded, still past due', async () => {
      await payWithNewCard(TEST_CARDS.declined);
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      expect(await page.getByRole('alert').textContent()).to.match(/The card was declined\. Nothing was charged/);
      const got = await svc.call(ops['billing.invoices.get'], invoice.id, token);
      expect(got.body).to.include({ status: 'open', amount_paid: 0, amount_remaining: 17550 });
      expect(await svc.app.knex('es_events').where({ stream_id: `invoice-${invoice.id}`, type: 'PaymentRecorded' }).count({ n: '*' }).then((r) => Number(r[0]?.n))).to.equal(0);
      expect((await overdue()).past_due).to.equal(true);
    });

    it('the succeeding card: the invoice is paid by the provider\'s notification and overdue status is clear', async () => {
      await payWithNewCard(TEST_CARDS.succeeds);
      await page.getByRole('heading', { name: 'Payment received' }).waitFor();
      expect(await page.getByRole('status').textContent()).to.contain('£175.50 was paid');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
      expect((await svc.call(ops['billing.invoices.get'], invoice.id, token)).body).to.include({ status: 'paid', amount_remaining: 0 });
      const status = await overdue();
      expect(status).to.include({ past_due: false });
      expect(status.invoices).to.deep.equal([]);
      await page.getByRole('link', { name: 'Back to your invoices' }).click();
      await page.getByText('Nothing to pay').waitFor();
    });

    it('ten tabs of the payment page paying with the saved card at once: one charge at the provider, one payment; the other tabs are refused (a payment in progress, or nothing left to pay)', async () => {
      const staff = await billingStaff(svc);
      const payer = await svc.signUp({ name: 'Ten Tabs Garage' });
      const payerToken = (await createSession(svc.app.knex, { userId: payer.userId, organizationId: payer.orgId, now: svc.clock.now(), ttlHours: 24 * 366 })).token;
      const customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Ten Tabs Ltd', email: 'ap@tabs.example', currency: 'GBP', payment_terms_days: 7 }, payerToken)).body.id;
      await saveCard(svc, { customerId, token: payerToken }, TEST_CARDS.succeeds);
      const inv = await openInvoice(svc, staff, customerId, [9900]);
      await page.goto(`${svc.url}/billing/pay/${customerId}`);
      await page.getByLabel('Email').fill(payer.email);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Pay your invoices' }).waitFor();
      const tabs = [page, ...(await Promise.all(Array.from({ length: 9 }, () => context.newPage())))];
      await Promise.all(tabs.slice(1).map((t) => t.goto(`${svc.url}/billing/pay/${customerId}`)));
      const buttons = tabs.map((t) => t.locator(`form[data-invoice="${inv.id}"]`).getByRole('button', { name: 'Pay £99.00' }));
      await Promise.all(buttons.map((b) => b.waitFor()));
      // The saved card is preselected (the default method): every tab sends its own form (its own attempt) at once.
      await Promise.all(buttons.map((b) => b.click()));
      const outcomes = await Promise.all(tabs.map(async (t) => {
        const heading = t.getByRole('heading', { name: /^(Payment received|Payment in progress|Nothing to pay)$/ });
        await heading.waitFor();
        return (await heading.textContent()) ?? '';
      }));
      expect((await providerCharges(svc, inv.id)).filter((c) => c.status === 'succeeded')).to.have.length(1);
      const payments = await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staff);
      expect(payments.body.items.map((x) => [x.method, x.amount])).to.deep.equal([['card', 9900]]);
      expect(outcomes.filter((o) => o === 'Payment received')).to.have.length(1);
      for (const t of tabs) {
        if ((await t.getByRole('heading', { name: 'Payment received' }).count()) === 0) expect(await t.getByRole('alert').getAttribute('data-code')).to.be.oneOf(['payment_in_progress', 'invoice_not_payable']);
      }
      expect((await svc.call(ops['billing.invoices.get'], inv.id, payerToken)).body).to.include({ status: 'paid', amount_paid: 9900 });
    });
  });
}
