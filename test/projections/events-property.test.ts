// Any event that passes its schema projects. Logs holding every event type of every aggregate (data drawn from the
// zod schemas, edges included: years 0000-9999, extreme numbers, empty and long text, unicode) are appended with
// stream ids of their aggregate and run through every projection: bulk catch-up into empty read models, catch-up
// onto stored rows, then the live tail. No projection fails and every checkpoint reaches the log's head.
import { expect } from 'chai';
import fc from 'fast-check';
import pino from 'pino';
import { TestClock } from '../../src/clock.ts';
import { projections } from '../../src/areas/index.ts';
import { ProjectionRunner } from '../../src/projections/engine/runner.ts';
import { usageEvents, usageKey } from '../../src/domain/billing/usage.ts';
import { exchangeRateEvents } from '../../src/domain/billing/exchange-rate.ts';
import { importEvents } from '../../src/domain/ingest/import.ts';
import { backends, suiteStore } from '../support/db.ts';
import { AGGREGATES, type PhasedEvent, declaredCodecs, eventLogs } from './all-events.ts';

/** Logs per backend (about 3 s each): each holds every event type once or twice (about 150 events) and runs three phases. */
const RUNS = Number(process.env.EVENTS_PROPERTY_RUNS ?? 8);
const START = '2026-01-15T09:00:00.000Z';
const SUB = '0190c6a2-0000-7000-8000-0000000000f1';
const ORG = '0190c6a2-0000-7000-8000-000000000001';
const ORG2 = '0190c6a2-0000-7000-8000-000000000002';

for (const backend of backends()) {
  describe(`every event that passes its schema projects (${backend})`, function () {
    this.timeout(Math.max(300_000, RUNS * 15_000));
    const opened = suiteStore(backend);

    /** Appends `log` in its phases and runs every projection: catch-up from empty, catch-up onto rows, live. Throws what failed. */
    async function project(log: PhasedEvent[]): Promise<void> {
      const { db, store } = opened;
      const tables = projections.flatMap((p) => p.tables).map((t) => `"${t}"`);
      await db.knex.raw(`truncate es_events, projection_checkpoints, ${tables.join(', ')}`);
      const clock = new TestClock(START);
      const failures: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void failures.push(line) });
      const runner = new ProjectionRunner(db.knex, store, projections, { logger, clock, batchSize: 8, bulkBatchSize: 8 });
      let n = 0;
      const append = async (phase: number) => {
        for (const e of log.filter((x) => x.phase === phase)) {
          const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
          await store.appendToStream(e.stream, [{ id, type: e.type, data: e.data, metadata: e.metadata }], { expectedRevision: 'any', now: clock.now() });
          clock.advance(1000);
        }
      };
      const atHead = async (phase: string) => {
        const head = await store.headPosition();
        const rows = (await db.knex('projection_checkpoints').select('name', 'position')) as { name: string; position: string | null }[];
        const behind = projections.filter((p) => rows.find((r) => r.name === p.name)?.position !== head).map((p) => p.name);
        if (behind.length) throw new Error(`${phase}: checkpoints short of the head ${head}: ${behind.join(', ')}\n${failures.join('')}`);
      };
      await runner.prepare();
      // 1. Bulk replay into empty read models.
      await append(0);
      await runner.catchUp();
      await atHead('catch-up from empty');
      // 2. Catch-up onto stored rows (documents read back, folded, written again).
      await append(1);
      await runner.catchUp();
      await atHead('catch-up onto stored rows');
      // 3. Live: the daemon's tail applies each batch (one-statement commits, or apply in a transaction).
      runner.start();
      try {
        await append(2);
        const head = await store.headPosition();
        await runner.waitFor(head, projections, 20_000).catch((err: unknown) => {
          throw new Error(`live tail: ${err instanceof Error ? err.message : String(err)}\n${failures.join('')}`);
        });
      } finally {
        await runner.stop();
      }
      await atHead('live tail');
    }

    it('every codec under src/domain is generated (listed with its streams in all-events.ts), and each event type belongs to one aggregate', () => {
      expect(declaredCodecs().length, 'codecs declared under src/domain').to.be.greaterThan(25);
      expect(AGGREGATES.map((a) => a.name).sort(), 'AGGREGATES in test/projections/all-events.ts').to.deep.equal(declaredCodecs().sort());
      const owners = new Map<string, string[]>();
      for (const a of AGGREGATES) for (const type of Object.keys(a.codec.schemas)) owners.set(type, [...(owners.get(type) ?? []), a.name]);
      expect([...owners].filter(([, names]) => names.length > 1), 'event types in two aggregates').to.deep.equal([]);
    });

    it(`logs of every event type, with schema-drawn data, project on catch-up and live (${RUNS} logs)`, async () => {
      await fc.assert(
        fc.asyncProperty(eventLogs(AGGREGATES, 3), async (log) => {
          await project(log);
        }),
        // A failing log is reported as drawn (its error names the projection and the value it failed on): shrinking
        // a log of 150 events one database run at a time would take minutes.
        { numRuns: RUNS, endOnFailure: true },
      );
    });

    it('events at the edges the schemas allow project, on catch-up and live: years 0001 and 9999, the largest safe amounts, empty and non-Latin text', async () => {
      const metadata = { org_id: ORG, actor: { type: 'staff' as const, id: ORG2 }, request_id: null, correlation_id: null, causation_id: null };
      const usage = (order_id: string, amount: number, occurred_at: string, phase: number): PhasedEvent => ({
        stream: `usage-${usageKey(order_id)}`, type: 'UsageRecorded', phase, metadata,
        data: { order_id, subscription_id: SUB, seller: ORG, buyer: ORG2, amount, currency: 'GBP', occurred_at, recorded_at: START },
      });
      const rate = (as_of: string, source: string, phase: number): PhasedEvent => ({
        stream: 'exchangerate-EUR_GBP', type: 'ExchangeRateRecorded', phase, metadata, data: { base: 'EUR', target: 'GBP', rate: '0.85', as_of, source, recorded_at: START },
      });
      const log = [0, 2].flatMap((phase) => [
        usage(`first/${phase}`, Number.MAX_SAFE_INTEGER, '0001-01-01T00:00:00.000Z', phase),
        usage(`last/${phase}`, Number.MIN_SAFE_INTEGER, '9999-12-31T23:59:59.999Z', phase),
        usage(`注文 ✓/${phase}`, 0, '1900-01-01T00:00:00Z', phase),
        rate(`000${phase + 1}-01-01T00:00:00Z`, '', phase),
        rate(`999${phase}-12-31T23:59:59.999Z`, 'Banque de France — taux ✓', phase),
      ]);
      for (const e of log) expect(AGGREGATES.some((a) => a.codec.schemas[e.type]?.safeParse(e.data).success), JSON.stringify(e.data)).to.equal(true);
      await project(log);
      const rows = (await opened.db.knex('billing_usage').select('order_id', 'amount').orderBy('order_id')) as { order_id: string; amount: string | number }[];
      expect(rows.map((r) => [r.order_id, String(r.amount)])).to.deep.equal([
        ['first/0', String(Number.MAX_SAFE_INTEGER)], ['first/2', String(Number.MAX_SAFE_INTEGER)],
        ['last/0', String(Number.MIN_SAFE_INTEGER)], ['last/2', String(Number.MIN_SAFE_INTEGER)],
        ['注文 ✓/0', '0'], ['注文 ✓/2', '0'],
      ]);
      const rates = (await opened.db.knex('billing_exchange_rates').select('id').orderBy('id')) as { id: string }[];
      expect(rates.map((r) => r.id)).to.deep.equal(['EUR:GBP:0001-01-01T00:00:00Z', 'EUR:GBP:0003-01-01T00:00:00Z', 'EUR:GBP:9990-12-31T23:59:59.999Z', 'EUR:GBP:9992-12-31T23:59:59.999Z']);
    });
  });
}

describe('event schemas refuse what no read model can hold', () => {
  const order = { order_id: 'A-1', subscription_id: SUB, seller: ORG, buyer: ORG2, amount: 1200, currency: 'GBP', recorded_at: START };

  it('an instant before year 0001 or past 9999 (UTC) is not an event: usage occurred_at, exchange-rate as_of', () => {
    for (const occurred_at of ['0000-01-01T00:00:00Z', '0000-12-31T23:59:59.999Z', '-000001-12-31T23:30:00.000Z', '10000-01-01T00:00:00Z'])
      expect(usageEvents.UsageRecorded.safeParse({ ...order, occurred_at }).success, occurred_at).to.equal(false);
    expect(exchangeRateEvents.ExchangeRateRecorded.safeParse({ base: 'EUR', target: 'GBP', rate: '0.85', as_of: '0000-01-01T00:00:00Z', source: 'typo', recorded_at: START }).success).to.equal(false);
    expect(usageEvents.UsageRecorded.safeParse({ ...order, occurred_at: '0001-01-01T00:00:00Z' }).success).to.equal(true);
  });

  it('an amount that is not an integer, or an id a uuid column cannot hold, is not an event', () => {
    expect(usageEvents.UsageRecorded.safeParse({ ...order, occurred_at: START, amount: 12.5 }).success).to.equal(false);
    expect(usageEvents.UsageRecorded.safeParse({ ...order, occurred_at: START, seller: 'acme' }).success).to.equal(false);
  });

  it('an import chunk lists each SKU once', () => {
    const item = (line: number) => ({ line, item: { sku: 'SKU-1', title: 'Wing', description: null, price: { amount: 100, currency: 'GBP' }, stock_quantity: 1, hca_ids: [], part_numbers: [] } });
    const chunk = { import_id: SUB, organization_id: ORG, chunk: 0, rows: 2, errors: [] };
    expect(importEvents.ImportChunkRecorded.safeParse({ ...chunk, items: [item(2), item(3)] }).success).to.equal(false);
    expect(importEvents.ImportChunkRecorded.safeParse({ ...chunk, items: [item(2)] }).success).to.equal(true);
  });
});
