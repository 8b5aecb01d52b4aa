// The console a clerk would choose (issue 28 §3-6), in Chromium: search from the header box, create and edit a customer
// with a refused field, a refused payment that keeps what was typed, and a void that asks for a reason and a ticked box.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { ops } from '../support/ops.ts';
import { openInvoice, paymentBody } from '../support/billing.ts';
import { configuredSeller } from '../support/configuration.ts';
import { settle } from '../support/settle.ts';
import { TestClock } from '../../src/clock.ts';
import { DEMO_PASSWORD, DEMO_STAFF, seedDemo, type DemoSeed } from '../../src/seed.ts';

/** Screenshots for people to look at (git-ignored). */
const OUT = path.resolve(import.meta.dirname, '../../test-results/console');

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill(DEMO_STAFF);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Customers' }).waitFor();
}

/** Full-page screenshots at 1280 and 800 px wide; nothing may run off the side at either. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [1280, 800]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${name} at ${width}px`).to.equal(true);
    await page.screenshot({ path: path.join(OUT, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The words next to a field (its .field-error), found from the field's label (the first field of that label). */
async function errorNextTo(page: Page, label: string): Promise<string> {
  const input = page.getByLabel(label, { exact: true }).first();
  const described = (await input.getAttribute('aria-describedby')) ?? '';
  const id = described.split(' ').find((x) => x.endsWith('-error'));
  if (!id) return '';
  return page.locator(`[id="${id}"]`).innerText();
}

for (const backend of backends()) {
  describe(`console forms, search and lists in Chromium (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let browser: Browser;
    let demo: DemoSeed;
    let context: BrowserContext;
    let page: Page;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend, { clock: new TestClock('2026-11-02T09:00:00.000Z'), env: { SESSION_TTL_HOURS: '2000' } }), launchBrowser()]);
      // The demo without its billing activity: the story below counts every invoice, note and overdue row as its own.
      const seeded = await seedDemo(svc.app, { activity: false });
      if (!seeded) throw new Error('the fresh database was not seeded');
      demo = seeded;
      mkdirSync(OUT, { recursive: true });
      context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      page = await context.newPage();
      await signIn(page, svc.url);
    });
    after(async () => {
      await context?.close();
      await browser?.close();
      await svc?.close();
    });

    it('finds an invoice by its number from the search box of any page', async () => {
      const inv = await openInvoice(svc, demo.staffToken, demo.customerId, [42_000]);
      const number = inv.number ?? '';
      await page.goto(`${svc.url}/console/overdue`);
      await page.getByRole('search').first().getByRole('searchbox').fill(number.toLowerCase());
      await page.getByRole('search').first().getByRole('button', { name: 'Search' }).click();
      const found = page.getByRole('table', { name: 'Invoices found' });
      expect(await found.locator('tbody tr').allInnerTexts()).to.have.length(1);
      expect(await found.innerText()).to.contain(number).and.to.contain('Acme Repairs Ltd').and.to.contain('GBP 420.00');
      await shoot(page, `search-${backend}`);
      await found.getByRole('link', { name: number }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(number) }).waitFor();
    });

    it('creates a customer for an organization found by name, then an edit with a refused email keeps what was typed and says why next to the field', async () => {
      await svc.signUp({ name: 'Brightwater Garage' });
      await page.goto(`${svc.url}/console/customers`);
      await page.getByRole('link', { name: 'New customer' }).click();
      await page.getByLabel('Organization name').fill('brightwater');
      await page.getByRole('button', { name: 'Find organization' }).click();
      await page.getByRole('link', { name: 'Create its customer' }).click();
      await page.getByRole('heading', { name: 'New customer of Brightwater Garage' }).waitFor();
      // Refused first: no name, an email that is not one; both said in words next to their fields, the rest kept.
      await page.getByLabel('Billing email').fill('accounts.brightwater');
      await page.getByLabel('Address line 1').fill('1 Quay Street');
      await page.getByRole('button', { name: 'Create customer' }).click();
      expect(await errorNextTo(page, 'Name on invoices')).to.contain('Fill this in.');
      expect(await errorNextTo(page, 'Billing email')).to.contain('This is not an email address');
      // The address was started, so its missing parts are named too.
      expect(await errorNextTo(page, 'City or town')).to.contain('Fill this in.');
      expect(await page.getByLabel('Address line 1').inputValue()).to.equal('1 Quay Street');
      expect(await page.getByLabel('Billing email').inputValue()).to.equal('accounts.brightwater');
      expect(await page.content()).not.to.contain('Too small');
      await shoot(page, `customer-new-refused-${backend}`);
      await page.getByLabel('Name on invoices').fill('Brightwater Garage Ltd');
      await page.getByLabel('Billing email').fill('accounts@brightwater.example');
      await page.getByLabel('City or town').fill('Bristol');
      await page.getByLabel('Country code').fill('gb');
      await page.getByRole('button', { name: 'Create customer' }).click();
      await page.getByText('Customer created.').waitFor();
      await page.getByRole('heading', { level: 1, name: /Brightwater Garage Ltd/ }).waitFor();
      const customerId = new URL(page.url()).pathname.split('/').pop() ?? '';
      expect((await svc.call(ops['billing.customers.get'], { id: customerId }, demo.staffToken)).body).to.deep.include({ email: 'accounts@brightwater.example', billing_address: { line1: '1 Quay Street', city: 'Bristol', country: 'GB' } });

      await page.getByRole('link', { name: 'Edit customer' }).click();
      await page.getByLabel('Name on invoices').fill('Brightwater Motors Ltd');
      await page.getByLabel('Billing email').fill('not-an-email');
      await page.getByLabel('Payment terms (days)').fill('45');
      await page.getByRole('button', { name: 'Save customer' }).click();
      expect(await errorNextTo(page, 'Billing email')).to.equal('This is not an email address (like name@example.com).');
      expect(await page.getByLabel('Name on invoices').inputValue()).to.equal('Brightwater Motors Ltd');
      expect(await page.getByLabel('Billing email').inputValue()).to.equal('not-an-email');
      expect(await page.getByLabel('Payment terms (days)').inputValue()).to.equal('45');
      expect(await page.getByLabel('Billing email').getAttribute('aria-invalid')).to.equal('true');
      expect((await svc.call(ops['billing.customers.get'], { id: customerId }, demo.staffToken)).body.name).to.equal('Brightwater Garage Ltd');
      await shoot(page, `customer-edit-refused-${backend}`);
      await page.getByLabel('Billing email').fill('ap@brightwater.example');
      await page.getByRole('button', { name: 'Save customer' }).click();
      await page.getByText('Customer saved.').waitFor();
      expect((await svc.call(ops['billing.customers.get'], { id: customerId }, demo.staffToken)).body).to.include({ name: 'Brightwater Motors Ltd', email: 'ap@brightwater.example', payment_terms_days: 45 });
    });

    it('a refused payment keeps the typed amount and reference and says next to the amount what is wrong', async () => {
      const inv = await openInvoice(svc, demo.staffToken, demo.customerId, [138_650]);
      await page.goto(`${svc.url}/console/invoices/${inv.id}`);
      // The common action comes first, the destructive ones last.
      const headings = await page.locator('main h2').allInnerTexts();
      expect(headings[1]).to.equal('Record a payment');
      expect(headings.at(-1)).to.equal('Void or write off');
      await page.getByLabel('Amount (GBP)').first().fill('2000.00');
      await page.getByLabel('Reference').fill('BACS 9911');
      await page.getByRole('button', { name: 'Record payment' }).click();
      expect(await errorNextTo(page, 'Amount (GBP)')).to.equal('More than the GBP 1,386.50 still owed on the invoice.');
      expect(await page.getByLabel('Amount (GBP)').first().inputValue()).to.equal('2000.00');
      expect(await page.getByLabel('Reference').inputValue()).to.equal('BACS 9911');
      await shoot(page, `payment-refused-${backend}`);
      // A reference of spaces: "Fill this in." next to it, not zod's words.
      await page.getByLabel('Amount (GBP)').first().fill('1000.00');
      await page.getByLabel('Reference').fill('   ');
      await page.getByRole('button', { name: 'Record payment' }).click();
      expect(await errorNextTo(page, 'Reference')).to.equal('Fill this in.');
      expect(await page.getByLabel('Amount (GBP)').first().inputValue()).to.equal('1000.00');
      expect(await page.content()).not.to.contain('expected string');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, demo.staffToken)).body.amount_paid).to.equal(0);
    });

    it('void asks for a reason and a ticked confirmation, checked by the server', async () => {
      const inv = await openInvoice(svc, demo.staffToken, demo.customerId, [5_000]);
      await page.goto(`${svc.url}/console/invoices/${inv.id}`);
      // Without the browser's checks, the server still refuses: nothing is voided.
      await page.locator('#void-reason').evaluate((el) => el.removeAttribute('required'));
      await page.locator('#void-confirm').evaluate((el) => el.removeAttribute('required'));
      await page.locator('#void-reason').fill('Raised twice');
      await page.getByRole('button', { name: 'Void invoice' }).click();
      await page.getByRole('alert').filter({ hasText: 'Tick the box to confirm' }).waitFor();
      expect(await page.locator('#void-reason').inputValue()).to.equal('Raised twice');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, demo.staffToken)).body.status).to.equal('open');
      await page.getByRole('checkbox', { name: `Yes, void ${inv.number ?? ''}` }).check();
      await page.getByRole('button', { name: 'Void invoice' }).click();
      await page.getByText('Invoice voided.').waitFor();
      expect((await svc.call(ops['billing.invoices.get'], inv.id, demo.staffToken)).body.status).to.equal('void');
      const events = (await svc.call(ops['billing.history.get'], { subject: { type: 'invoice', id: inv.id } }, demo.staffToken)).body.items;
      expect(events.at(-1)?.reason).to.equal('Raised twice');
    });

    it('lists count their rows and go back and forth, sort by a column, and export CSV with names and decimal amounts, formula-safe', async () => {
      // A customer whose name a spreadsheet would run as a formula, an invoice and a payment whose reference starts with +.
      const u = await svc.signUp({ name: 'Formula Org' });
      const made = await svc.call(ops['billing.customers.insert'], { organization_id: u.orgId, name: '=HYPERLINK("http://x","pay")', email: 'ap@formula.example', currency: 'GBP' }, demo.staffToken);
      expect(made.status).to.equal(200);
      const inv = await openInvoice(svc, demo.staffToken, made.body.id, [123_456]);
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100_050, { reference: '+44 call' }), demo.staffToken)).status).to.equal(200);
      for (const amount of [10_000, 20_000]) await openInvoice(svc, demo.staffToken, demo.customerId, [amount]);
      const all = (await svc.call(ops['billing.invoices.list'], { include_total_count: true, limit: 1 }, demo.staffToken)).body.total_count ?? 0;
      expect(all).to.be.greaterThan(4);

      await page.goto(`${svc.url}/console/invoices?limit=2`);
      const pages = page.getByRole('navigation', { name: 'Pages' });
      expect(await pages.getByRole('status').innerText()).to.equal(`Showing 1–2 of ${all}`);
      expect(await pages.getByRole('link', { name: 'Previous page' }).count()).to.equal(0);
      const first = await page.getByRole('table', { name: 'Invoices' }).locator('tbody tr').allInnerTexts();
      await pages.getByRole('link', { name: 'Next page' }).click();
      expect(await pages.getByRole('status').innerText()).to.equal(`Showing 3–4 of ${all}`);
      await pages.getByRole('link', { name: 'Next page' }).click();
      expect(await pages.getByRole('status').innerText()).to.equal(`Showing 5–${Math.min(6, all)} of ${all}`);
      await pages.getByRole('link', { name: 'Previous page' }).click();
      await pages.getByRole('link', { name: 'Previous page' }).click();
      expect(await pages.getByRole('status').innerText()).to.equal(`Showing 1–2 of ${all}`);
      expect(await page.getByRole('table', { name: 'Invoices' }).locator('tbody tr').allInnerTexts()).to.deep.equal(first);
      // Sorting by a column: the highest total first.
      await page.getByRole('link', { name: 'Total: sort highest first' }).click();
      expect(await page.getByRole('table', { name: 'Invoices' }).locator('tbody tr td:nth-child(6)').first().innerText()).to.equal('GBP 1,386.50');
      await shoot(page, `invoices-list-${backend}`);

      const download = async (link: string) => {
        const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
        return readFileSync(await d.path(), 'utf8').trim().split('\r\n');
      };
      const invoicesCsv = await download('Export invoices (CSV)');
      expect(invoicesCsv).to.have.length(all + 1);
      expect(invoicesCsv.find((l) => l.startsWith(`${inv.number ?? ''},`))).to.match(/^INV-\d{4}-\d{6},"'=HYPERLINK\(""http:\/\/x"",""pay""\)",ap@formula\.example,open,GBP,1234\.56,234\.06,/);
      expect(invoicesCsv.filter((l) => l.includes(',Acme Repairs Ltd,'))).to.have.length(all - 1);
      const paymentsCsv = await download('Export payments (CSV)');
      expect(paymentsCsv[0]).to.equal('Received,Customer,Invoice,Amount,Currency,Method,Reference,Status,Void reason,Recorded (UTC),Payment id,Invoice id,Customer id');
      expect(paymentsCsv[1]).to.match(new RegExp(`^2026-03-10,"'=HYPERLINK\\(""http://x"",""pay""\\)",${inv.number ?? ''},1000\\.50,GBP,bank transfer,'\\+44 call,recorded,,`));

      await page.goto(`${svc.url}/console/customers`);
      const customers = page.getByRole('navigation', { name: 'Pages' });
      const count = (await svc.call(ops['billing.customers.list'], { include_total_count: true, limit: 1 }, demo.staffToken)).body.total_count ?? 0;
      expect(await customers.getByRole('status').innerText()).to.equal(`Showing 1–${Math.min(count, 25)} of ${count}`);
      await shoot(page, `customers-list-${backend}`);
      const customersCsv = await download('Export customers (CSV)');
      expect(customersCsv[0]).to.equal('Name,Email,Status,Currency,Payment terms (days),Created (UTC),Customer id,Organization id');
      expect(customersCsv).to.have.length(count + 1);
      // Sorted by name (the list's order): the formula-looking name sorts first ('=' before letters) and is written safe.
      expect(customersCsv[1]).to.match(/^"'=HYPERLINK\(""http:\/\/x"",""pay""\)",ap@formula\.example,active,GBP,30,/);
      expect(customersCsv.some((l) => l.startsWith('Acme Repairs Ltd,accounts@acme-repairs.example,active,GBP,30,'))).to.equal(true);
    });

    it('the customer page lists subscriptions with links to their configuration, the first figures, and suspension once it happens', async () => {
      const c = await configuredSeller(svc);
      const made = await svc.call(ops['billing.customers.insert'], { name: 'Quayside Parts Ltd', email: 'ap@quayside.example', currency: 'GBP' }, c.seller.token);
      await page.goto(`${svc.url}/console/customers/${made.body.id}`);
      const subs = page.getByRole('table', { name: 'Subscriptions' });
      expect(await subs.innerText()).to.contain('active');
      await subs.getByRole('link', { name: 'Configuration' }).click();
      await page.getByRole('heading', { level: 1, name: /^Configuration: / }).waitFor();
      expect(new URL(page.url()).searchParams.get('subscription_id')).to.equal(c.subscriptionId);
      // Money on the configuration page is typed as decimals: a third decimal is refused next to the field, the rest kept.
      await page.locator('#baseline-from').fill('2026-02-01');
      await page.getByLabel('Monthly exempt amount').fill('500.125');
      await page.locator('#baseline-reason').fill('Agreed in the Q1 review');
      await page.getByRole('button', { name: 'Record baseline' }).click();
      expect(await errorNextTo(page, 'Monthly exempt amount')).to.contain('Enter an amount like 500.00 (GBP), with at most 2 decimals.');
      expect(await page.locator('#baseline-reason').inputValue()).to.equal('Agreed in the Q1 review');
      await page.getByLabel('Monthly exempt amount').fill('500.00');
      await page.getByRole('button', { name: 'Record baseline' }).click();
      expect(await page.getByRole('table', { name: 'Configuration timeline' }).innerText()).to.contain('Baseline GBP 500.00 a month');
      await shoot(page, `configuration-${backend}`);

      await page.goto(`${svc.url}/console/customers/${demo.customerId}`);
      const figures = await page.locator('dl.figures').innerText();
      expect(figures).to.contain('Balance owed').and.to.contain('Past due').and.to.contain('Next invoice due');
      expect(await page.locator('h1 .badge').allInnerTexts()).to.deep.equal(['active']);
      await shoot(page, `customer-${backend}`);
      // Seven weeks on, the overdue worker suspends Acme: the page says so (not only "active").
      svc.clock.advance(50 * 86_400_000);
      await settle(svc);
      await svc.app.workers.runOnce();
      await settle(svc);
      await page.reload();
      expect(await page.locator('h1 .badge').allInnerTexts()).to.deep.equal(['suspended']);
      expect(await page.getByRole('status').filter({ hasText: 'Access suspended' }).innerText()).to.contain('for non-payment');
      expect(await page.locator('dl.figures').innerText()).not.to.contain('Past due\n£0.00');
      await shoot(page, `customer-suspended-${backend}`);
    });
  });
}
