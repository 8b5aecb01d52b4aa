// Issue 32's "done means": a customer whose personal values went everywhere the service copies them (the log, read models,
// a stored idempotent answer, an analytics referer, its invoice email, a webhook delivery echoed back by the receiver, an
// attachment) is erased; then no table (every row, as text), no file of the embedded database's data directory or the
// object store, and no log line holds any value except what tax law keeps until its retention period ends. Until then the
// issued invoice shows the legal name and address and the statement adds up; after it, nothing is left, nor after a rebuild.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { backends, openTestDb } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { filesHolding, tablesHolding } from '../support/personal-traces.ts';
import { ops } from '../support/ops.ts';
import { openInvoice, paymentBody } from '../support/billing.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { settle } from '../support/settle.ts';
import { pdfText } from '../support/pdf.ts';
import { openPglite } from '../../src/db.ts';
import { migrateLatest } from '../../migrations/index.ts';
import { retentionWorker } from '../../src/workers/billing/retention.ts';

/** A webhook receiver that answers with the body it got (the worst case: its answer is kept as the attempt's excerpt). */
async function echoReceiver(): Promise<{ url: string; got: string[]; close: () => void }> {
  const got: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, close: () => void server.close() };
}

for (const backend of backends()) {
  describe(`erasure leaves nothing behind (${backend})`, function () {
    this.timeout(300_000);
    let svc: TestService;
    let dataDir: string | null = null;
    let staff: string;
    let receiver: Awaited<ReturnType<typeof echoReceiver>>;
    const logs: string[] = [];
    const tag = `dm${backend.slice(0, 2)}${Date.now().toString(36)}`;
    const erased = { email: `zed-${tag}@erase-all.example`, note: `Zed says ${tag} moves abroad`, filename: `contract-${tag}.pdf`, referer: `https://shop.example/${tag}-basket` };
    const kept = { name: `Zed ${tag} Holdings`, line1: `77 ${tag} Lane`, tax_id: `GB${tag}` };
    let customerId: string;
    let invoice: { id: string; number: string | null };
    let statementBefore: unknown;
    let from: string;

    const objectDir = () => svc.app.config.objectStore.replace(/^file:/, '');
    /** The invoice's PDFs kept in the object store (PDF text is compressed: a byte search would not see the values in them). */
    const storedDocuments = () => {
      const dir = path.join(objectDir(), 'documents', 'invoice', invoice.id);
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    };
    const statement = async () => {
      const s = await svc.call(ops['billing.customers.statement.get'], { customer_id: customerId, from, to: svc.clock.now().toISOString().slice(0, 10) }, staff);
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      const { opening_balance, total_debits, total_credits, closing_balance, lines } = s.body;
      return { opening_balance, total_debits, total_credits, closing_balance, lines: lines.map((l) => JSON.stringify(l)) };
    };
    /** Where `value` is found: tables, files of the data directory and object store, log lines. */
    const whereIs = async (value: string) => ({
      tables: await tablesHolding(svc, value),
      files: [...(dataDir ? filesHolding(dataDir, value) : []), ...filesHolding(objectDir(), value)],
      logs: logs.filter((l) => l.includes(value)).length,
    });

    before(async () => {
      // The embedded database on disk (as DATA_DIR runs it), so its files can be searched.
      let db;
      if (backend === 'pglite') {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-erasure-pglite-'));
        db = await openPglite(dataDir);
        await migrateLatest(db.knex);
      } else db = await openTestDb(backend);
      receiver = await echoReceiver();
      svc = await startService(backend, { db, logLines: logs, env: { WEBHOOK_HTTP_LOOPBACK: 'allow', WEBHOOK_PASS_WAIT_MS: '1500' } });
      // A staff session that outlives the retention period the clock is moved through.
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      staff = (await createSession(svc.app.knex, { userId: s.userId, organizationId: s.orgId, now: svc.clock.now(), ttlHours: 24 * 366 * 12 })).token;
    });
    after(async () => {
      receiver?.close();
      await svc?.close();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('copies the values everywhere the service keeps them', async () => {
      from = svc.clock.now().toISOString().slice(0, 10);
      const owner = await svc.signUp();
      const hook = await svc.call(ops['billing.webhook-endpoints.insert'], { url: receiver.url, event_types: ['customer.created', 'customer.updated'] }, owner.token);
      expect(hook.status, JSON.stringify(hook.body)).to.equal(200);
      const c = await svc.call(ops['billing.customers.insert'], {
        name: kept.name, email: erased.email, currency: 'GBP', tax_id: kept.tax_id, billing_address: { line1: kept.line1, city: 'Leeds', country: 'GB' },
      }, owner.token, { 'Idempotency-Key': `create-${tag}` });
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      customerId = c.body.id;
      expect((await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: customerId }, body: erased.note }, staff, { 'Idempotency-Key': `note-${tag}` })).status).to.equal(200);
      expect((await svc.call(ops['billing.customers.attachments.prepare'], { customer_id: customerId, files: [{ filename: erased.filename, content_type: 'application/pdf', size: 10 }] }, staff)).status).to.equal(200);
      expect((await svc.call(ops['analytics.events.insert'], { name: 'page_view' }, owner.token, { referer: erased.referer, 'Idempotency-Key': `view-${tag}` })).status).to.equal(200);
      const inv = await openInvoice(svc, staff, customerId, [12_000]);
      invoice = { id: inv.id, number: inv.number };
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 2_000), staff)).status).to.equal(200);
      // The invoice email (to the customer's address) and the webhook deliveries (echoed back by the receiver).
      await settle(svc);
      await svc.app.workers.runOnce('billing.messages');
      await settle(svc);
      await svc.app.workers.runOnce('webhooks');
      expect(receiver.got.join('\n')).to.include(erased.email);
      await settle(svc);
      statementBefore = await statement();
      // The invoice's PDF, as rendered then (with the email), is stored in the object store.
      expect((await svc.call(ops['billing.invoices.document.get'], { invoice_id: invoice.id }, staff)).status).to.equal(200);
      expect(storedDocuments()).to.have.length(1);

      const email = await whereIs(erased.email);
      expect(email.tables).to.include.members(['billing_customers', 'billing_events', 'billing_messages', 'billing_webhook_messages', 'idempotency_keys', 'webhook_delivery_attempts']);
      expect((await whereIs(erased.referer)).tables).to.include.members(['analytics_events', 'idempotency_keys']);
      expect((await whereIs(erased.note)).tables).to.include.members(['billing_notes', 'idempotency_keys']);
      // Nothing personal is ever logged, before or after.
      expect(logs.length).to.be.greaterThan(0);
      for (const v of [...Object.values(erased), ...Object.values(kept)]) expect(logs.filter((l) => l.includes(v)), v).to.deep.equal([]);
    });

    it('after the erasure, only what tax law keeps is left; the invoice still shows it and the statement adds up the same', async () => {
      const res = await svc.call(ops['billing.customers.erase'], { id: customerId, legal_basis: 'no_longer_necessary', reason: `Ticket ${tag}` }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.retained).to.deep.equal([`customer:${customerId}:retained`]);
      await settle(svc);
      expect(storedDocuments(), 'the PDF rendered with the email').to.deep.equal([]);
      for (const v of Object.values(erased)) expect(await whereIs(v), v).to.deep.equal({ tables: [], files: [], logs: 0 });
      // Kept: the customer record and its feed documents (customer.created, sent or still to send).
      for (const v of Object.values(kept)) expect((await whereIs(v)).tables, v).to.deep.equal(['billing_customers', 'billing_events', 'billing_webhook_messages']);
      const inv = await svc.call(ops['billing.invoices.get'], invoice.id, staff);
      expect(inv.body).to.include({ number: invoice.number, total: 12_000, amount_remaining: 10_000, status: 'open' });
      const doc = await svc.call(ops['billing.invoices.document.get'], { invoice_id: invoice.id }, staff);
      expect(doc.status, JSON.stringify(doc.body)).to.equal(200);
      const text = await pdfText(new Uint8Array(await (await fetch(doc.body.url)).arrayBuffer()));
      expect(text).to.include(kept.name).and.include(kept.line1).and.include(kept.tax_id).and.not.include(erased.email);
      expect(await statement()).to.deep.equal(statementBefore);
    });

    it('after the retention period, nothing is left anywhere, nor after a rebuild; the invoice and statement still add up', async () => {
      svc.clock.advance(6 * 366 * 86_400_000);
      await retentionWorker.runOnce(svc.app);
      await settle(svc);
      for (const v of [...Object.values(erased), ...Object.values(kept)]) expect(await whereIs(v), v).to.deep.equal({ tables: [], files: [], logs: 0 });
      expect(storedDocuments(), 'the PDF rendered with the kept particulars').to.deep.equal([]);
      expect((await svc.call(ops['billing.invoices.get'], invoice.id, staff)).body).to.include({ number: invoice.number, total: 12_000, amount_remaining: 10_000 });
      const after = await statement();
      expect({ ...after, lines: after.lines.length }).to.deep.equal({ ...(statementBefore as typeof after), lines: (statementBefore as typeof after).lines.length });
      await svc.app.runner.rebuild();
      for (const v of [...Object.values(erased), ...Object.values(kept)]) expect((await whereIs(v)).tables, v).to.deep.equal([]);
    });
  });
}
