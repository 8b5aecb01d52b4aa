// The projection engine isolates a failing projection: the one that cannot apply an event leaves the shared tail and
// stops at that event (everything before it applied), the others sharing the tail go on, and once an operator
// retries (the cause repaired) or skips the event, it catches up and joins the tail again. Both commit paths of the
// tail: a transaction (projections with only `apply`) and one statement (projections that `stage`).
import { expect } from 'chai';
import crypto from 'node:crypto';
import pino from 'pino';
import type { Knex } from 'knex';
import { backends, openTestDb } from '../support/db.ts';
import type { Db } from '../../src/db.ts';
import { TestClock } from '../../src/clock.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { LogPosition, RecordedEvent } from '../../src/eventstore/port.ts';
import { ReadModelFailedError } from '../../src/context.ts';
import type { Projection, StagedWrites } from '../../src/projections/projection.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { retryProjection, skipProjectionEvent } from '../../src/commands/platform/projections.ts';

const logger = pino({ level: 'silent' });
const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };

/** The row a test projection writes per event; `seq` is an int column, so a text there fails like a schema mismatch. */
interface Row {
  projection: string;
  event_id: string;
  seq: number | string;
}

/**
 * A projection that records every Counted event as a row of test_rows. `fails()`: a poisoned event makes its
 * write fail in the database (a text into the int column), whichever path writes it. `stage`: it also
 * commits live batches in one statement.
 */
function recorder(name: string, opts: { stage: boolean; fails: () => boolean }): Projection {
  const rows = (events: RecordedEvent[]): Row[] =>
    events
      .filter((e) => e.type === 'Counted')
      .map((e) => {
        const data = e.data as { seq: number; poison?: boolean };
        return { projection: name, event_id: e.id, seq: data.poison && opts.fails() ? 'poisoned' : data.seq };
      });
  const projection: Projection = {
    name,
    version: 1,
    tables: [],
    async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
      const batch = rows(events);
      if (batch.length) await trx('test_rows').insert(batch);
    },
  };
  if (!opts.stage) return projection;
  return {
    ...projection,
    async stage(_knex: Knex, events: RecordedEvent[]): Promise<StagedWrites> {
      const batch = rows(events);
      return {
        write(add) {
          if (batch.length) add((guard) => `insert into test_rows (projection, event_id, seq) select r.projection, r.event_id, r.seq from jsonb_to_recordset(?::jsonb) as r(projection text, event_id uuid, seq int) where ${guard} returning 1`, [JSON.stringify(batch)]);
        },
      };
    },
  };
}

/** Polls (real time: the runner works on its own) until `check` holds. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const backend of backends()) {
  for (const path of ['transaction', 'one statement'] as const) {
    describe(`a failing projection leaves the shared tail, the others go on (${backend}, ${path})`, function () {
      this.timeout(120_000);
      let db: Db;
      let store: PostgresEventStore;
      let runner: ProjectionRunner;
      let repaired = false;
      let seq = 0;
      const healthy = recorder('test.healthy', { stage: path === 'one statement', fails: () => false });
      const fragile = recorder('test.fragile', { stage: path === 'one statement', fails: () => !repaired });
      const clock = new TestClock();

      /** Appends one Counted event (the poisoned one when asked) and returns its id and position. */
      const append = async (poison = false): Promise<{ id: string; position: LogPosition }> => {
        const id = crypto.randomUUID();
        const res = await store.appendToStream(`count-${crypto.randomUUID()}`, [{ id, type: 'Counted', data: { seq: ++seq, ...(poison ? { poison: true } : {}) }, metadata: meta }], { expectedRevision: 'no_stream' });
        return { id, position: res.position };
      };
      const applied = async (name: string) => ((await db.knex('test_rows').where({ projection: name }).orderBy('seq').select('event_id')) as { event_id: string }[]).map((r) => r.event_id);

      before(async () => {
        db = await openTestDb(backend);
        store = new PostgresEventStore(db);
        await db.knex.raw('create table test_rows (projection text not null, event_id uuid not null, seq int not null)');
        runner = new ProjectionRunner(db.knex, store, [healthy, fragile], { logger, clock });
        await runner.prepare();
        runner.start();
      });
      after(async () => {
        await runner?.stop();
        await store?.close();
        await db?.close();
      });

      /** The events appended before the poisoned one, and after it. */
      const earlier: string[] = [];
      let poisoned = '';
      const later: string[] = [];

      it('stops the failing projection at the event, with everything before it applied, while the other applies the whole log', async () => {
        // Both share the tail: caught up on a first event.
        earlier.push((await append()).id);
        await runner.waitFor(await store.headPosition(), [healthy, fragile], 10_000);
        expect(runner.health.state('test.fragile')).to.equal('running');
        // Then a burst the tail reads in one or a few batches: good events, the poisoned one, good events.
        for (let i = 0; i < 3; i++) earlier.push((await append()).id);
        poisoned = (await append(true)).id;
        for (let i = 0; i < 3; i++) later.push((await append()).id);
        const head = await store.headPosition();

        await runner.waitFor(head, [healthy], 10_000);
        expect(await applied('test.healthy')).to.deep.equal([...earlier, poisoned, ...later]);
        // A wait on the stopped read model is told so (the writes themselves are in the log).
        const err = await runner.waitFor(head, [fragile], 10_000).then(() => null, (e: unknown) => e);
        expect(err).to.be.instanceOf(ReadModelFailedError);
        expect(err instanceof ReadModelFailedError ? err.projections : null).to.deep.equal(['test.fragile']);
        expect(await applied('test.fragile')).to.deep.equal(earlier);

        const statuses = await runner.statuses();
        const fragileStatus = statuses.find((s) => s.name === 'test.fragile');
        expect(fragileStatus?.state).to.equal('failed');
        expect(fragileStatus?.failure?.event_id).to.equal(poisoned);
        expect(statuses.find((s) => s.name === 'test.healthy')?.state).to.equal('running');
      });

      it('goes on feeding the others from the tail while it stays stopped', async () => {
        const meanwhile = await append();
        await runner.waitFor(meanwhile.position, [healthy], 10_000);
        expect(await applied('test.healthy')).to.include(meanwhile.id);
        later.push(meanwhile.id);
        expect(runner.health.state('test.fragile')).to.equal('failed');
        expect(await applied('test.fragile')).to.deep.equal(earlier);
      });

      const repair = path === 'transaction' ? 'retried once its cause is repaired' : 'skipped by an operator';
      it(`catches up and joins the tail again once ${repair}`, async () => {
        if (path === 'transaction') {
          repaired = true;
          await retryProjection(db.knex, runner.names(), 'test.fragile');
        } else {
          await skipProjectionEvent(db.knex, runner.names(), { name: 'test.fragile', eventId: poisoned, reason: 'test', actor: 'cli:test', now: clock.now() });
        }
        // At once here (the API and the CLI ask for it); the runner also looks every second, for other processes.
        await runner.resume();
        await runner.waitFor(await store.headPosition(), [fragile], 10_000);
        expect(await applied('test.fragile')).to.deep.equal(path === 'transaction' ? [...earlier, poisoned, ...later] : [...earlier, ...later]);
        await waitUntil('test.fragile is fed by the tail again', () => runner.health.state('test.fragile') === 'running');
        const next = await append();
        await runner.waitFor(next.position, [healthy, fragile], 10_000);
        expect((await applied('test.fragile')).at(-1)).to.equal(next.id);
        expect((await runner.statuses()).map((s) => [s.name, s.state, s.failure])).to.deep.equal([
          ['test.healthy', 'running', null],
          ['test.fragile', 'running', null],
        ]);
      });
    });
  }
}
