// The projection runner: catch-up from the checkpoint after a crash, and never applying a batch twice.
import { expect } from 'chai';
import crypto from 'node:crypto';
import pino from 'pino';
import type { Knex } from 'knex';
import { backends, openTestDb } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { type Db, openPostgres } from '../../src/db.ts';
import { TestClock } from '../../src/clock.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { projections } from '../../src/areas/index.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { billingCustomersProjection } from '../../src/projections/billing/customers.ts';
import { ops } from '../support/ops.ts';


const logger = pino({ level: 'silent' });
const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };

/** Records every event it is given, with which runner applied it: duplicates would show as repeated rows. */
function countingProjection(runnerName: string): Projection {
  return {
    name: 'test.counter',
    version: 1,
    tables: ['test_applied'],
    async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
      const rows = events.filter((e) => e.type === 'Counted').map((e) => ({ event_id: e.id, runner: runnerName }));
      if (rows.length) await trx('test_applied').insert(rows);
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const backend of backends()) {
  describe(`projection runner (${backend})`, function () {
    this.timeout(120_000);

    it('a crash between append and projection loses nothing: a new runner catches up from its checkpoint', async () => {
      const svc = await startService(backend, { env: { PROJECTION_WAIT_MS: '300' } });
      try {
        const owner = await svc.signUp();
        // The projector "crashes": the events are appended, but no runner applies them.
        await svc.app.runner.stop();
        const res = await svc.call(ops['billing.customers.insert'], { name: 'Late Ltd', email: 'late@example.com', currency: 'GBP' }, owner.token);
        expect(res.status).to.equal(503);
        expect(res.body.code).to.equal('projection_lag');
        expect(res.headers.get('retry-after')).to.equal('1');
        expect((await svc.call(ops['billing.customers.list'], {}, owner.token)).body.items).to.have.length(0);
        // Readiness reports the stalled read models once their oldest unapplied event is old.
        svc.clock.advance(60_000);
        const notReady = await fetch(`${svc.url}/readyz`);
        expect(notReady.status).to.equal(503);
        const checks = ((await notReady.json()) as { checks: { name: string; ok: boolean }[] }).checks;
        expect(checks.filter((c) => !c.ok).map((c) => c.name)).to.include(`projection:${billingCustomersProjection.name}`);
        // A restarted projector starts from the stored checkpoint and applies what it missed.
        const restarted = new ProjectionRunner(svc.app.knex, svc.app.store, projections, { logger, clock: svc.clock });
        await restarted.prepare();
        restarted.start();
        try {
          await restarted.waitFor(await svc.app.store.headPosition(), [billingCustomersProjection], 10_000);
          const list = await svc.call(ops['billing.customers.list'], {}, owner.token);
          expect(list.body.items.map((c: { name: string }) => c.name)).to.deep.equal(['Late Ltd']);
        } finally {
          // A projector stores its checkpoints when it stops (projections that only skipped events store them lazily).
          await restarted.stop();
        }
        expect((await fetch(`${svc.url}/readyz`)).status).to.equal(200);
      } finally {
        await svc.close();
      }
    });

    it(`two runners on one database (and a third catching up, like the CLI) never apply an event twice`, async () => {
      const db = await openTestDb(backend);
      // A second "process": its own connection pool on Postgres; PGlite has one connection, so it shares it.
      const db2: Db = backend === 'postgres' ? openPostgres(db.url!, 5) : db;
      const store = new PostgresEventStore(db);
      const store2 = new PostgresEventStore(db2);
      const clock = new TestClock();
      await db.knex.raw('create table test_applied (event_id uuid not null, runner text not null)');
      const a = new ProjectionRunner(db.knex, store, [countingProjection('a')], { logger, clock, batchSize: 7 });
      const b = new ProjectionRunner(db2.knex, store2, [countingProjection('b')], { logger, clock, batchSize: 5 });
      const c = new ProjectionRunner(db2.knex, store2, [countingProjection('c')], { logger, clock, batchSize: 3 });
      try {
        await a.prepare();
        await b.prepare();
        a.start();
        b.start();
        const total = 600;
        const catchingUp = (async () => {
          await c.prepare();
          for (let i = 0; i < 5; i++) {
            await c.catchUp();
            await new Promise((r) => setTimeout(r, 30));
          }
        })();
        await Promise.all(Array.from({ length: 12 }, async () => {
          for (let i = 0; i < total / 12; i++) {
            await store.appendToStream(`count-${crypto.randomUUID()}`, [{ id: crypto.randomUUID(), type: 'Counted', data: {}, metadata: meta }], { expectedRevision: 'no_stream' });
          }
        }));
        await catchingUp;
        const head = await store.headPosition();
        await waitUntil(async () => (await db.knex('projection_checkpoints').where({ name: 'test.counter' }).first())?.position === head);
        const rows = (await db.knex('test_applied').select('event_id', 'runner')) as { event_id: string; runner: string }[];
        expect(rows).to.have.length(total);
        expect(new Set(rows.map((r) => r.event_id)).size).to.equal(total);
      } finally {
        await a.stop();
        await b.stop();
        await store.close();
        await store2.close();
        if (db2 !== db) await db2.close();
        await db.close();
      }
    });
  });
}
