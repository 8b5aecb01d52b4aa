// /docs in a real browser (Debian's Chromium): the reference renders from this service alone, its table of contents has
// the tags, its search finds an operation, and its try-it console calls the API with a session token pasted into it.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startService, type TestService } from '../support/app.ts';
import { launchBrowser } from '../support/browser.ts';

describe('API reference in Chromium', function () {
  this.timeout(180_000);
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];

  before(async () => {
    // selfUrl: the document's server is this instance, so the try-it console calls it.
    [svc, browser] = await Promise.all([startService('pglite', { selfUrl: true }), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${svc.url}/docs`);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('renders the reference with a table of contents of the tags', async () => {
    await page.getByText('core-server', { exact: false }).first().waitFor({ timeout: 60_000 });
    const sidebar = page.locator('nav, aside').first();
    for (const tag of ['Authentication', 'Billing', 'tier1', 'Ingest']) expect(await sidebar.getByText(tag, { exact: true }).first().isVisible(), tag).to.equal(true);
  });

  it('finds an operation by searching', async () => {
    await page.getByText('Search', { exact: true }).first().click();
    await page.keyboard.type('payments.insert');
    await page.getByText(/Records a manual payment/).first().waitFor();
    expect(await page.getByText(/\/billing\.payments\.insert$/).first().isVisible()).to.equal(true);
    await page.keyboard.press('Escape');
  });

  it('sends a request from the try-it console with a session token, to this service', async () => {
    const user = await svc.signUp();
    const token = page.getByPlaceholder('Token').first();
    await token.waitFor();
    await token.fill(user.token);
    await page.locator('aside, nav').first().getByText('Authentication', { exact: true }).first().click();
    await page.getByRole('button', { name: /Test Request\s*\(post \/auth\.sessions\.get\)/ }).click();
    await page.getByRole('button', { name: `Send post request to ${svc.url}/api/v1/auth.sessions.get` }).click();
    await page.getByText('200 OK').first().waitFor();
    expect(await page.getByText(user.email).first().isVisible()).to.equal(true);
  });

  it('loads nothing from outside this service', () => {
    const origin = new URL(svc.url).origin;
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).to.deep.equal([]);
    expect(requested).to.include.members([`${origin}/docs/assets/scalar.js`, `${origin}/api/v1/openapi.json`]);
    // No script error, and nothing the CSP refused (a refusal is reported as a console error).
    expect(problems.filter((p) => !/status of 404/.test(p))).to.deep.equal([]);
  });
});
