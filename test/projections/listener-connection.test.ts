// Issue 31: DATABASE_POOL_MAX is a process's whole budget of PostgreSQL connections. Its pool and ONE listener
// connection (LISTEN for the log and the checkpoints, and the projector's presence) stay within it under load, and
// the CLI still sees a running projector. PostgreSQL only: PGlite is one process with no connections to count.
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import pino from 'pino';
import { openTestDb } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { loadConfig } from '../../src/config.ts';
import { projectorRunning } from '../../src/projections/engine/presence.ts';
import { createApp, openDatabase } from '../../src/app.ts';
import pg from 'pg';
import { sharedListener } from '../../src/db-listener.ts';

describe('one connection budget per process (postgres)', function () {
  this.timeout(120_000);
  if (!process.env.TEST_DATABASE_URL) {
    it('runs only with TEST_DATABASE_URL (PostgreSQL): PGlite has no connections to budget', () => {
      expect(process.env.TEST_DATABASE_URL).to.equal(undefined);
    });
    return;
  }

  it('a projecting process under load keeps its pool and one listener within DATABASE_POOL_MAX; the CLI sees the projector while it runs', async () => {
    const admin = await openTestDb('postgres'); // migrated; its own pool is where the counting is done from
    const env = { DATABASE_URL: admin.url!, DATABASE_POOL_MAX: '4', DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', OBJECT_STORE: `file:${mkdtempSync(path.join(os.tmpdir(), 'core-objects-'))}` };
    const db = await openDatabase(loadConfig(env), 'start');
    const svc = await startService('postgres', { db });
    // A second process kind on the same database: `serve` (no projections) with its own budget.
    const serveDb = await openDatabase(loadConfig(env), 'serve');
    const serve = await createApp(loadConfig(env), { db: serveDb, projections: false, migrate: false, logger: pino({ level: 'silent' }) });
    const count = async () =>
      (await admin.knex.raw(`select application_name as name, count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like 'core-server%' group by 1 order by 1`)).rows as { name: string; n: number }[];
    let most = 0;
    let closed = false;
    try {
      const serveUrl = await serve.listen(0, '127.0.0.1');
      const owners = await Promise.all(Array.from({ length: 12 }, () => svc.signUp()));
      const sampling = (async () => {
        while (!closed) {
          const rows = await count();
          // The projecting process's connections: its pool's, and its listener (the one that says projector).
          most = Math.max(most, rows.filter((r) => r.name === 'core-server start' || r.name.includes('projector')).reduce((a, r) => a + r.n, 0));
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      // Writes on both processes at once: the serve process waits for the projector's checkpoints (its listener hears them).
      const answers = await Promise.all(owners.map((o, i) =>
        i % 2 === 0
          ? svc.call(ops['billing.customers.insert'], { name: `Budget ${i} Ltd`, email: `b${i}@example.com`, currency: 'GBP' }, o.token)
          : fetch(`${serveUrl}/api/v1/billing.customers.insert`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` }, body: JSON.stringify({ name: `Budget ${i} Ltd`, email: `b${i}@example.com`, currency: 'GBP' }) }),
      ));
      expect(answers.map((a) => a.status)).to.deep.equal(owners.map(() => 200));
      closed = true;
      await sampling;
      const rows = await count();
      const listeners = rows.filter((r) => r.name.startsWith('core-server listener:'));
      // Two processes, one listener connection each: the projecting one says so, the serve one listens for checkpoints.
      expect(listeners.reduce((a, r) => a + r.n, 0)).to.equal(2);
      const projector = listeners.find((r) => r.name.includes('projector'));
      expect(projector?.name).to.match(/^core-server listener: log( checkpoints)? projector$/);
      expect(listeners.some((r) => /^core-server listener: .*checkpoints/.test(r.name) && !r.name.includes('projector'))).to.equal(true);
      // The projecting process never held more than its budget: pool (3) and listener (1).
      const start = rows.find((r) => r.name === 'core-server start')?.n ?? 0;
      expect(start).to.be.at.most(3);
      expect(most).to.be.at.most(4);
      expect(await projectorRunning(admin.knex, 'postgres')).to.equal(true);
    } finally {
      closed = true;
      await serve.close();
      await serveDb.close();
      await svc.close();
    }
    // Gone with the process: the CLI applies events itself again.
    for (let i = 0; i < 100 && (await projectorRunning(admin.knex, 'postgres')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await projectorRunning(admin.knex, 'postgres')).to.equal(false);
    await admin.close();
  });

  it('the listener connection sends one query at a time: NOTIFYs and a rename at once overlap nothing (pg@9 will not queue them)', async () => {
    const db = await openTestDb('postgres');
    const listener = sharedListener(db);
    // Counted at the driver: how many queries each client has sent and not yet had answered.
    const inFlight = new Map<pg.Client, number>();
    let most = 0;
    const query = pg.Client.prototype.query;
    const counted = function (this: pg.Client, ...args: unknown[]) {
      const n = (inFlight.get(this) ?? 0) + 1;
      inFlight.set(this, n);
      most = Math.max(most, n);
      const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
      const answer = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (answer instanceof Promise) answer.then(done, done);
      return answer;
    };
    listener.use();
    try {
      await listener.hold('log');
      listener.subscribe('test_serial', 'log', () => {});
      await listener.listen();
      expect(listener.listening).to.equal(true);
      pg.Client.prototype.query = counted as typeof query;
      const sent = await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => listener.query('select pg_notify($1, $2)', ['test_serial', String(i)])),
        listener.hold('checkpoints').then(() => null),
      ]);
      expect(sent.filter((r) => r !== null)).to.have.length(10);
      expect(most).to.equal(1);
    } finally {
      pg.Client.prototype.query = query;
      await listener.leave();
      await db.close();
    }
  });
});
