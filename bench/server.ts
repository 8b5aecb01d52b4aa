// Child process of the HTTP phases: the real service (createApp, default log level) over the bench
// database, with pre-created organizations and a billing-staff token; tells the parent over IPC.
import pino from 'pino';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db.ts';
import { systemContext } from '../src/seed.ts';
import { createOrganization, createSession, createUser } from '../src/commands/identity/identity.ts';
import { IDENTITY } from '../src/queries/identity/identity.ts';
import { POOL_SIZE } from './support.ts';

/** What the child tells the parent once it listens. */
export interface ServerReady {
  url: string;
  staffToken: string;
  orgIds: string[];
  /** Core operation ids the service has. */
  operations: string[];
  /** With BENCH_INVOICES: a sample of the customers whose invoices were inserted in bulk. */
  benchCustomerIds: string[];
}

async function main(): Promise<void> {
  const backend = process.env.BENCH_BACKEND;
  const orgCount = Number(process.env.BENCH_ORGS ?? '1000');
  const db = backend === 'postgres' ? openPostgres(process.env.BENCH_SERVER_DB!, POOL_SIZE) : await openPglite();
  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, PORT: '0', HOST: '127.0.0.1' });
  // The service's own logger at its configured level (info by default), written to a file as in production.
  const logFile = process.env.BENCH_LOG_FILE ?? '/dev/null';
  const logger = pino({ level: config.logLevel, base: { service: 'core-server' } }, pino.destination({ dest: logFile, sync: false }));
  const app = await createApp(config, { db, logger });
  const ctx = systemContext(app, 'bench set-up');
  const platform = await createOrganization(ctx, { name: 'Bench platform', kind: 'platform' });
  const staff = await createUser(ctx, { email: 'bench-staff@example.com', password: 'bench-password', organizationId: platform.id, role: 'member', staff: ['billing_staff'] });
  // Organizations in bulk, straight into the log (set-up, not measured).
  const res = await db.knex.raw(ORGS, [orgCount]);
  const orgIds = (res.rows as { id: string }[]).map((r) => r.id);
  await db.knex.raw(`insert into es_streams (stream_id, revision) select stream_id, 0 from es_events where type = 'OrganizationCreated' and metadata->>'actor' like '%bench-bulk%'`);
  const head = await app.store.headPosition();
  await app.runner.waitFor(head, [IDENTITY], 120_000);
  await app.runner.waitFor(staff.position, [IDENTITY], 10_000);
  const session = await createSession(app.knex, { userId: staff.id, organizationId: platform.id, now: app.clock.now(), ttlHours: 24 });
  if (process.env.BENCH_TRACE) trace(app);
  const url = await app.listen(0, '127.0.0.1');
  const benchCustomerIds = process.env.BENCH_INVOICES ? await seedInvoices(db.knex, Number(process.env.BENCH_INVOICES)) : [];
  const ready: ServerReady = { url, staffToken: session.token, orgIds, operations: app.registry.list('core').map((o) => o.id), benchCustomerIds };
  process.send!({ ready });
  const stop = async () => {
    if (process.env.BENCH_TRACE) printTrace();
    await app.close();
    await db.close();
    logger.flush();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

// billing_invoices rows straight into the read model (the list phase measures reads, not writes):
// 100 invoices per customer (ids are valid v4-shaped UUIDs), 60% paid, 20% open, 10% draft, 10% void, a minute apart.
async function seedInvoices(knex: Knex, count: number): Promise<string[]> {
  const customers = Math.max(1, Math.floor(count / 100));
  for (let from = 0; from < count; from += 100_000) {
    await knex.raw(INVOICES, [customers, customers, from, Math.min(count, from + 100_000) - 1]);
  }
  await knex.raw('analyze billing_invoices');
  const rows = await knex.raw(`select distinct customer_id::text as id from billing_invoices where id in (select id from billing_invoices tablesample system (1) limit 500)`);
  return (rows.rows as { id: string }[]).map((r) => r.id);
}

const INVOICES = `
  insert into billing_invoices (id, organization_id, customer_id, status, currency, number, issue_date, due_date, total, amount_remaining, created_at, doc)
  select id, org, cust, status, 'GBP', num, issue, issue + 30, total, remaining, created, jsonb_build_object(
      'id', id, 'number', num, 'organization_id', org, 'customer_id', cust, 'status', status, 'currency', 'GBP',
      'lines', jsonb_build_array(jsonb_build_object('kind', 'manual', 'description', 'Bench line', 'quantity', 1, 'unit_amount', total, 'amount', total)),
      'subtotal', total, 'total', total, 'amount_paid', total - remaining, 'amount_credited', 0, 'amount_credited_to_balance', 0,
      'amount_remaining', remaining, 'memo', null, 'metadata', '{}'::jsonb, 'issue_date', issue, 'due_date', issue + 30,
      'created_at', created, 'updated_at', created, 'finalized_at', case when status = 'draft' then null else created end,
      'paid_at', case when status = 'paid' then created end, 'voided_at', case when status = 'void' then created end, 'marked_uncollectible_at', null)
  from (
    select overlay(overlay(md5('bench-invoice-' || i) placing '4' from 13) placing '8' from 17)::uuid as id,
      overlay(overlay(md5('bench-inv-org-' || (i % ?::int)) placing '4' from 13) placing '8' from 17)::uuid as org,
      overlay(overlay(md5('bench-inv-customer-' || (i % ?::int)) placing '4' from 13) placing '8' from 17)::uuid as cust,
      case when i % 10 < 6 then 'paid' when i % 10 < 8 then 'open' when i % 10 = 8 then 'draft' else 'void' end as status,
      case when i % 10 = 8 then null else 'INV-B-' || lpad(i::text, 9, '0') end as num,
      case when i % 10 = 8 then null else date '2025-01-01' + (i / 10000) end as issue,
      1000 + (i % 997) * 10 as total,
      case when i % 10 between 6 and 7 then 500 else 0 end as remaining,
      timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute' as created
    from generate_series(?::int, ?::int) as i
  ) s`;

const traced = new Map<string, { n: number; ms: number }>();

function timed<A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...a) => {
    const t0 = performance.now();
    try {
      return await fn(...a);
    } finally {
      const t = traced.get(name) ?? { n: 0, ms: 0 };
      t.n++;
      t.ms += performance.now() - t0;
      traced.set(name, t);
    }
  };
}

// BENCH_TRACE=1: where a request's time goes (appends, read-your-writes waits, SQL by statement).
function trace(app: Awaited<ReturnType<typeof createApp>>): void {
  app.store.appendToStream = timed('append', app.store.appendToStream.bind(app.store));
  app.runner.waitFor = timed('waitFor', app.runner.waitFor.bind(app.runner));
  const started = new Map<string, { sql: string; t0: number }>();
  app.knex.on('query', (q: { __knexQueryUid: string; sql: string }) => started.set(q.__knexQueryUid, { sql: q.sql, t0: performance.now() }));
  app.knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (!s) return;
    started.delete(q.__knexQueryUid);
    const name = `sql ${s.sql.replace(/\s+/g, ' ').slice(0, 90)}`;
    const t = traced.get(name) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += performance.now() - s.t0;
    traced.set(name, t);
  });
}

function printTrace(): void {
  const rows = [...traced.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  for (const [k, v] of rows) console.error(`${String(v.n).padStart(7)} ${(v.ms / v.n).toFixed(2).padStart(8)} ms avg ${v.ms.toFixed(0).padStart(8)} ms  ${k}`);
}

const ORGS = `
  insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
  select 'organization-' || id, 0, gen_random_uuid(), 'OrganizationCreated',
    jsonb_build_object('organization_id', id::text, 'name', 'Bench org ' || i, 'kind', 'repairer', 'created_at', now()),
    jsonb_build_object('org_id', id::text, 'actor', jsonb_build_object('type', 'system', 'id', 'bench-bulk'), 'request_id', null, 'correlation_id', null, 'causation_id', null),
    now()
  from (select i, gen_random_uuid() as id from generate_series(1, ?::int) as i) s
  returning data->>'organization_id' as id`;

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
