// Invoice PDFs in Chromium (issue 28 item 7): the console invoice page's "Download PDF" and the pay page's link download a PDF
// whose text holds the invoice number, the total and the addresses.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';
import { ops } from '../support/ops.ts';
import { openInvoice } from '../support/billing.ts';
import { pdfText } from '../support/pdf.ts';
import { settle } from '../support/settle.ts';
import { runMessagesPass } from '../../src/workers/billing/messages.ts';
import { TestClock } from '../../src/clock.ts';
import { DEMO_OWNER, DEMO_PASSWORD, DEMO_STAFF, seedDemo, type DemoSeed } from '../../src/seed.ts';

const OUT = path.resolve(import.meta.dirname, '../../test-results/documents');

async function signIn(page: Page, url: string, start: string, email: string): Promise<void> {
  await page.goto(`${url}${start}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function downloadedText(page: Page, link: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).first().click()]);
  const saved = await download.path();
  return { name: download.suggestedFilename(), text: await pdfText(readFileSync(saved)) };
}

for (const backend of backends()) {
  describe(`invoice PDFs in Chromium (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let browser: Browser;
    let demo: DemoSeed;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend, { clock: new TestClock('2026-11-02T09:00:00.000Z'), env: { SESSION_TTL_HOURS: '2000', INVOICE_SELLER_NAME: 'Core Billing Ltd' } }), launchBrowser()]);
      // The demo without its billing activity: the story below counts every invoice, note and overdue row as its own.
      const seeded = await seedDemo(svc.app, { activity: false });
      if (!seeded) throw new Error('the fresh database was not seeded');
      demo = seeded;
      const addressed = await svc.call(ops['billing.customers.update'], { id: demo.customerId, billing_address: { line1: '8 Forge Lane', city: 'Leeds', postal_code: 'LS1 4AP', country: 'GB' } }, demo.staffToken);
      expect(addressed.status, JSON.stringify(addressed.body)).to.equal(200);
      mkdirSync(OUT, { recursive: true });
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });

    it('the outbox and the customer page show the finalize email (no SMTP_URL), with its PDF', async () => {
      const inv = await openInvoice(svc, demo.staffToken, demo.customerId, [4_200]);
      await runMessagesPass(svc.app);
      await settle(svc);
      for (const width of [1280, 800]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
        const page = await context.newPage();
        try {
          await signIn(page, svc.url, '/console/outbox', DEMO_STAFF);
          await page.getByRole('heading', { name: 'Outbox' }).waitFor();
          const row = page.getByRole('row').filter({ hasText: `Invoice ${inv.number} from Core Billing Ltd` });
          await row.waitFor();
          expect(await row.textContent()).to.include('kept in the outbox');
          await page.screenshot({ path: path.join(OUT, `outbox-${backend}-${width}.png`), fullPage: true });
          const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'PDF' }).click()]);
          expect(await pdfText(readFileSync(await download.path()))).to.include(String(inv.number)).and.to.include('£42.00');
          await page.goto(`${svc.url}/console/customers/${demo.customerId}`);
          const messages = page.locator('section[aria-labelledby="messages"]');
          await messages.getByRole('row').filter({ hasText: String(inv.number) }).first().waitFor();
          await messages.screenshot({ path: path.join(OUT, `customer-messages-${backend}-${width}.png`) });
        } finally {
          await context.close();
        }
      }
    });

    it("the console invoice page's PDF link and the pay page's download the invoice with its number, total and addresses", async () => {
      const inv = await openInvoice(svc, demo.staffToken, demo.customerId, [123_456]);
      for (const width of [1280, 800]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
        const page = await context.newPage();
        try {
          await signIn(page, svc.url, `/console/invoices/${inv.id}`, DEMO_STAFF);
          await page.getByRole('heading', { name: String(inv.number) }).first().waitFor();
          await page.screenshot({ path: path.join(OUT, `console-invoice-${backend}-${width}.png`), fullPage: true });
          const pdf = await downloadedText(page, 'Download PDF');
          expect(pdf.name).to.equal(`invoice-${inv.number}.pdf`);
          for (const want of [String(inv.number), '£1,234.56', 'Amount due', 'Acme Repairs Ltd', '8 Forge Lane', 'LS1 4AP Leeds', 'Core Billing Ltd']) expect(pdf.text, want).to.include(want);
        } finally {
          await context.close();
        }
      }
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      const page = await context.newPage();
      try {
        await signIn(page, svc.url, `/billing/pay/${demo.customerId}`, DEMO_OWNER);
        await page.getByRole('heading', { name: 'Pay your invoices' }).waitFor();
        await page.screenshot({ path: path.join(OUT, `pay-page-${backend}.png`), fullPage: true });
        const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`form[data-invoice="${inv.id}"] a[data-pdf="invoice"]`).click()]);
        const text = await pdfText(readFileSync(await download.path()));
        for (const want of [String(inv.number), '£1,234.56', `/billing/pay/${demo.customerId}`]) expect(text, want).to.include(want);
      } finally {
        await context.close();
      }
    });
  });
}
