// The billing console's pages over plain HTTP: who may open it, its security headers, forms without a valid CSRF token,
// escaping of what customers typed, and that the console reaches data only through the public API.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { draft } from '../support/billing.ts';
import { ops } from '../support/ops.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`billing console pages (${backend})`, () => {
    let svc: TestService;
    let staff: WebClient;
    let staffToken: string;
    let customerId: string;
    before(async () => {
      svc = await startService(backend);
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      staffToken = s.token;
      const owner = await svc.signUp({ name: 'Hostile Ltd' });
      const c = await svc.call(ops['billing.customers.insert'], { name: '<script>alert(1)</script> & "Sons"', email: 'ap@hostile.example', currency: 'GBP' }, owner.token);
      customerId = c.body.id;
      staff = new WebClient(svc.url);
      await logIn(staff, s.email, PASSWORD);
    });
    after(async () => svc?.close());

    it('sends a stranger to sign in and back, and shows an org user a short page instead of data', async () => {
      const stranger = new WebClient(svc.url);
      const r = await stranger.get(`/console/customers/${customerId}`);
      expect(r.status).to.equal(303);
      expect(r.location).to.equal(`/auth/login?return_to=${encodeURIComponent(`/console/customers/${customerId}`)}`);
      const user = await svc.signUp();
      const web = new WebClient(svc.url);
      await logIn(web, user.email, PASSWORD);
      const page = await web.get(`/console/customers/${customerId}`);
      expect(page.status).to.equal(403);
      expect(page.html).to.contain('The billing console is for billing staff');
      expect(page.html).not.to.contain('Hostile');
    });

    it('sends a strict CSP, refuses framing and caching, and escapes what customers typed', async () => {
      const page = await staff.get(`/console/customers/${customerId}`);
      expect(page.status).to.equal(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      for (const d of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "connect-src 'none'"]) expect(csp).to.contain(d);
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.html).not.to.contain('<script>alert(1)');
      expect(page.html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Sons&quot;');
      // Assets come from this service (Chart.js from node_modules), never from elsewhere.
      const chart = await staff.get('/console/assets/chart.umd.min.js');
      expect(chart.status).to.equal(200);
      expect(chart.headers.get('content-type')).to.contain('javascript');
      expect(chart.html).to.contain('Chart.js');
      expect((await staff.get('/console/assets/..%2Fapi.ts')).status).to.equal(404);
    });

    it('opens a customer attachment through the API short-lived download URL', async () => {
      const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from('console test'), Buffer.from('\n%%EOF\n')]);
      const prep = await svc.call(ops['billing.customers.attachments.prepare'], { customer_id: customerId, files: [{ filename: 'Contract <1>.pdf', content_type: 'application/pdf', size: pdf.length }] }, staffToken);
      const item = prep.body.items[0];
      if (!item) throw new Error(JSON.stringify(prep.body));
      expect((await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: pdf })).status).to.equal(200);
      expect((await svc.call(ops['billing.customers.attachments.insert'], { customer_id: customerId, attachments: [{ id: item.id }] }, staffToken)).status).to.equal(200);
      const page = await staff.get(`/console/customers/${customerId}`);
      const link = `/console/files/customer/${customerId}/${item.id}`;
      expect(page.html).to.contain(`<a href="${link}">Contract &lt;1&gt;.pdf</a>`);
      const open = await staff.get(link);
      expect(open.status).to.equal(303);
      const file = await fetch(open.location ?? '');
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).to.equal(true);
    });

    it('adds a note, then edits it with a reason that lands in the event metadata (history shows it)', async () => {
      const page = await staff.get(`/console/customers/${customerId}`);
      const added = await staff.post('/console/notes', { ...hiddenFields(page.html, '/console/notes'), body: 'Called about the March invoice' });
      expect(added.status).to.equal(303);
      expect(added.location).to.equal(`/console/customers/${customerId}?done=note_added`);
      const notes = await svc.call(ops['billing.notes.list'], { subject: { type: 'customer', id: customerId } }, staffToken);
      const note = notes.body.items[0];
      if (!note) throw new Error('no note');
      const again = await staff.get(`/console/customers/${customerId}?done=note_added`);
      expect(again.html).to.contain('Note added.');
      // The author by name, not by kind ("staff") or id.
      const me = (await svc.call(ops['auth.sessions.get'], undefined, staffToken)).body.user;
      const noteLine = /<li class="note">[\s\S]*?<p class="muted">([\s\S]*?)<\/p>/.exec(again.html)?.[1] ?? '';
      expect(noteLine).to.contain(me.name).and.not.to.match(/^staff /);
      const edit = hiddenFields(again.html, `/console/notes/${note.id}`);
      // No reason: refused before anything is sent.
      const none = await staff.post(`/console/notes/${note.id}`, { ...edit, body: 'Called twice', reason: ' ' });
      expect(none.status).to.equal(400);
      const saved = await staff.post(`/console/notes/${note.id}`, { ...edit, body: 'Called twice about the March invoice', reason: 'Second call – same day' });
      expect(saved.status).to.equal(303);
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'note', id: note.id } }, staffToken);
      expect(h.body.items.map((e) => e.reason)).to.deep.equal([null, 'Second call – same day']);
      expect(h.body.items[1]?.changes).to.deep.include({ path: 'body', before: 'Called about the March invoice', after: 'Called twice about the March invoice' });
    });

    it('refuses a form without the session\'s CSRF token and writes nothing; with it, the same form writes once however often it is sent', async () => {
      const inv = await draft(svc, staffToken, customerId, [1000]);
      const page = await staff.get(`/console/invoices/${inv.id}`);
      const fields = hiddenFields(page.html, `/console/invoices/${inv.id}/finalize`);
      const forged = await staff.post(`/console/invoices/${inv.id}/finalize`, { ...fields, csrf: 'forged' });
      expect(forged.status).to.equal(403);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staffToken)).body.status).to.equal('draft');
      // Finalizing needs a reason and the ticked confirmation, checked by the server (issue 28): without them nothing changes.
      const unconfirmed = await staff.post(`/console/invoices/${inv.id}/finalize`, { ...fields, reason: 'Checked with the customer' });
      expect(unconfirmed.status).to.equal(400);
      expect(unconfirmed.html).to.contain('Tick the box to confirm');
      expect((await svc.call(ops['billing.invoices.get'], inv.id, staffToken)).body.status).to.equal('draft');
      const ok = await staff.post(`/console/invoices/${inv.id}/finalize`, { ...fields, reason: 'Checked with the customer', confirm: 'yes' });
      expect(ok.status).to.equal(303);
      expect(ok.location).to.equal(`/console/invoices/${inv.id}?done=finalized`);
      // Recording a payment twice with the same form (a double click): one payment.
      const open = await staff.get(`/console/invoices/${inv.id}`);
      const pay = { ...hiddenFields(open.html, `/console/invoices/${inv.id}/payments`), amount: '4.00', method: 'cash', reference: 'Till 9', received_on: svc.clock.now().toISOString().slice(0, 10) };
      expect((await staff.post(`/console/invoices/${inv.id}/payments`, pay)).status).to.equal(303);
      expect((await staff.post(`/console/invoices/${inv.id}/payments`, pay)).status).to.equal(303);
      const payments = await svc.call(ops['billing.payments.list'], { invoice_id: inv.id }, staffToken);
      expect(payments.body.items.map((x) => x.amount)).to.deep.equal([400]);
      // The API's refusal is shown on the page, with its code.
      const again = await staff.get(`/console/invoices/${inv.id}`);
      const tooMuch = await staff.post(`/console/invoices/${inv.id}/payments`, { ...hiddenFields(again.html, `/console/invoices/${inv.id}/payments`), amount: '1000.00', method: 'cash', reference: 'Till 9', received_on: pay.received_on });
      expect(tooMuch.status).to.equal(409);
      expect(tooMuch.html).to.contain('amount_exceeds_remaining');
    });
  });
}

describe('billing console: built only on the public API', () => {
  it('imports no command, query, projection, worker or storage module: every read and write is an API call', () => {
    const dir = path.resolve(import.meta.dirname, '../../src/http/pages/console');
    const offenders: string[] = [];
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const sf = ts.createSourceFile(f, fs.readFileSync(path.join(dir, f), 'utf8'), ts.ScriptTarget.ES2022, true);
      for (const s of sf.statements) {
        if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue;
        const target = path.relative(path.resolve(dir, '../..'), path.resolve(dir, s.moduleSpecifier.text));
        if (s.moduleSpecifier.text.startsWith('.') && /^(commands|queries|projections|workers|storage|eventstore|domain)\//.test(target)) offenders.push(`${f} -> ${target}`);
      }
    }
    expect(offenders).to.deep.equal([]);
  });
});
