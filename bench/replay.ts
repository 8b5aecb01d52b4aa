// Phase (b): replay rate of a projection rebuild (billing.customers) over 200,000 events appended in bulk.
import type { Knex } from 'knex';
import pino from 'pino';
import type { Db } from '../src/db.ts';
import { systemClock } from '../src/clock.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { ProjectionRunner } from '../src/projections/engine/runner.ts';
import { projections } from '../src/areas/index.ts';
import { billingCustomersProjection } from '../src/projections/billing/customers.ts';


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
}

const CHUNK = 20_000;

/**
 * Writes `customers` CustomerCreated events and as many CustomerUpdated events straight into the log
 * (bulk SQL, in chunks of 20k per transaction), then times `runner.rebuild(['billing.customers'])`.
 */
export async function benchReplay(db: Db, customers: number): Promise<ReplayFigures> {
  const knex = db.knex;
  await preloadCustomerEvents(knex, customers);
  const s0 = performance.now();
  // Only the count is kept: the 200k decoded rows must not stay on the heap (and in every GC) during the rebuild.
  const selected = (await knex.raw('select global_position, transaction_id::text as xid, stream_id, revision, event_id, type, data, metadata, created_at from es_events order by transaction_id, global_position')).rows.length;
  const selectSeconds = (performance.now() - s0) / 1000;
  if (selected !== customers * 2) throw new Error(`read ${selected} events, expected ${customers * 2}`);
  const store = new PostgresEventStore(db);
  const runner = new ProjectionRunner(knex, store, projections, { logger: pino({ level: 'silent' }), clock: systemClock });
  await runner.prepare();
  const t0 = performance.now();
  await runner.rebuild([billingCustomersProjection.name]);
  const seconds = (performance.now() - t0) / 1000;
  const rows = Number((await knex('billing_customers').count({ n: '*' }))[0]!.n);
  const updated = Number((await knex('billing_customers').where('name', 'like', 'Renamed %').count({ n: '*' }))[0]!.n);
  if (rows !== customers || updated !== customers) throw new Error(`replay produced ${rows} rows, ${updated} updated; expected ${customers}`);
  await store.close();
  const eventsPerSec = (customers * 2) / seconds;
  const selectRate = (customers * 2) / selectSeconds;
  return { events: customers * 2, seconds, eventsPerSec, rows, select_seconds: selectSeconds, select_events_per_sec: selectRate, fraction_of_select: eventsPerSec / selectRate };
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
