// Child process of the HTTP phases: the real service (createApp, default log level) over the bench
// database, with pre-created organizations and a billing-staff token; tells the parent over IPC.
import fs from 'node:fs';
import path from 'node:path';
import { fork } from 'node:child_process';
import pg from 'pg';
import { createLogger, stdoutLogOutput } from '../src/logging.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createApp, poolSizeOf } from '../src/app.ts';
import { type Db, openPglite, openPostgres } from '../src/db.ts';
import type { Logger } from 'pino';
import { systemContext } from '../test/support/system.ts';
import { createOrganization, createSession, createUser } from '../src/commands/identity/identity.ts';

import { POOL_SIZE } from './support.ts';
import { seedInvoices } from './seed-invoices.ts';
import { identityProjection } from '../src/projections/identity/identity.ts';
import { type BenchConfiguration, seedConfiguration } from './seed-configuration.ts';

/** What the child tells the parent once it listens. */
export interface ServerReady {
  url: string;
  staffToken: string;
  orgIds: string[];
  /** Core operation ids the service has. */
  operations: string[];
  /** With BENCH_INVOICES: a sample of the customers whose invoices were inserted in bulk. */
  benchCustomerIds: string[];
  /** With BENCH_SUPPLIER: the session token of an owner of a supplier organization. */
  supplierToken?: string;
  /** With BENCH_CONFIGURATION=<relationships>,<revisions>: the billing configuration seeded for the resolve phase. */
  benchConfiguration?: BenchConfiguration | null;
}

async function main(): Promise<void> {
  const backend = process.env.BENCH_BACKEND;
  const orgCount = Number(process.env.BENCH_ORGS ?? '1000');
  const db = backend === 'postgres' ? openPostgres(process.env.BENCH_SERVER_DB!, benchPoolSize()) : await openPglite();
  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, PORT: '0', HOST: '127.0.0.1' });
  // The service's own logger and output at its configured level (info by default), written to a file.
  const output = stdoutLogOutput(fs.openSync(process.env.BENCH_LOG_FILE ?? '/dev/null', 'a'));
  const logger = createLogger(config.logLevel, output);
  // BENCH_WORKERS=1: background workers too (the assembly lookups of the assemblies phases); BENCH_WORKER_MS: their
  // common interval in ms (imports start on the next pass).
  const workerMs = Number(process.env.BENCH_WORKER_MS ?? '0');
  const workers = process.env.BENCH_WORKERS === '1' || workerMs > 0;
  if (process.env.BENCH_ROLE === 'project') return project(db, config, logger);
  if (process.env.BENCH_ROLE === 'serve') return serve(db, config, logger);
  // BENCH_TOPOLOGY=split (Postgres): the production shape, `serve` here and `project` in a child process of its own.
  const projector = process.env.BENCH_TOPOLOGY === 'split' && backend === 'postgres' ? await startRole('project') : null;
  const app = await createApp(config, { db, logger, ...(projector ? { projections: false } : {}), ...(workers ? { workers: true, ...(workerMs > 0 ? { workerIntervalMs: workerMs } : {}) } : {}) });
  const ctx = systemContext(app, 'bench set-up');
  const platform = await createOrganization(ctx, { name: 'Bench platform', kind: 'platform' });
  const staff = await createUser(ctx, { email: 'bench-staff@example.com', password: 'bench-password', organizationId: platform.id, role: 'member', staff: ['billing_staff'] });
  // Organizations in bulk, straight into the log (set-up, not measured).
  const res = await db.knex.raw(ORGS, [orgCount]);
  const orgIds = (res.rows as { id: string }[]).map((r) => r.id);
  const head = await app.store.headPosition();
  await app.runner.waitFor(head, [identityProjection], 120_000);
  await app.runner.waitFor(staff.position, [identityProjection], 10_000);
  const session = await createSession(app.knex, { userId: staff.id, organizationId: platform.id, now: app.clock.now(), ttlHours: 24 });
  let supplierToken: string | undefined;
  if (process.env.BENCH_SUPPLIER) {
    const supplier = await createOrganization(ctx, { name: 'Bench supplier', kind: 'supplier' });
    const owner = await createUser(ctx, { email: 'bench-supplier@example.com', password: 'bench-password', organizationId: supplier.id, role: 'owner' });
    await app.runner.waitFor(owner.position, [identityProjection], 10_000);
    supplierToken = (await createSession(app.knex, { userId: owner.id, organizationId: supplier.id, now: app.clock.now(), ttlHours: 24 })).token;
  }
  if (process.env.BENCH_TRACE) trace(app);
  let url = await app.listen(0, '127.0.0.1');
  // BENCH_SERVES=n (split): n-1 more `serve` processes, and a round-robin proxy (bench/proxy.ts) in front of all of them;
  // BENCH_PROXY=1: the proxy in front of this one alone (the same hop, for comparison).
  const serves = projector ? Number(process.env.BENCH_SERVES ?? '1') : 1;
  const others = await Promise.all(Array.from({ length: serves - 1 }, () => startRole('serve')));
  const proxy = serves > 1 || process.env.BENCH_PROXY === '1' ? await startRole('proxy', [url, ...others.map((o) => o.url!)]) : null;
  if (proxy) url = proxy.url!;
  const benchCustomerIds = process.env.BENCH_INVOICES ? await seedInvoices(db.knex, Number(process.env.BENCH_INVOICES)) : [];
  const [relCount, revCount] = (process.env.BENCH_CONFIGURATION ?? '').split(',').map(Number);
  const benchConfiguration = relCount && revCount ? await seedConfiguration(app, orgIds, relCount, revCount) : null;
  const ready: ServerReady = { url, staffToken: session.token, orgIds, operations: app.registry.list('core').map((o) => o.id), benchCustomerIds, supplierToken, benchConfiguration };
  process.send!({ ready });
  const stop = async () => {
    if (process.env.BENCH_TRACE) printTrace();
    await proxy?.stop();
    await Promise.all(others.map((o) => o.stop()));
    await projector?.stop();
    await app.close();
    await db.close();
    await output.flushWithin(2_000);
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

/** `core-server project` over the bench database: the projection runner alone, until told to stop. */
async function project(db: Db, config: Config, logger: Logger): Promise<void> {
  const app = await createApp(config, { db, logger, http: false });
  if (process.env.BENCH_TRACE) trace(app);
  const stop = () => {
    if (process.env.BENCH_TRACE) printTrace();
    void app.close().then(() => db.close()).then(() => process.exit(0));
  };
  process.on('message', (m) => {
    if (m === 'stop') stop();
  });
  process.on('disconnect', stop); // the serve process is gone (killed by the bench after its stop timeout)
  process.send!({ projecting: true });
}

/** Another `serve` over the bench database: the service without projections (read-your-writes from the stored checkpoints). */
async function serve(db: Db, config: Config, logger: Logger): Promise<void> {
  const app = await createApp(config, { db, logger, projections: false, migrate: false });
  const url = await app.listen(0, '127.0.0.1');
  const stop = () => void app.close().then(() => db.close()).then(() => process.exit(0));
  process.on('message', (m) => {
    if (m === 'stop') stop();
  });
  process.on('disconnect', stop);
  process.send!({ serving: url });
}

/**
 * Starts a child process: this script as the projector or another `serve`, or the round-robin proxy in front of
 * `targets`; `url` is where a serve or the proxy listens; `stop` returns once it has exited.
 */
async function startRole(role: 'project' | 'serve' | 'proxy', targets: string[] = []): Promise<{ url?: string; stop: () => Promise<void> }> {
  const script = role === 'proxy' ? path.join(import.meta.dirname, 'proxy.ts') : import.meta.filename;
  const env = role === 'proxy' ? { ...process.env, BENCH_PROXY_TARGETS: targets.join(',') } : { ...process.env, BENCH_ROLE: role, ...(role === 'project' && process.env.BENCH_PROJECT_POOL_MAX ? { BENCH_POOL_MAX: process.env.BENCH_PROJECT_POOL_MAX } : {}) };
  const child = fork(script, [], { execArgv: process.execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string | undefined>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { serving?: string; proxying?: string }).serving ?? (m as { proxying?: string }).proxying));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
  return {
    url,
    stop: async () => {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send('stop');
      await exited;
    },
  };
}

/**
 * Postgres connections of this process: BENCH_POOL_MAX is its whole budget (as DATABASE_POOL_MAX: the pool and the
 * listener connection); unset, the pool of every Postgres measurement (POOL_SIZE).
 */
function benchPoolSize(): number {
  return process.env.BENCH_POOL_MAX ? poolSizeOf(Number(process.env.BENCH_POOL_MAX)) : POOL_SIZE;
}

const traced = new Map<string, { n: number; ms: number }>();
/** Calls slower than 300 ms: when they started (ms since the first traced call) and how long they took. */
const slowCalls: string[] = [];
let traceStart = 0;

function timed<A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...a) => {
    const t0 = performance.now();
    traceStart ||= t0;
    try {
      return await fn(...a);
    } finally {
      if (performance.now() - t0 > 300 && slowCalls.length < 40) slowCalls.push(`${name}@${(t0 - traceStart).toFixed(0)}+${(performance.now() - t0).toFixed(0)}`);
      const t = traced.get(name) ?? { n: 0, ms: 0 };
      t.n++;
      t.ms += performance.now() - t0;
      traced.set(name, t);
    }
  };
}

// BENCH_TRACE=1: where a request's time goes (appends, read-your-writes waits, SQL by statement).
function trace(app: Awaited<ReturnType<typeof createApp>>): void {
  // Every statement of every connection (knex's, the event store's pooled ones, the listener's), by its text.
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    const q = a[0] as string | { text?: string; name?: string };
    const text = typeof q === 'string' ? q : (q?.name ?? q?.text ?? '?');
    const name = `stmt ${text.replace(/\s+/g, ' ').slice(0, 100)}`;
    const t = traced.get(name) ?? { n: 0, ms: 0 };
    t.n++;
    traced.set(name, t);
    return query.apply(this, a);
  } as typeof pg.Client.prototype.query;
  app.store.appendToStream = timed('append', app.store.appendToStream.bind(app.store));
  app.runner.waitFor = timed('waitFor', app.runner.waitFor.bind(app.runner));
  const started = new Map<string, { sql: string; t0: number }>();
  app.knex.on('query', (q: { __knexQueryUid: string; sql: string }) => started.set(q.__knexQueryUid, { sql: q.sql, t0: performance.now() }));
  app.knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (!s) return;
    started.delete(q.__knexQueryUid);
    if (performance.now() - s.t0 > 300 && slowCalls.length < 40) slowCalls.push(`sql ${s.sql.slice(0, 40)}@${(s.t0 - traceStart).toFixed(0)}+${(performance.now() - s.t0).toFixed(0)}`);
    const name = `sql ${s.sql.replace(/\s+/g, ' ').slice(0, 90)}`;
    const t = traced.get(name) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += performance.now() - s.t0;
    traced.set(name, t);
  });
}

function printTrace(): void {
  const rows = [...traced.entries()].sort((a, b) => b[1].ms - a[1].ms || b[1].n - a[1].n).slice(0, 60);
  if (slowCalls.length) console.error(`slow calls (name@start+ms): ${slowCalls.join(' ')}`);
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
