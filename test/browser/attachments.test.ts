// Attachments in a real browser (Debian's Chromium): a picked PDF goes prepare -> PUT -> insert, and downloads back byte for byte.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { launchBrowser } from '../support/browser.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256)), Buffer.from('\n%%EOF\n')]);
const NAME = 'Signed contract – März.pdf';

for (const backend of backends()) {
  describe(`attachments in Chromium (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let browser: Browser;

    before(async () => {
      [svc, browser] = await Promise.all([startService(backend), launchBrowser()]);
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });

    it('uploads a picked PDF through prepare, a presigned PUT and insert, then downloads it under its name, byte for byte', async () => {
      const owner = await svc.signUp();
      const customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Browser Ltd', email: 'b@example.com', currency: 'GBP' }, owner.token)).body.id;
      // The page stands in for the web app on the service's origin; /healthz, where it loads, forbids scripts any connection (CSP), an app page would allow 'self'.
      const context = await browser.newContext({ acceptDownloads: true, bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.goto(`${svc.url}/healthz`);
        await page.setContent('<input type="file" id="f">');
        await page.setInputFiles('#f', { name: NAME, mimeType: 'application/pdf', buffer: PDF });
        // A string script: the page runs plain browser JavaScript, as an app's own code would.
        const url = await page.evaluate<string>(`(async () => {
          const file = document.querySelector('#f').files[0];
          const call = async (op, body) => {
            const res = await fetch('/api/v1/' + op, { method: 'POST', headers: { authorization: 'Bearer ' + ${JSON.stringify(owner.token)}, 'content-type': 'application/json' }, body: JSON.stringify(body) });
            if (!res.ok) throw new Error(op + ': ' + res.status + ' ' + (await res.text()));
            return res.json();
          };
          const customer_id = ${JSON.stringify(customerId)};
          const prep = await call('billing.customers.attachments.prepare', { customer_id, files: [{ filename: file.name, content_type: file.type, size: file.size }] });
          const item = prep.items[0];
          const put = await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: file });
          if (!put.ok) throw new Error('PUT: ' + put.status);
          await call('billing.customers.attachments.insert', { customer_id, attachments: [{ id: item.id }] });
          return (await call('billing.customers.attachments.get', { customer_id, id: item.id })).url;
        })()`);
        await page.setContent(`<a id="d" href="${url}">download</a>`);
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#d')]);
        expect(download.suggestedFilename()).to.equal(NAME);
        const saved = await download.path();
        expect((await readFile(saved)).equals(PDF)).to.equal(true);
      } finally {
        await context.close();
      }
    });
  });
}
