// Read-your-writes in a `serve` process, while another process runs the projections: every waiting request
// shares one reader of the checkpoints, and a projector's NOTIFY ends the wait (not a poll): by the checkpoints it
// carries, or by a read when it carries none. Two apps or runners on one database stand for two processes (on
// PGlite, one process is all there can be).
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import pino from 'pino';
import type { Knex } from 'knex';
import { backends, openTestDb } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TestClock } from '../../src/clock.ts';
import { PostgresEventStore, formatPosition } from '../../src/eventstore/postgres.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { RemoteProgress, checkpointNews, progressChannel } from '../../src/projections/engine/remote-progress.ts';

const logger = pino({ level: 'silent' });
const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };
const CHECKPOINT_READ = /^select "name", "position".* from "projection_checkpoints" where "name" in/;

/** Reads of the checkpoints by a waiting process: how many started and answered, and the most at once. */
function watchCheckpointReads(knex: Knex): { total: number; answered: number; maxInFlight: number } {
  const seen = { total: 0, answered: 0, maxInFlight: 0 };
  const open = new Set<string>();
  knex.on('query', (q: { __knexQueryUid: string; sql: string }) => {
    if (!CHECKPOINT_READ.test(q.sql)) return;
    seen.total++;
    open.add(q.__knexQueryUid);
    seen.maxInFlight = Math.max(seen.maxInFlight, open.size);
  });
  const done = (_: unknown, q: { __knexQueryUid: string }) => {
    if (open.delete(q.__knexQueryUid)) seen.answered++;
  };
  knex.on('query-response', done);
  knex.on('query-error', done);
  return seen;
}

for (const backend of backends()) {
  describe(`read-your-writes while another process projects (${backend})`, function () {
    this.timeout(120_000);

    it('forty requests waiting at once share one reader of the checkpoints, and each sees its own write', async () => {
      // svc runs the projections (the `project` process); `serve` answers HTTP without them, on the same database.
      const svc = await startService(backend);
      const config = loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', LOG_LEVEL: 'silent', PROJECTION_WAIT_MS: '20000', OBJECT_STORE: `file:${mkdtempSync(path.join(os.tmpdir(), 'core-objects-'))}` });
      const serve = await createApp(config, { db: svc.db, clock: svc.clock, projections: false, migrate: false, logger });
      try {
        const url = await serve.listen(0, '127.0.0.1');
        const owners = await Promise.all(Array.from({ length: 40 }, () => svc.signUp()));
        const reads = watchCheckpointReads(svc.db.knex);
        const post = async (op: string, body: unknown, token: string) => {
          const res = await fetch(`${url}/api/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as { id: string; name: string } };
        };
        const inserted = await Promise.all(owners.map((o, i) => post(ops['billing.customers.insert'].id, { name: `Waiting ${i} Ltd`, email: `w${i}@example.com`, currency: 'GBP' }, o.token)));
        expect(inserted.map((r) => r.status)).to.deep.equal(owners.map(() => 200));
        // Each answer came after its read model had the row: a get on the serve process finds it at once.
        const got = await Promise.all(inserted.map((r, i) => post(ops['billing.customers.get'].id, { id: r.body.id }, owners[i]!.token)));
        expect(got.map((r) => r.body.name)).to.deep.equal(owners.map((_, i) => `Waiting ${i} Ltd`));
        // Each request polling on its own read the table at least once per request, several at a time.
        expect(reads.total).to.be.greaterThan(0).and.lessThan(owners.length);
        expect(reads.maxInFlight).to.equal(1);
      } finally {
        await serve.close();
        await svc.close();
      }
    });

    it('a wait asked for as the reader answers the last one is still served', async function () {
      this.timeout(20_000);
      const db = await openTestDb(backend);
      try {
        await db.knex('projection_checkpoints').insert({ name: 'test.remote', version: 1, position: formatPosition('5', '5') });
        const remote = new RemoteProgress(db.knex, undefined, 600_000);
        const at = formatPosition('4', '4');
        await remote.waitFor(at, ['test.remote'], 600_000);
        // This runs in the turn that answered the first wait, while the reader that answered it is ending: a
        // reader that still counted as running would never serve it (nor time it out).
        let served = false;
        await remote.waitFor(at, ['test.remote'], 600_000).then(() => (served = true));
        expect(served).to.equal(true);
      } finally {
        await db.close();
      }
    });

    it('a wait with no poll before its deadline ends when the projector commits', async function () {
      this.timeout(30_000);
      const db = await openTestDb(backend);
      const store = new PostgresEventStore(db);
      const projectorChannel = progressChannel(db);
      const waiterChannel = progressChannel(db);
      await db.knex.raw('create table test_applied (event_id uuid not null)');
      const projector = new ProjectionRunner(db.knex, store, [{
        name: 'test.counter',
        version: 1,
        tables: ['test_applied'],
        async apply(trx, events) {
          await trx('test_applied').insert(events.map((e) => ({ event_id: e.id })));
        },
      }], { logger, clock: new TestClock(new Date()), progressChannel: projectorChannel });
      try {
        await projector.prepare();
        await waiterChannel.listen();
        expect(waiterChannel.listening).to.equal(true);
        // Neither the fallback poll nor the deadline comes within this test's 30 s: only a NOTIFY can end the wait.
        const remote = new RemoteProgress(db.knex, waiterChannel, 600_000);
        const reads = watchCheckpointReads(db.knex);
        const { position } = await store.appendToStream('counter-1', [{ id: crypto.randomUUID(), type: 'Counted', data: {}, metadata: meta }], { expectedRevision: 'no_stream' });
        const waited = remote.waitFor(position, ['test.counter'], 600_000);
        // The waiter has read the checkpoint behind its write before the projector starts.
        while (reads.answered === 0) await new Promise((r) => setImmediate(r));
        projector.start();
        await waited;
        expect((await db.knex('test_applied').select('event_id')).length).to.equal(1);
        // The NOTIFY named the stored checkpoint: no second read.
        expect(reads.total).to.equal(1);
      } finally {
        await projector.stop();
        await projectorChannel.close();
        await waiterChannel.close();
        await store.close();
        await db.close();
      }
    });

    it('a NOTIFY that cannot carry the checkpoints (too many for one) ends the wait by a read', async function () {
      this.timeout(30_000);
      const db = await openTestDb(backend);
      const senderChannel = progressChannel(db);
      const waiterChannel = progressChannel(db);
      try {
        await db.knex('projection_checkpoints').insert({ name: 'test.remote', version: 1, position: formatPosition('1', '1') });
        await waiterChannel.listen();
        await senderChannel.listen();
        const remote = new RemoteProgress(db.knex, waiterChannel, 600_000);
        const reads = watchCheckpointReads(db.knex);
        const waited = remote.waitFor(formatPosition('4', '4'), ['test.remote'], 600_000);
        while (reads.answered === 0) await new Promise((r) => setImmediate(r));
        await db.knex('projection_checkpoints').where({ name: 'test.remote' }).update({ position: formatPosition('5', '5') });
        const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`test.projection.with.a.long.name.${i}`, formatPosition('5', '5')]));
        const news = checkpointNews({ ...many, 'test.remote': formatPosition('5', '5') });
        expect(news).to.equal('moved');
        senderChannel.notify(() => news);
        await waited;
        expect(reads.total).to.equal(2);
      } finally {
        await senderChannel.close();
        await waiterChannel.close();
        await db.close();
      }
    });
  });
}
