// Issue 32: personal data is crypto-shredded. Fields the event schemas mark are stored encrypted; billing.customers.erase
// deletes the keys, so nothing of what is not kept for tax law is left in the log, the read models or a rebuild; the
// invoice details tax law requires stay until the retention period ends.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { filesHolding, tablesHolding } from '../support/personal-traces.ts';
import { ops } from '../support/ops.ts';
import { openInvoice } from '../support/billing.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { retentionWorker } from '../../src/workers/billing/retention.ts';
import { operator } from '../../src/cli/clients.ts';
import { customersOperatorErase } from '../../src/commands/billing/customer-erasure.ts';

for (const backend of backends()) {
  describe(`personal data erasure (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    before(async () => {
      svc = await startService(backend);
      // A session that outlives the retention period the clock is moved through.
      const s = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      staff = (await createSession(svc.app.knex, { userId: s.userId, organizationId: s.orgId, now: svc.clock.now(), ttlHours: 24 * 366 * 12 })).token;
    });
    after(async () => svc?.close());

    /** An organization with a customer whose personal values are unique to the test. */
    async function customerWith(tag: string) {
      const u = await svc.signUp();
      const token = (await createSession(svc.app.knex, { userId: u.userId, organizationId: u.orgId, now: svc.clock.now(), ttlHours: 24 * 366 * 12 })).token;
      const values = { email: `${tag}@erase-me.example`, name: `Name ${tag} Ltd`, line1: `1 ${tag} Street`, note: `Spoke to ${tag} about arrears`, filename: `passport-${tag}.pdf` };
      const c = await svc.call(ops['billing.customers.insert'], { name: values.name, email: values.email, currency: 'GBP', billing_address: { line1: values.line1, city: 'Leeds', country: 'GB' }, tax_id: `GB${tag}` }, token);
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      const n = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: c.body.id }, body: values.note }, token);
      expect(n.status, JSON.stringify(n.body)).to.equal(200);
      const a = await svc.call(ops['billing.customers.attachments.prepare'], { customer_id: c.body.id, files: [{ filename: values.filename, content_type: 'application/pdf', size: 10 }] }, staff);
      expect(a.status, JSON.stringify(a.body)).to.equal(200);
      return { id: c.body.id, orgId: u.orgId, token, values };
    }

    it('stores marked personal fields encrypted: the log holds no plaintext, every read decrypts them', async () => {
      const c = await customerWith('plain01');
      const raw = (await svc.app.knex('es_events').where({ stream_id: `customer-${c.id}` }).select(svc.app.knex.raw('data::text as t'))) as { t: string }[];
      const stored = raw.map((r) => r.t).join('\n');
      expect(stored).to.include('"$enc"');
      for (const v of [c.values.email, c.values.name, c.values.line1]) expect(stored).to.not.include(v);
      const got = await svc.call(ops['billing.customers.get'], { id: c.id }, c.token);
      expect(got.body).to.include({ email: c.values.email, name: c.values.name });
      expect(got.body.billing_address?.line1).to.equal(c.values.line1);
      expect(await tablesHolding(svc, c.values.email)).to.deep.equal(['billing_customers', 'billing_events']);
    });

    it('refuses erasure to anyone but billing staff, and without a reason (400 naming the field), erasing nothing', async () => {
      const c = await customerWith('refuse02');
      const own = await svc.send('billing.customers.erase', { id: c.id, legal_basis: 'consent_withdrawn', reason: 'asked' }, c.token);
      expect(own.status).to.equal(403);
      const bare = await svc.send('billing.customers.erase', { id: c.id, legal_basis: 'consent_withdrawn' }, staff);
      expect(bare.status).to.equal(400);
      expect(bare.body.issues?.map((i: { path: string }) => i.path)).to.include('reason');
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, c.token)).body.email).to.equal(c.values.email);
    });

    it('erases a customer without issued invoices completely: no byte of its values is left in any table or file, nor after a rebuild', async () => {
      const c = await customerWith('gone03');
      const res = await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'consent_withdrawn', reason: 'Ticket 4411: customer asked to be forgotten' }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.retained).to.deep.equal([]);
      expect(res.body.retained_until).to.equal(null);
      expect(res.body.erased).to.include.members([`customer:${c.id}`, `customer:${c.id}:retained`]);
      const got = await svc.call(ops['billing.customers.get'], { id: c.id }, staff);
      expect(got.body).to.include({ email: '[erased]', name: '[erased]', tax_id: '[erased]' });
      expect(got.body.billing_address).to.include({ line1: '[erased]', city: '[erased]', country: 'GB' });
      const notes = await svc.call(ops['billing.notes.list'], { subject: { type: 'customer', id: c.id } }, staff);
      expect(notes.body.items.map((n) => n.body)).to.deep.equal(['[erased]']);
      const check = async () => {
        for (const v of Object.values(c.values)) {
          expect(await tablesHolding(svc, v), v).to.deep.equal([]);
          // The object store (its keys are ids; file names live only in the encrypted events) and the data directory.
          for (const dir of [svc.app.config.objectStore.replace(/^file:/, ''), svc.app.config.dataDir]) if (existsSync(dir)) expect(filesHolding(dir, v), v).to.deep.equal([]);
        }
      };
      await check();
      await svc.app.runner.rebuild();
      await check();
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body).to.include({ email: '[erased]', name: '[erased]' });
    });

    it('keeps what tax law requires on issued invoices until the retention period ends, then a worker erases it', async () => {
      const c = await customerWith('kept04');
      const invoice = await openInvoice(svc, staff, c.id, [12_000]);
      const res = await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'no_longer_necessary', reason: 'Contract ended' }, staff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.retained).to.deep.equal([`customer:${c.id}:retained`]);
      const issued = svc.clock.now().toISOString().slice(0, 10);
      expect(res.body.retained_until).to.equal(`${Number(issued.slice(0, 4)) + 6}${issued.slice(4)}`);
      // Until then: the invoice's legal name, address and VAT number stay; the email, note and file name are gone.
      const got = await svc.call(ops['billing.customers.get'], { id: c.id }, staff);
      expect(got.body).to.include({ email: '[erased]', name: c.values.name, tax_id: 'GBkept04' });
      expect(got.body.billing_address?.line1).to.equal(c.values.line1);
      const inv = await svc.call(ops['billing.invoices.get'], invoice.id, staff);
      expect(inv.body).to.include({ number: invoice.number, total: 12_000, status: 'open' });
      for (const v of [c.values.email, c.values.note, c.values.filename]) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
      await svc.app.runner.rebuild(['billing.customers', 'billing.events']);
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body).to.include({ email: '[erased]', name: c.values.name });
      // The worker leaves it alone before the end of the period and erases it after.
      await retentionWorker.runOnce(svc.app);
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body.name).to.equal(c.values.name);
      svc.clock.advance(6 * 366 * 86_400_000);
      await retentionWorker.runOnce(svc.app);
      const later = await svc.call(ops['billing.customers.get'], { id: c.id }, staff);
      expect(later.body).to.include({ name: '[erased]', tax_id: '[erased]' });
      for (const v of Object.values(c.values)) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
      expect((await svc.call(ops['billing.invoices.get'], invoice.id, staff)).body).to.include({ number: invoice.number, total: 12_000 });
    });

    it('is idempotent and completes after a crash between deleting the keys and recording the erasure', async () => {
      const c = await customerWith('crash05');
      // The crash: the keys were deleted, the event never appended.
      await svc.app.personalData.eraseSubjects([`customer:${c.id}`], svc.clock.now());
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body.email).to.equal(c.values.email);
      const first = await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'consent_withdrawn', reason: 'retry after crash' }, staff);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      svc.clock.advance(60_000);
      const again = await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'objection', reason: 'second request' }, staff);
      expect(again.body).to.deep.equal(first.body);
      const types = (await svc.app.knex('es_events').where({ stream_id: `customer-${c.id}` }).select('type')).map((r: { type: string }) => r.type);
      expect(types.filter((t) => t === 'DataSubjectErased')).to.have.length(1);
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body.email).to.equal('[erased]');
    });

    it('shows in the customer\'s history that an erasure happened, by whom and why', async () => {
      const c = await customerWith('history06');
      await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'consent_withdrawn', reason: 'Ticket 77' }, staff);
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: c.id } }, staff);
      expect(h.status, JSON.stringify(h.body)).to.equal(200);
      const entry = h.body.items.find((i) => i.type === 'DataSubjectErased');
      expect(entry?.actor.type).to.equal('staff');
      expect(JSON.stringify(h.body)).to.include('Ticket 77').and.not.include(c.values.email);
    });

    it('erases on an operator\'s command (core-server erase) the same way, recording the operator as who asked', async () => {
      const c = await customerWith('operator07');
      const { body } = await svc.app.invoke(customersOperatorErase, { id: c.id, legal_basis: 'legal_obligation', reason: 'Court order 12' }, operator('erase customer: Court order 12'));
      expect(body).to.include({ subject: `customer:${c.id}`, reason: 'Court order 12' });
      expect(body.requested_by).to.deep.equal({ type: 'system', id: 'cli' });
      expect((await svc.call(ops['billing.customers.get'], { id: c.id }, staff)).body.email).to.equal('[erased]');
      expect(await tablesHolding(svc, c.values.email)).to.deep.equal([]);
    });

    it('exports everything held about a customer as JSON to its owner, decrypted, and "[erased]" after erasure', async () => {
      const c = await customerWith('export08');
      const ex = await svc.call(ops['billing.customers.export'], { id: c.id }, c.token);
      expect(ex.status, JSON.stringify(ex.body)).to.equal(200);
      expect(ex.body.customer).to.include({ email: c.values.email, name: c.values.name });
      expect(ex.body.notes.map((n) => n.body)).to.deep.equal([c.values.note]);
      expect(ex.body.attachments.map((a) => a.filename)).to.deep.equal([c.values.filename]);
      expect(ex.body.events.map((e) => e.type)).to.include.members(['CustomerCreated', 'NoteAdded', 'AttachmentPrepared']);
      expect(JSON.stringify(ex.body.events)).to.include(c.values.email).and.not.include('$enc');
      expect((await svc.call(ops['billing.customers.export'], { id: c.id }, (await svc.signUp()).token)).status).to.equal(404);
      await svc.call(ops['billing.customers.erase'], { id: c.id, legal_basis: 'consent_withdrawn', reason: 'then erased' }, staff);
      const after = await svc.call(ops['billing.customers.export'], { id: c.id }, staff);
      const text = JSON.stringify(after.body);
      for (const v of Object.values(c.values)) expect(text).to.not.include(v);
      expect(after.body.events.map((e) => e.type)).to.include('DataSubjectErased');
    });
  });
}
