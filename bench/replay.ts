// Phase (b): replay rate of a projection rebuild (billing.customers) over 200,000 events appended in bulk.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import pino from 'pino';
import type { Db } from '../src/db.ts';
import { systemClock } from '../src/clock.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { ProjectionRunner } from '../src/projections/engine/runner.ts';
import { projections } from '../src/areas/index.ts';
import { billingCustomersProjection } from '../src/projections/billing/customers.ts';
import type { EventStore } from '../src/eventstore/port.ts';
import { shreddingStore } from '../src/eventstore/shredding.ts';
import { TableKeyStore } from '../src/eventstore/key-table.ts';
import { open, seal } from '../src/eventstore/envelope.ts';
import { PERSONAL_FIELDS } from '../src/domain/personal-events.ts';
import { customerSubjects } from '../src/domain/personal.ts';
import { type CpuFigures, CpuTotals } from './cpu.ts';
import { ceilingWith } from './support.ts';


/** Figures of phase (b). */
export interface ReplayFigures {
  events: number;
  seconds: number;
  eventsPerSec: number;
  rows: number;
  /** Same run: the same events read from es_events with one plain SELECT (rows parsed by the driver). */
  select_seconds: number;
  select_events_per_sec: number;
  /** eventsPerSec / select_events_per_sec. */
  fraction_of_select: number;
  /** CPU of one plain rebuild and of one SELECT, in ms: node (this process) + PostgreSQL's processes (PGlite's in node). */
  cpu: { rebuild: CpuFigures; select: CpuFigures };
  /**
   * Issue 32: the same rebuild of a log whose personal fields are sealed (names, emails; a key per customer), read
   * through the crypto-shredding decorator, beside the plain store's rebuild of the plain log, in alternation.
   */
  personal?: {
    plain_events_per_sec: number; sealed_events_per_sec: number; ratio: number;
    /** The cipher alone: us to open an event's sealed values (1.5 an event in this log), timed in this run; and the best share with that added to the plain rebuild's time per event and nothing else. */
    open_us: number; ceiling: number;
  };
}

const CHUNK = 20_000;

/**
 * Writes `customers` CustomerCreated events and as many CustomerUpdated events straight into the log
 * (bulk SQL, in chunks of 20k per transaction), then times `runner.rebuild(['billing.customers'])` next to a plain
 * SELECT of the same events. With `sealedDb` (a second database of the same backend), the same events with their
 * personal fields sealed go there, and its rebuild through the decorator alternates with the plain one: SELECT,
 * plain, sealed, sealed, plain, SELECT (each figure sums its two).
 */
export async function benchReplay(db: Db, customers: number, sealedDb?: Db): Promise<ReplayFigures> {
  const knex = db.knex;
  await preloadCustomerEvents(knex, customers);
  const plain = await rebuilder(db, new PostgresEventStore(db), customers);
  let sealed: Awaited<ReturnType<typeof rebuilder>> | undefined;
  if (sealedDb) {
    await preloadSealedCustomerEvents(sealedDb.knex, customers);
    const inner = new PostgresEventStore(sealedDb);
    sealed = await rebuilder(sealedDb, shreddingStore(inner, new TableKeyStore(sealedDb.knex), PERSONAL_FIELDS, () => new Date()), customers);
  }
  const selectCpu = new CpuTotals();
  const rebuildCpu = new CpuTotals();
  const select = () => selectCpu.during(process.pid, async () => {
    const s0 = performance.now();
    // Only the count is kept: the 200k decoded rows must not stay on the heap (and in every GC) during the rebuild.
    const selected = (await knex.raw('select global_position, transaction_id::text as xid, stream_id, revision, event_id, type, data, metadata, created_at from es_events order by transaction_id, global_position')).rows.length;
    if (selected !== customers * 2) throw new Error(`read ${selected} events, expected ${customers * 2}`);
    return (performance.now() - s0) / 1000;
  });
  // Without the comparison (the scale phase's 2M events) each is timed once.
  const rounds = sealed ? 2 : 1;
  let selectSeconds = await select();
  let seconds = await rebuildCpu.during(process.pid, () => plain.rebuild());
  let sealedSeconds = 0;
  if (sealed) {
    sealedSeconds += (await sealed.rebuild()) + (await sealed.rebuild());
    seconds += await rebuildCpu.during(process.pid, () => plain.rebuild());
    selectSeconds += await select();
  }
  await plain.close();
  await sealed?.close();
  const eventsPerSec = (customers * 2 * rounds) / seconds;
  const selectRate = (customers * 2 * rounds) / selectSeconds;
  const figures: ReplayFigures = { events: customers * 2, seconds: seconds / rounds, eventsPerSec, rows: customers, select_seconds: selectSeconds / rounds, select_events_per_sec: selectRate, fraction_of_select: eventsPerSec / selectRate, cpu: { rebuild: rebuildCpu.perRequest(rounds), select: selectCpu.perRequest(rounds) } };
  if (sealed) {
    const sealedRate = (customers * 2 * 2) / sealedSeconds;
    const open_us = openMicros();
    figures.personal = { plain_events_per_sec: eventsPerSec, sealed_events_per_sec: sealedRate, ratio: sealedRate / eventsPerSec, open_us, ceiling: ceilingWith(eventsPerSec, open_us) };
  }
  return figures;
}

/** A runner of every projection over `store`, and a timed rebuild of billing.customers that checks its rows. */
async function rebuilder(db: Db, store: EventStore, customers: number) {
  const runner = new ProjectionRunner(db.knex, store, projections, { logger: pino({ level: 'silent' }), clock: systemClock });
  await runner.prepare();
  return {
    async rebuild(): Promise<number> {
      const t0 = performance.now();
      await runner.rebuild([billingCustomersProjection.name]);
      const seconds = (performance.now() - t0) / 1000;
      const rows = Number((await db.knex('billing_customers').count({ n: '*' }))[0]!.n);
      const updated = Number((await db.knex('billing_customers').where('name', 'like', 'Renamed %').andWhere('email', 'like', 'billing%@example.com').count({ n: '*' }))[0]!.n);
      if (rows !== customers || updated !== customers) throw new Error(`replay produced ${rows} rows, ${updated} updated; expected ${customers}`);
      return seconds;
    },
    close: () => store.close(),
  };
}

/** us per event to open the sealed log's values (a customer's two events hold three: name and email, then the new name). */
function openMicros(customers = 20_000): number {
  const sealed = Array.from({ length: customers }, (_, i) => {
    const { erasable, retained } = customerSubjects(crypto.randomUUID());
    const k = { own: crypto.randomBytes(32), retained: crypto.randomBytes(32) };
    return [
      { subject: retained, key: k.retained, env: seal(retained, k.retained, `Customer ${i}`) },
      { subject: erasable, key: k.own, env: seal(erasable, k.own, `billing${i}@example.com`) },
      { subject: retained, key: k.retained, env: seal(retained, k.retained, `Renamed ${i}`) },
    ];
  });
  const t0 = performance.now();
  for (const values of sealed) for (const v of values) open(v.env, v.subject, v.key);
  return ((performance.now() - t0) * 1000) / (customers * 2);
}

/**
 * The events of preloadCustomerEvents with their personal fields sealed as the decorator seals them (name with the
 * customer's retention key, email with its own key; both keys stored), written in bulk. Sealing 300k values takes
 * node a few seconds.
 */
export async function preloadSealedCustomerEvents(knex: Knex, customers: number): Promise<void> {
  const uuid = (text: string) => crypto.createHash('md5').update(text).digest('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  const at = new Date('2026-01-01T00:00:00Z');
  const keyOf = new Map<number, { own: Buffer; retained: Buffer }>();
  for (let from = 1; from <= customers; from += CHUNK) {
    const to = Math.min(customers, from + CHUNK - 1);
    const keys: { subject: string; key: Buffer; created_at: Date }[] = [];
    for (let i = from; i <= to; i++) {
      const id = uuid(`bench-customer-${i}`);
      const k = { own: crypto.randomBytes(32), retained: crypto.randomBytes(32) };
      keyOf.set(i, k);
      const subjects = customerSubjects(id);
      keys.push({ subject: subjects.erasable, key: k.own, created_at: at }, { subject: subjects.retained, key: k.retained, created_at: at });
    }
    await knex.batchInsert('data_subject_keys', keys, 5000);
  }
  for (const phase of ['created', 'updated'] as const) {
    for (let from = 1; from <= customers; from += CHUNK) {
      const to = Math.min(customers, from + CHUNK - 1);
      const rows: unknown[] = [];
      for (let i = from; i <= to; i++) {
        const id = uuid(`bench-customer-${i}`);
        const org = uuid(`bench-org-${i}`);
        const k = keyOf.get(i)!;
        const { erasable, retained } = customerSubjects(id);
        const meta = { org_id: org, actor: { type: 'system', id: 'bench' }, request_id: null, correlation_id: null, causation_id: null };
        rows.push(phase === 'created'
          ? { stream_id: `customer-${id}`, revision: 0, event_id: uuid(`bench-created-${i}`), type: 'CustomerCreated', metadata: meta, created_at: '2026-01-01T00:00:00Z',
              data: { customer_id: id, organization_id: org, name: seal(retained, k.retained, `Customer ${i}`), email: seal(erasable, k.own, `billing${i}@example.com`), billing_address: null, currency: 'GBP', payment_terms_days: 30, tax_id: null, metadata: {}, created_at: '2026-01-01T00:00:00.000Z' } }
          : { stream_id: `customer-${id}`, revision: 1, event_id: uuid(`bench-updated-${i}`), type: 'CustomerUpdated', metadata: meta, created_at: '2026-01-02T00:00:00Z',
              data: { changes: { name: seal(retained, k.retained, `Renamed ${i}`), payment_terms_days: 14 }, updated_at: '2026-01-02T00:00:00.000Z' } });
      }
      await knex.raw(`insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select stream_id, revision, event_id, type, data, metadata, created_at from jsonb_to_recordset(?::jsonb)
          as r(stream_id text, revision bigint, event_id uuid, type text, data jsonb, metadata jsonb, created_at timestamptz)`, [JSON.stringify(rows)]);
    }
  }
  await knex.raw('analyze es_events');
}

/** Writes `customers` CustomerCreated and as many CustomerUpdated events straight into the log (bulk SQL, 20k rows per statement). */
export async function preloadCustomerEvents(knex: Knex, customers: number): Promise<void> {
  for (const phase of ['created', 'updated'] as const) {
    for (let from = 1; from <= customers; from += CHUNK) {
      const to = Math.min(customers, from + CHUNK - 1);
      await knex.raw(phase === 'created' ? CREATED : UPDATED, [from, to]);
    }
  }
  await knex.raw('analyze es_events');
}

const ID = `md5('bench-customer-' || i)::uuid`;
const ORG = `md5('bench-org-' || i)::uuid`;
const META = `jsonb_build_object('org_id', ${ORG}::text, 'actor', jsonb_build_object('type', 'system', 'id', 'bench'), 'request_id', null, 'correlation_id', null, 'causation_id', null)`;

const CREATED = `
  insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
  select 'customer-' || ${ID}, 0, md5('bench-created-' || i)::uuid, 'CustomerCreated',
    jsonb_build_object('customer_id', ${ID}::text, 'organization_id', ${ORG}::text, 'name', 'Customer ' || i,
      'email', 'billing' || i || '@example.com', 'billing_address', null, 'currency', 'GBP', 'payment_terms_days', 30,
      'tax_id', null, 'metadata', '{}'::jsonb, 'created_at', '2026-01-01T00:00:00.000Z'),
    ${META}, '2026-01-01T00:00:00Z'
  from generate_series(?::int, ?::int) as i`;

const UPDATED = `
  insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
  select 'customer-' || ${ID}, 1, md5('bench-updated-' || i)::uuid, 'CustomerUpdated',
    jsonb_build_object('changes', jsonb_build_object('name', 'Renamed ' || i, 'payment_terms_days', 14), 'updated_at', '2026-01-02T00:00:00.000Z'),
    ${META}, '2026-01-02T00:00:00Z'
  from generate_series(?::int, ?::int) as i`;
