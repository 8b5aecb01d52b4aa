// Crashes: a `project` process (PostgreSQL) killed with SIGKILL at random points while commands run, and the
// embedded `start` killed under write load and restarted at once. Nothing acknowledged may be lost, every
// restart must succeed, and the read models must equal a rebuild from the log.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { systemContext } from '../support/system.ts';
import { createOrganization, createSession, createUser } from '../../src/commands/identity/identity.ts';
import { openTestDb } from '../support/db.ts';
import { dumpReadModels } from '../projections/support.ts';
import { childEnv, freePort, spawnCli } from '../support/process.ts';

/** Seeded pseudo-random numbers, so a failing run can be repeated. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes notes on one customer from `workers` loops until stopped; remembers the ids of notes answered with 200. */
function writeLoad(base: () => string, token: string, customerId: string, workers = 3) {
  const acked = new Set<string>();
  let running = true;
  let attempts = 0;
  let answered = 0;
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running) {
      attempts++;
      try {
        const res = await fetch(`${base()}/api/v1/billing.notes.insert`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `w${w}-${attempts}` },
          body: JSON.stringify({ subject: { type: 'customer', id: customerId }, body: `note ${w}-${attempts}` }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { id?: string };
        answered++;
        if (res.status === 200 && body.id) acked.add(body.id);
      } catch {
        await sleep(50); // the server is down (killed or restarting)
      }
    }
  });
  return {
    acked,
    answered: () => answered,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('crashes', function () {
  this.timeout(600_000);

  describe('a `project` process killed with SIGKILL at random points (PostgreSQL)', () => {
    if (!process.env.TEST_DATABASE_URL) {
      it('runs only with TEST_DATABASE_URL (the project process needs PostgreSQL)', () => {
        console.log('      crash test of `project` not run: TEST_DATABASE_URL is not set, and `project` as its own process needs PostgreSQL');
        expect(process.env.TEST_DATABASE_URL).to.equal(undefined);
      });
      return;
    }

    it('survives at least 50 kills: no acknowledged command is missing from the log, and read models equal a rebuild', async () => {
      const db = await openTestDb('postgres');
      let app: App | undefined;
      try {
        const url = db.url ?? '';
        const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', PROJECTION_WAIT_MS: '1500' });
        app = await createApp(config, { db, projections: false, migrate: false, logger: pino({ level: 'silent' }) });
        const base = await app.listen(0, '127.0.0.1');
        const ctx = systemContext(app, 'crash test');
        const org = await createOrganization(ctx, { name: 'Crash Ltd', kind: 'repairer' });
        const user = await createUser(ctx, { email: 'crash@example.com', password: 'crash password', organizationId: org.id, role: 'owner' });
        await app.runner.catchUp();
        const token = (await createSession(app.knex, { userId: user.id, organizationId: org.id, now: new Date(), ttlHours: 1 })).token;
        const customer = await fetch(`${base}/api/v1/billing.customers.insert`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Crash Customer', email: 'c@example.com', currency: 'GBP' }) });
        // No projector runs yet: the customer is saved, its read model comes with the first `project`.
        expect(customer.status).to.be.oneOf([200, 503]);
        const customerId = ((await app.knex('es_events').where('type', 'CustomerCreated').first('data')) as { data: { customer_id: string } }).data.customer_id;
        await app.runner.catchUp();

        const load = writeLoad(() => base, token, customerId);
        const rnd = random(8);
        const started = Date.now();
        let kills = 0;
        // info: the start-up line ("core-server (project) started") says when the projector runs.
        const env = childEnv({ DATABASE_URL: url, LOG_LEVEL: 'info' });
        while (kills < 50 || (kills < 80 && Date.now() - started < 60_000)) {
          if (Date.now() - started > 420_000) break;
          const proc = spawnCli(['project'], env);
          // Every other kill lands during start-up; the rest while projecting (after it says it runs), so a loaded
          // machine whose start-up outlasts any fixed delay still kills running projectors.
          const running = kills % 2 === 0 ? sleep(150 + rnd() * 2_500) : proc.waitFor(/\(project\) started/).then(() => sleep(rnd() * 1_500), () => undefined);
          await Promise.race([running, proc.exited]);
          proc.child.kill('SIGKILL');
          const exit = await proc.exited;
          expect(exit.signal ?? exit.code, proc.stderr()).to.be.oneOf(['SIGKILL', 0]);
          kills++;
        }
        await load.stop();
        console.log(`      project killed ${kills} times in ${((Date.now() - started) / 1000).toFixed(0)} s; ${load.answered()} note inserts answered, ${load.acked.size} with 200`);
        expect(kills).to.be.at.least(50);
        expect(load.acked.size, 'some commands were acknowledged').to.be.greaterThan(0);

        const logged = new Set(((await app.knex('es_events').where('type', 'NoteAdded').select('stream_id')) as { stream_id: string }[]).map((r) => r.stream_id));
        const lost = [...load.acked].filter((id) => !logged.has(`note-${id}`));
        expect(lost, 'acknowledged notes missing from the log').to.deep.equal([]);

        // One last projector pass, then: what the killed processes built equals a rebuild from the log.
        await app.runner.catchUp();
        const live = await dumpReadModels(app.knex);
        const notes = live.billing_notes as { id: string }[];
        expect(notes.map((n) => n.id)).to.include.members([...load.acked]);
        await app.runner.rebuild([]);
        expect(await dumpReadModels(app.knex)).to.deep.equal(live);
      } finally {
        await app?.close();
        await db.close();
      }
    });
  });

  describe('the embedded `start` killed with SIGKILL under write load and restarted at once', () => {
    it('restarts every time (at least 10) and keeps every acknowledged write', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-crash-'));
      try {
        const port = await freePort();
        const env = childEnv({ DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'error' });
        const base = `http://127.0.0.1:${port}`;
        let proc = spawnCli(['start'], env);
        const token = (await proc.waitFor(/demo org user token \(Acme Repairs\): (svc_sess_\S+)/))[1] ?? '';
        // The demo seed gives Acme its billing customer (one per organization): the notes go on it.
        const listed = await fetch(`${base}/api/v1/billing.customers.list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
        expect(listed.status).to.equal(200);
        const customerId = ((await listed.json()) as { items: { id: string }[] }).items[0]?.id ?? '';
        expect(customerId).to.not.equal('');
        const load = writeLoad(() => base, token, customerId, 3);
        const rnd = random(10);
        let restarts = 0;
        for (let i = 0; i < 10; i++) {
          await sleep(500 + rnd() * 2_000);
          proc.child.kill('SIGKILL');
          await proc.exited;
          proc = spawnCli(['start'], env);
          await proc.waitFor(/API reference: /, 60_000);
          restarts++;
        }
        await sleep(500);
        await load.stop();
        console.log(`      start killed and restarted ${restarts} times; ${load.answered()} note inserts answered, ${load.acked.size} with 200`);
        expect(load.acked.size, 'some writes were acknowledged').to.be.greaterThan(0);
        const seen = new Set<string>();
        let cursor: string | undefined;
        do {
          const res = await fetch(`${base}/api/v1/billing.notes.list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ subject: { type: 'customer', id: customerId }, limit: 200, ...(cursor ? { cursor } : {}) }) });
          expect(res.status).to.equal(200);
          const page = (await res.json()) as { items: { id: string }[]; pagination: { cursor: string } | null };
          for (const n of page.items) seen.add(n.id);
          cursor = page.pagination?.cursor;
        } while (cursor);
        expect([...load.acked].filter((id) => !seen.has(id)), 'acknowledged notes missing after restarts').to.deep.equal([]);
        proc.child.kill('SIGTERM');
        expect((await proc.exited).code).to.equal(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
