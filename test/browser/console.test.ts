// The billing console in Chromium: a clerk runs a customer's month (draft, finalize, partial payment, credit), reads the
// statement chart, answers "who changed this, when and why" from the history, and exports the invoice list as the API lists it;
// on a usage invoice, the orders behind its line and the re-rate preview after a back-dated price.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { ops } from '../support/ops.ts';
import { buyer, configuredSeller, pricing } from '../support/configuration.ts';
import { order } from '../support/usage.ts';
import { TestClock } from '../../src/clock.ts';
import { money } from '../../src/http/pages/console/layout.ts';
import { HISTORY_SENTENCES } from '../../src/http/pages/console/story.ts';
import { dayText } from '../../src/http/pages/console/format.ts';
import { FEED_EVENT_TYPES } from '../../src/contract/schemas/billing-events.ts';
import { DEMO_OWNER, DEMO_PASSWORD, DEMO_STAFF, seedDemo, type DemoSeed } from '../../src/seed.ts';

/** Screenshots for people to look at (git-ignored). */
const OUT = path.resolve(import.meta.dirname, '../../test-results/console');

// Screenshots at desktop and tablet width, for people to look at; the page is left at 1280 px.
async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1280, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(OUT, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

// A story page as a clerk reads it: no JSON, no internal event or field names, no amount in minor units.
async function storyIsPlain(page: Page): Promise<void> {
  const text = await page.locator('main').innerText();
  expect(text).not.to.contain('{');
  for (const type of [...Object.keys(HISTORY_SENTENCES), ...FEED_EVENT_TYPES]) expect(text, type).not.to.contain(type);
  expect(text).not.to.match(/\b(amount_paid|amount_remaining|exists|total \d)/);
  // Every amount is written with its currency and two decimals.
  expect(text).not.to.match(/\b(37550|10000|2550|25000)\b/);
}

// No 8-hex-character fragment of an id where names exist (whole UUIDs aside, there should be none on these pages either).
async function noIdFragments(page: Page): Promise<void> {
  const text = await page.locator('main').innerText();
  expect(text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi), 'whole ids where names exist').to.equal(null);
  expect(text.match(/\b[0-9a-f]{8}\b/gi), 'id fragments').to.equal(null);
}

async function signIn(page: Page, url: string, email: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

// Every visible form control has a label a screen reader announces.
async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
    .filter((el) => !el.closest('[hidden]') && (!el.labels || el.labels.length === 0) && !el.getAttribute('aria-label'))
    .map((el) => el.name || el.id)`);
}

for (const backend of backends()) {
  describe(`billing console in Chromium (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let browser: Browser;
    let demo: DemoSeed;

    before(async () => {
      // A fixed day (the usage invoice below is for October 2026; the subscriptions run through 2026).
      [svc, browser] = await Promise.all([startService(backend, { clock: new TestClock('2026-11-02T09:00:00.000Z'), env: { SESSION_TTL_HOURS: '2000' } }), launchBrowser()]);
      // The demo without its billing activity: the story below counts every invoice, note and overdue row as its own.
      const seeded = await seedDemo(svc.app, { activity: false });
      if (!seeded) throw new Error('the fresh database was not seeded');
      demo = seeded;
      mkdirSync(OUT, { recursive: true });
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });

    it('a clerk finds the demo customer, drafts, finalizes, takes a partial payment, issues a credit, reads the statement and the history, and exports the list', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      const page = await context.newPage();
      const problems: string[] = [];
      // Script errors and CSP refusals (pages answering 4xx on purpose, and the browser's favicon probe, are not problems).
      page.on('console', (m) => void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text())));
      page.on('response', (r) => void (r.status() >= 400 && r.request().resourceType() !== 'document' && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`)));
      page.on('pageerror', (e) => void problems.push(e.message));
      try {
        await signIn(page, svc.url, DEMO_STAFF);
        await page.getByRole('heading', { name: 'Customers' }).waitFor();

        // Find the demo customer by name.
        await page.getByLabel('Name, email or organization id').fill('acme');
        await page.getByRole('button', { name: 'Find' }).click();
        await page.getByRole('link', { name: 'Acme Repairs Ltd' }).click();
        await page.getByRole('heading', { name: /Acme Repairs Ltd/ }).waitFor();
        expect(await unlabelled(page)).to.deep.equal([]);
        await page.screenshot({ path: path.join(OUT, `customer-${backend}.png`), fullPage: true });

        // Draft with two lines (the second row added with the keyboard-reachable "Add a line" button), then finalize.
        await page.getByRole('link', { name: 'New draft invoice' }).click();
        await page.getByLabel('Line 1 description').fill('Panel repair');
        await page.getByLabel('Line 1 quantity').fill('2');
        await page.getByLabel('Line 1 unit price').fill('150.00');
        await page.getByLabel('Line 2 description').fill('Paint <b>& lacquer</b>');
        await page.getByLabel('Line 2 unit price').fill('75.50');
        await page.getByRole('button', { name: 'Add a line' }).click();
        expect(await page.evaluate('document.activeElement.id')).to.equal('line5_description');
        await page.getByRole('button', { name: 'Save draft' }).click();
        await page.getByText('Draft invoice saved.').waitFor();
        // Text is shown as text, never as markup.
        await page.getByRole('cell', { name: 'Paint <b>& lacquer</b>', exact: true }).waitFor();
        const invoiceId = new URL(page.url()).pathname.split('/').pop() ?? '';
        // Finalizing asks why and a ticked confirmation (issue 28).
        await page.locator('#finalize-reason').fill('Lines agreed with the customer');
        await page.getByRole('checkbox', { name: /the invoice is final/ }).check();
        await page.getByRole('button', { name: 'Finalize invoice' }).click();
        await page.getByText('Invoice finalized').waitFor();
        const number = (await page.getByRole('heading', { level: 1 }).innerText()).split(' ')[0];
        expect(number).to.match(/^INV-\d{4}-\d{6}$/);

        // A partial payment.
        await page.getByLabel('Amount (GBP)').first().fill('100.00');
        await page.getByLabel('Reference').fill('BACS 4471');
        await page.getByRole('button', { name: 'Record payment' }).click();
        await page.getByText('Payment recorded.').waitFor();

        // A credit: raised, approved and issued, each step with its reason.
        await page.locator('#credit-amount').fill('25.50');
        await page.getByLabel('What happened').fill('Paint shade did not match');
        await page.getByRole('button', { name: 'Raise request' }).click();
        await page.getByText('Credit note request raised.').waitFor();
        await page.getByLabel('Reason to approve').fill('Photos confirm the shade');
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.getByText('Credit note request approved.').waitFor();
        await page.getByLabel('Reason to issue credit note').fill('Approved by the team lead');
        await page.getByRole('button', { name: 'Issue credit note' }).click();
        await page.getByText('Credit note issued.').waitFor();
        const inv = await svc.call(ops['billing.invoices.get'], invoiceId, demo.staffToken);
        expect(inv.body).to.include({ total: 37550, amount_paid: 10000, amount_credited: 2550, amount_remaining: 25000, status: 'open' });
        const figures = await page.locator('dl.figures').innerText();
        expect(figures).to.contain('GBP 250.00');
        // A destructive step without a reason is refused before anything is sent.
        await page.locator('#void-reason').evaluate((el) => el.removeAttribute('required'));
        await page.locator('#void-confirm').check();
        await page.getByRole('button', { name: 'Void invoice' }).click();
        await page.getByRole('alert').filter({ hasText: 'Say why' }).waitFor();
        expect((await svc.call(ops['billing.invoices.get'], invoiceId, demo.staffToken)).body.status).to.equal('open');

        // The statement: both charts drawn by Chart.js; the screenshot is for people to look at.
        await page.getByRole('link', { name: 'Statement' }).click();
        await page.getByRole('heading', { name: 'Statement of Acme Repairs Ltd' }).waitFor();
        await page.waitForSelector('html[data-charts=drawn]');
        const painted = await page.evaluate(`['ageing-chart', 'balance-chart'].map((id) => {
          const c = document.getElementById(id);
          const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
          return n;
        })`);
        expect(painted).to.satisfy((n: number[]) => n.every((x) => x > 1000));
        await page.screenshot({ path: path.join(OUT, `statement-${backend}.png`), fullPage: true });
        // The printed page: no navigation or forms, the charts and tables kept.
        await page.emulateMedia({ media: 'print' });
        expect(await page.locator('header.top').isVisible()).to.equal(false);
        expect(await page.locator('#balance-chart').isVisible()).to.equal(true);
        await page.screenshot({ path: path.join(OUT, `statement-print-${backend}.png`), fullPage: true });
        await page.emulateMedia({ media: 'screen' });
        expect(await page.getByRole('table', { name: 'Ledger' }).innerText()).to.contain(number);

        // The invoice's history reads as a story: sentences with names and formatted money, titled by the invoice's number and
        // customer; no JSON, event type or field names on the page (the raw event stays one click away).
        await page.goto(`${svc.url}/console/invoices/${invoiceId}`);
        await page.locator('main').getByRole('link', { name: 'History', exact: true }).first().click();
        const timeline = page.getByRole('table', { name: 'Changes, oldest first' });
        await timeline.waitFor();
        expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal(`History of Invoice ${number} — Acme Repairs Ltd`);
        const rows = await timeline.locator('tbody tr').allInnerTexts();
        expect(rows).to.have.length(4);
        for (const r of rows) expect(r).to.contain('Billie Staff');
        expect(rows[0]).to.contain('Draft invoice created with 2 lines, total GBP 375.50');
        expect(rows[1]).to.contain(`Invoice finalized as ${number} for GBP 375.50`);
        expect(rows[2]).to.contain('Payment of GBP 100.00 by bank transfer').and.to.contain('(reference BACS 4471) recorded by Billie Staff').and.to.contain('Amount paid: GBP 0.00 → GBP 100.00');
        expect(rows[3]).to.contain('Credit note of GBP 25.50 issued').and.to.contain('(reason: Approved by the team lead)');
        await storyIsPlain(page);
        // The raw event, for engineers, one click away.
        await timeline.locator('summary', { hasText: 'Raw event' }).first().click();
        expect(await timeline.locator('details[open] pre').first().innerText()).to.contain('"type": "InvoiceDrafted"');
        await shots(page, `history-${backend}`);

        // The invoice list names each invoice's customer.
        await page.getByRole('link', { name: 'Invoices', exact: true }).click();
        await page.getByRole('heading', { name: 'Invoices' }).waitFor();
        expect(await page.getByRole('table', { name: 'Invoices' }).locator('tbody tr td:nth-child(3)').allInnerTexts()).to.deep.equal(['Acme Repairs Ltd']);
        await noIdFragments(page);
        await page.goto(`${svc.url}/console/customers/${demo.customerId}`);
        await noIdFragments(page);

        // Activity: what changed today, by person; Billie Staff's changes are all hers and include the payment.
        await page.getByRole('link', { name: 'Activity', exact: true }).click();
        const activity = page.getByRole('table', { name: 'Changes, newest first' });
        await activity.waitFor();
        const everyone = await activity.locator('tbody tr').allInnerTexts();
        await page.getByLabel('Who').selectOption({ label: 'Billie Staff' });
        await page.getByRole('button', { name: 'Show' }).click();
        await activity.waitFor();
        const hers = await activity.locator('tbody tr').allInnerTexts();
        expect(hers.length).to.be.greaterThan(3).and.to.be.at.most(everyone.length);
        for (const r of hers) expect(r).to.contain('Billie Staff');
        expect(hers.join('\n')).to.contain('Payment of GBP 100.00 by bank transfer (reference BACS 4471) recorded').and.to.contain(`Invoice ${number} finalized for GBP 375.50`);
        await storyIsPlain(page);
        await page.getByLabel('What').selectOption('payment');
        await page.getByRole('button', { name: 'Show' }).click();
        expect(await activity.locator('tbody tr').allInnerTexts()).to.have.length(1);
        await shots(page, `activity-${backend}`);

        // The invoice list exported as CSV: the customer's name and decimal amounts, next to the ids (issue 28).
        await page.getByRole('link', { name: 'Invoices', exact: true }).click();
        await page.getByRole('heading', { name: 'Invoices' }).waitFor();
        await shots(page, `invoices-${backend}`);
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export invoices (CSV)' }).click()]);
        const csv = readFileSync(await download.path(), 'utf8').trim().split('\r\n');
        const [header, ...body] = csv;
        expect(header).to.equal('Number,Customer,Customer email,Status,Currency,Total,Remaining,Issued,Due,Created (UTC),Invoice id,Customer id,Organization id');
        expect(body).to.have.length(1);
        expect(body[0]).to.match(new RegExp(`^${number},Acme Repairs Ltd,accounts@acme-repairs.example,open,GBP,375.50,250.00,${inv.body.issue_date},${inv.body.due_date},.*,${invoiceId},${demo.customerId},${demo.orgId}$`));

        // Five weeks on, the invoice is past due: the overdue page names Acme, its suspension date (due + 14 days) and the payment link.
        svc.clock.advance(35 * 86_400_000);
        await page.getByRole('link', { name: 'Overdue' }).click();
        const overdue = page.getByRole('table', { name: 'Organizations past due' });
        await overdue.waitFor();
        const due = new Date(`${inv.body.due_date}T00:00:00Z`);
        const suspension = new Date(due.getTime() + 14 * 86_400_000).toISOString().slice(0, 10);
        const overdueRow = await overdue.locator('tbody tr').allInnerTexts();
        expect(overdueRow).to.have.length(1);
        expect(overdueRow[0]).to.contain('Acme Repairs Ltd').and.to.contain('GBP 250.00').and.to.contain(dayText(suspension));
        // Staff record the payment on the invoice's console page (the customer's payment page is the organization's own).
        expect(overdueRow[0]).to.contain(`/billing/pay/${demo.customerId}`);
        await shots(page, `overdue-${backend}`);
        await overdue.getByRole('link', { name: 'Record a payment' }).click();
        await page.getByRole('heading', { name: new RegExp(number ?? 'INV') }).waitFor();
        expect(new URL(page.url()).pathname).to.equal(`/console/invoices/${invoiceId}`);
        await page.goto(`${svc.url}/console/overdue`);

        // Tablet width: nothing runs off the side of the page.
        await page.setViewportSize({ width: 768, height: 1024 });
        await page.goto(`${svc.url}/console/invoices/${invoiceId}`);
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
        await page.screenshot({ path: path.join(OUT, `invoice-tablet-${backend}.png`), fullPage: true });
        // Keyboard: the first Tab reaches the skip link, which leads to the content.
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement.textContent')).to.equal('Skip to content');
        expect(problems, problems.join('\n')).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('a clerk opens a usage invoice: the orders behind its line, the re-rate preview after a back-dated price (nothing written), then issues the correction', async () => {
      const c = await configuredSeller(svc);
      expect((await svc.call(ops['billing.customers.insert'], { name: 'Usage Seller Ltd', email: 'ap@usage.example', currency: 'GBP' }, c.seller.token)).status).to.equal(200);
      const early = await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 } });
      const b = await buyer(svc);
      const orders = [order('OCT-1', c.seller.orgId, b, 10000, '2026-10-05T10:00:00Z'), order('OCT-2', c.seller.orgId, b, 20000, '2026-10-12T10:00:00Z'), order('OCT-3', c.seller.orgId, b, 30000, '2026-10-20T10:00:00Z')];
      expect((await svc.call(ops['billing.usage.insert'], { orders }, c.billingStaff)).status).to.equal(200);
      const inv = (await svc.call(ops['billing.invoices.generate'], { subscription_id: c.subscriptionId, period: '2026-10' }, c.billingStaff)).body;
      expect((await svc.call(ops['billing.invoices.update'], { id: inv.id, action: 'finalize' }, c.billingStaff)).status).to.equal(200);
      await pricing(svc, c, { effective_from: '2026-10-10', rates_bps: { platform_introduced: 600, pre_existing: 200 }, supersedes: [early.id], reason: 'Rate agreed late' });
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      try {
        await signIn(page, svc.url, DEMO_STAFF);
        await page.getByRole('heading', { name: 'Customers' }).waitFor();
        await page.goto(`${svc.url}/console/invoices/${inv.id}`);
        const behind = page.getByRole('table', { name: 'Orders behind line 1' });
        expect(await behind.locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(['OCT-1', 'OCT-2', 'OCT-3']);
        await page.getByRole('button', { name: 'Re-rate preview' }).click();
        await page.getByRole('heading', { name: 'Re-rate preview (nothing was written)' }).waitFor();
        // 5% -> 6% on the two orders from 10 October: +GBP 2.00 and +GBP 3.00.
        const differ = page.getByRole('table', { name: 'Orders that differ' });
        expect(await differ.locator('tbody tr td:nth-child(1)').allInnerTexts()).to.deep.equal(['OCT-2', 'OCT-3']);
        expect(await differ.locator('tbody tr td:nth-child(5)').allInnerTexts()).to.deep.equal(['+GBP 2.00', '+GBP 3.00']);
        const diff = (await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, c.billingStaff)).body;
        expect(await page.locator('section[aria-labelledby=rerate] dl.figures').innerText()).to.contain(money(diff.new_total, 'GBP')).and.to.contain('+GBP 5.00');
        expect(await unlabelled(page)).to.deep.equal([]);
        await page.screenshot({ path: path.join(OUT, `rerate-${backend}.png`), fullPage: true });
        expect((await svc.call(ops['billing.invoices.get'], inv.id, c.billingStaff)).body.total).to.equal(inv.total);
        // Issue the correction from the preview (issue 26): reason, confirmation, then the invoice lists it and nothing differs any more.
        await page.getByLabel('Reason (kept on the correction and in the audit trail)').fill('Rate agreed late');
        await page.getByRole('checkbox', { name: /I have checked the differences above/ }).check();
        await page.getByRole('button', { name: 'Issue correction' }).click();
        await page.getByText('Correction issued.').waitFor();
        const corrections = page.getByRole('table', { name: 'Corrections of this invoice' });
        expect(await corrections.locator('tbody tr td:nth-child(5)').allInnerTexts()).to.deep.equal(['+GBP 5.00']);
        const made = (await svc.call(ops['billing.invoices.corrections.list'], { invoice_id: inv.id }, c.billingStaff)).body.items;
        expect(made.map((m) => [m.difference, m.reason])).to.deep.equal([[500, 'Rate agreed late']]);
        expect((await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, c.billingStaff)).body.difference).to.equal(0);
        await shots(page, `usage-invoice-${backend}`);

        // The configuration and usage pages name the buyers, the subscription and who recorded each revision.
        await page.goto(`${svc.url}/console/configuration?subscription_id=${c.subscriptionId}`);
        const timeline = page.getByRole('table', { name: 'Configuration timeline' });
        await timeline.waitFor();
        expect(await page.getByRole('heading', { level: 1 }).innerText()).to.match(/^Configuration: Subscription of /);
        expect((await timeline.locator('tbody tr td:nth-child(2)').allInnerTexts()).every((t) => !/\b[0-9a-f]{8}\b/.test(t))).to.equal(true);
        await shots(page, `configuration-${backend}`);
        await page.goto(`${svc.url}/console/usage?subscription_id=${c.subscriptionId}&period=2026-10`);
        await page.getByRole('table', { name: 'Orders of the month' }).waitFor();
        // Tablet width: the orders table scrolls inside the page instead of running off it.
        await page.setViewportSize({ width: 800, height: 900 });
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
        await shots(page, `usage-${backend}`);
      } finally {
        await context.close();
      }
    });

    it('a clerk invoices a month without its unrateable order, fixes the held order with a reason, and bills it on a supplementary invoice', async () => {
      const c = await configuredSeller(svc);
      expect((await svc.call(ops['billing.customers.insert'], { name: 'Held Seller Ltd', email: 'ap@held.example', currency: 'GBP' }, c.seller.token)).status).to.equal(200);
      await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 } });
      const b = await buyer(svc);
      const orders = [order('HELD-1', c.seller.orgId, b, 10000, '2026-10-05T10:00:00Z'), order('HELD-2', c.seller.orgId, b, 20000, '2026-10-06T10:00:00Z', 'EUR')];
      expect((await svc.call(ops['billing.usage.insert'], { orders }, c.billingStaff)).status).to.equal(200);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      try {
        await signIn(page, svc.url, DEMO_STAFF);
        await page.getByRole('heading', { name: 'Customers' }).waitFor();
        await page.goto(`${svc.url}/console/usage?subscription_id=${c.subscriptionId}&period=2026-10`);
        await page.getByLabel(/Invoice without the orders that cannot be rated/).check();
        await page.getByRole('button', { name: 'Generate' }).click();
        // The month's invoice, without the EUR order: 5% of 100.00.
        expect(await page.getByRole('table', { name: 'Orders behind line 1' }).locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(['HELD-1']);
        await page.getByRole('link', { name: /^Usage of 2026-10/ }).click();
        await page.getByRole('link', { name: 'Held', exact: true }).click();
        const held = page.getByRole('table', { name: 'Orders of the month' });
        expect(await held.locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(['HELD-2']);
        expect(await held.innerText()).to.contain('currency_mismatch');
        await page.getByText('Fix HELD-2').click();
        await page.getByLabel('Currency', { exact: true }).fill('GBP');
        await page.locator('form[action$="/replace"]').getByLabel('Reason').fill('Sent in EUR by mistake');
        await page.getByRole('button', { name: 'Replace' }).click();
        await page.getByRole('table', { name: 'Orders of the month' }).waitFor();
        expect(await page.getByRole('table', { name: 'Orders of the month' }).innerText()).to.contain('replaced: Sent in EUR by mistake');
        expect(await unlabelled(page)).to.deep.equal([]);
        await page.getByRole('button', { name: 'Generate' }).click();
        expect(await page.getByRole('table', { name: 'Orders behind line 1' }).locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(['HELD-2']);
        await page.screenshot({ path: path.join(OUT, `held-usage-${backend}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });

    it('an organization user cannot open the console', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      try {
        await signIn(page, svc.url, DEMO_OWNER);
        await page.getByRole('heading', { name: 'The billing console is for billing staff' }).waitFor();
        const res = await page.goto(`${svc.url}/console/customers/${demo.customerId}`);
        expect(res?.status()).to.equal(403);
        expect(await page.content()).not.to.contain('Acme Repairs Ltd');
      } finally {
        await context.close();
      }
    });
  });
}
