// Adding a card in Chromium through the sandbox provider's hosted page: start over the API, follow next_action.url, return to return_url.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { ops } from '../support/ops.ts';
import { TEST_CARDS } from '../../src/payments/sandbox.ts';

for (const backend of backends()) {
  describe(`payment-method setup in Chromium (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let customerId: string;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend, { selfUrl: true }), launchBrowser()]);
      owner = await svc.signUp({ name: 'Card Garage' });
      customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Card Garage Ltd', email: 'ap@card.example', currency: 'GBP' }, owner.token)).body.id;
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

    // Starts a setup over the API and opens its next action in the browser.
    async function startAndOpen(): Promise<{ id: string; returnUrl: string }> {
      const returnUrl = `${svc.url}/?setup=returned`;
      const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: customerId, return_url: returnUrl }, owner.token);
      expect(setup.body.status).to.equal('requires_action');
      const next = setup.body.next_action;
      if (next?.type !== 'redirect') throw new Error('expected a redirect next action');
      expect(next.return_url).to.equal(returnUrl);
      await page.goto(next.url);
      return { id: setup.body.id, returnUrl };
    }

    async function enterCard(number: string) {
      await page.getByLabel('Card number').fill(number);
      await page.getByLabel('Expiry').fill('12/30');
      await page.getByLabel('CVC').fill('123');
      await page.getByRole('button', { name: 'Save card' }).click();
    }

    it('the succeeding card: back at return_url, get reports succeeded and the list shows the card with automatic collection on', async () => {
      const { id, returnUrl } = await startAndOpen();
      await page.getByRole('heading', { name: 'Save a card (sandbox)' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
      await enterCard(TEST_CARDS.succeeds);
      await page.waitForURL(returnUrl);
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id }, owner.token);
      expect(got.body).to.include({ status: 'succeeded', next_action: null });
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token);
      expect(list.body.items.map((m) => [m.brand, m.last4, m.is_default])).to.deep.equal([['visa', '4242', true]]);
      expect(list.body.collection.auto_collection).to.equal(true);
    });

    it('the declining card gives failed', async () => {
      const { id, returnUrl } = await startAndOpen();
      await enterCard(TEST_CARDS.declined);
      await page.waitForURL(returnUrl);
      const got = await svc.call(ops['billing.payment-method-setups.get'], { id }, owner.token);
      expect(got.body.status).to.equal('failed');
      expect(got.body.failure?.code).to.equal('card_declined');
    });

    it('the 3-D-Secure-like card needs the extra step before it succeeds', async () => {
      const { id, returnUrl } = await startAndOpen();
      await enterCard(TEST_CARDS.requiresAction);
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id }, owner.token)).body.status).to.equal('requires_action');
      await page.getByRole('button', { name: 'Complete authentication' }).click();
      await page.waitForURL(returnUrl);
      expect((await svc.call(ops['billing.payment-method-setups.get'], { id }, owner.token)).body.status).to.equal('succeeded');
      const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: customerId }, owner.token);
      expect(list.body.items.map((m) => m.last4)).to.deep.equal(['4242', '3155']);
    });
  });
}
