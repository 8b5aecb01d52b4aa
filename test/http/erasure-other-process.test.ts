// Issue 32, split topology: a process that only serves requests (no projections, so it never reads the log's erasure
// events) must not show an erased customer's values from the keys it has cached. What a person is shown of the log
// (the history, the export) opens values with the keys the key store holds now.
import { expect } from 'chai';
import pino from 'pino';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

for (const backend of backends()) {
  describe(`an erasure made by another process (${backend})`, () => {
    let svc: TestService;
    let serve: App;
    let serveUrl: string;
    before(async () => {
      svc = await startService(backend);
      // A second `serve` on the same database: its own key cache, no projections (the first process projects).
      serve = await createApp(loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent' }), { db: svc.db, clock: svc.clock, projections: false, migrate: false, logger: pino({ level: 'silent' }) });
      serveUrl = await serve.listen(0, '127.0.0.1');
    });
    after(async () => {
      await serve?.close();
      await svc?.close();
    });

    /** POSTs an operation to the second process. */
    async function onServe(op: string, body: unknown, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${serveUrl}/api/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    it('shows "[erased]" in the history and the export at once, though the process had the key cached; its other reads stop opening it too', async () => {
      const owner = await svc.signUp();
      const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      const email = 'kept-in-a-cache@erase-me.example';
      const name = 'Cached Key Motors Ltd';
      const created = await svc.call(ops['billing.customers.insert'], { name, email, currency: 'GBP' }, owner.token);
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      const id = created.body.id;
      // The serving process writes to the customer (its command reads and seals with the customer's key: now cached)...
      const updated = await onServe('billing.customers.update', { id, name: `${name} (trading)` }, owner.token);
      expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
      // ...and shows staff the values.
      const before = await onServe('billing.history.get', { subject: { type: 'customer', id } }, staff.token);
      expect(before.status, JSON.stringify(before.body)).to.equal(200);
      expect(JSON.stringify(before.body)).to.include(email);
      // The first process erases the customer.
      const erased = await svc.call(ops['billing.customers.erase'], { id, legal_basis: 'consent_withdrawn', reason: 'Ticket 77: asked to be forgotten' }, staff.token);
      expect(erased.status, JSON.stringify(erased.body)).to.equal(200);

      const history = await onServe('billing.history.get', { subject: { type: 'customer', id } }, staff.token);
      expect(history.status, JSON.stringify(history.body)).to.equal(200);
      const text = JSON.stringify(history.body);
      expect(text).to.not.include(email).and.not.include(name);
      expect(text).to.include('[erased]');
      expect((history.body.items as { type: string }[]).map((i) => i.type)).to.include('DataSubjectErased');
      const exported = await onServe('billing.customers.export', { id }, staff.token);
      expect(exported.status, JSON.stringify(exported.body)).to.equal(200);
      expect(JSON.stringify(exported.body)).to.not.include(email).and.not.include(name);
      // The history's lookup told the process's cache: a command's read of the stream opens nothing either.
      const read: unknown[] = [];
      for await (const e of serve.store.readStream(`customer-${id}`)) read.push(e.data);
      expect(JSON.stringify(read)).to.not.include(email).and.not.include(name);
    });
  });
}
