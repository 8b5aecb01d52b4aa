// The install flow in a real browser (Debian's Chromium): a third-party app sends the user to the service and gets a key.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { startThirdPartyApp, type ThirdPartyApp } from '../support/third-party-app.ts';
import { launchBrowser } from '../support/browser.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`install flow in Chromium (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let app: ThirdPartyApp;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend), launchBrowser()]);
      app = await startThirdPartyApp(svc, { name: 'Bodyshop Sync' });
    });
    after(async () => {
      await browser?.close();
      await app?.close();
      await svc?.close();
    });
    beforeEach(async () => {
      context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      page = await context.newPage();
    });
    afterEach(async () => context?.close());

    async function signIn(email: string) {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }

    async function consentShown(orgName: string) {
      await page.getByRole('heading', { name: 'Install Bodyshop Sync?' }).waitFor();
      const text = await page.textContent('main');
      expect(text).to.contain(orgName);
      expect(text).to.contain('repair jobs');
      // Readable on a phone: nothing wider than the screen.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).to.equal(true);
    }

    it('installs while signed in: app -> consent -> Allow -> the app holds a working key', async () => {
      const owner = await svc.signUp({ name: 'Chromium Garage' });
      await page.goto(`${svc.url}/auth/login`);
      await signIn(owner.email);
      await page.waitForURL(`${svc.url}/`);
      const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
      expect(cookie).to.include({ httpOnly: true, sameSite: 'Lax' });

      await page.goto(app.url);
      await page.getByRole('link', { name: 'Install into core-server' }).click();
      await consentShown('Chromium Garage');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.toString().startsWith(app.redirectUrl));
      expect(await page.textContent('#result')).to.contain('Connected to Chromium Garage with scopes repairer');
      const inst = app.installations.get(owner.orgId)!;
      expect((await app.api(inst, ops['integrations.get'])).body.organization.name).to.equal('Chromium Garage');
    });

    it('installs when not signed in yet: the login page leads back to the same consent, no manual navigation', async () => {
      const owner = await svc.signUp({ name: 'Newcomer Garage' });
      await page.goto(app.url);
      await page.getByRole('link', { name: 'Install into core-server' }).click();
      await page.waitForURL((u) => u.pathname === '/auth/login');
      const authorizeUrl = new URL(page.url()).searchParams.get('return_to')!;
      await signIn(owner.email);
      await consentShown('Newcomer Garage');
      const here = new URL(page.url());
      expect(here.pathname + here.search).to.equal(authorizeUrl);
      expect(here.searchParams.get('redirect_url')).to.equal(app.redirectUrl);
      expect(here.searchParams.get('scopes')).to.equal('["repairer"]');
      expect(here.searchParams.get('code_challenge_method')).to.equal('S256');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.toString().startsWith(app.redirectUrl));
      expect(await page.textContent('#result')).to.contain('Connected to Newcomer Garage');
      expect(app.installations.has(owner.orgId)).to.equal(true);
    });

    it('Deny: the app is told access_denied and holds no key', async () => {
      const owner = await svc.signUp({ name: 'Cautious Garage' });
      await page.goto(app.url);
      await page.getByRole('link', { name: 'Install into core-server' }).click();
      await signIn(owner.email);
      await consentShown('Cautious Garage');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL((u) => u.toString().startsWith(app.redirectUrl));
      expect(await page.textContent('#result')).to.contain('Not installed: access_denied');
      expect(app.installations.has(owner.orgId)).to.equal(false);
    });

    it('a tampered redirect_url (trailing slash, extra query, other host) shows an error page and never redirects', async () => {
      const owner = await svc.signUp();
      await page.goto(`${svc.url}/auth/login`);
      await signIn(owner.email);
      await page.waitForURL(`${svc.url}/`);
      const before = app.callbacks;
      const other = new URL(app.redirectUrl);
      other.hostname = 'localhost';
      for (const redirect_url of [`${app.redirectUrl}/`, `${app.redirectUrl}?next=/admin`, other.toString(), 'https://evil.example/callback']) {
        const target = `${svc.url}/auth/integration/authorize?${new URLSearchParams({ client_id: app.clientId, state: 'tampered', scopes: '["repairer"]', redirect_url })}`;
        const res = await page.goto(target);
        expect(res!.status(), redirect_url).to.equal(400);
        expect(page.url(), redirect_url).to.equal(target);
        await page.getByRole('heading', { name: 'Invalid installation link' }).waitFor();
        expect(await page.getByRole('button', { name: 'Allow' }).count()).to.equal(0);
      }
      expect(app.callbacks).to.equal(before);
    });
    it('the consent page refuses to be framed by another site', async () => {
      const owner = await svc.signUp();
      await page.goto(`${svc.url}/auth/login`);
      await signIn(owner.email);
      await page.waitForURL(`${svc.url}/`);
      const target = `${svc.url}/auth/integration/authorize?${new URLSearchParams({ client_id: app.clientId, state: 'framed', scopes: 'repairer', redirect_url: app.redirectUrl })}`;
      await page.goto(app.url);
      await page.evaluate(`new Promise((resolve) => { const f = document.createElement('iframe'); f.src = ${JSON.stringify(target)}; f.onload = () => resolve(); document.body.appendChild(f); setTimeout(resolve, 3000); })`);
      const framed = page.frames().find((f) => f !== page.mainFrame())!;
      expect(await framed.getByRole('button', { name: 'Allow' }).count()).to.equal(0);
    });
  });
}
