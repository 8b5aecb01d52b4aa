// Phases (g) analytics and (h) ingest: analytics.events.insert at c=32 with billing latency measured unloaded and under
// that load in the same run; an import of 100,000 sellable items end to end, against a plain multi-row INSERT of the same rows.
import type { BenchBackend, LoadResult } from './support.ts';
import { closedLoop, openBenchDb, percentile, sleep } from './support.ts';
import { type BenchServer, expectOk, startBenchServer } from './http.ts';
import { type CpuFigures, CpuTotals } from './cpu.ts';

/** Figures of phase (g). */
export interface AnalyticsFigures {
  c32: LoadResult;
  /** auth.sessions.get at c=32 on the same server: the cheapest authenticated request (same-run reference). */
  reference_c32: LoadResult;
  billing_unloaded: { p50Ms: number; p99Ms: number; ops: number };
  billing_loaded: { p50Ms: number; p99Ms: number; ops: number };
  /** customers.insert while 32 clients call auth.sessions.get instead. */
  billing_reference_loaded: { p50Ms: number; p99Ms: number; ops: number };
  /** Event appends per analytics event (group commit: well below 1). */
  appends_per_event: number;
  /** CPU per request of the c=32 load and of its reference. */
  cpu: CpuFigures;
  reference_cpu: CpuFigures;
}

// customers.insert one after another while `until` is pending; latencies in ms.
async function billingLatencies(server: BenchServer, next: () => string, count: number, until?: Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  let done = false;
  void until?.then(() => (done = true));
  for (let i = 0; until ? !done : i < count; i++) {
    const orgId = next();
    const t0 = performance.now();
    expectOk(await server.post('billing.customers.insert', { organization_id: orgId, name: `Customer ${orgId.slice(-6)}`, email: 'billing@example.com', currency: 'GBP' }, server.staffToken), 'billing.customers.insert');
    lat.push(performance.now() - t0);
  }
  return lat;
}

/** Phase (g): analytics events at c=32 for `durationMs`, while one client inserts customers; the same client alone before. */
export async function benchAnalytics(backend: BenchBackend, durationMs: number): Promise<AnalyticsFigures> {
  const server = await startBenchServer(backend, 3_000);
  try {
    let o = 0;
    const next = () => {
      const id = server.orgIds[o++];
      if (!id) throw new Error('ran out of organizations');
      return id;
    };
    const headers = { origin: 'https://estimator.example', referer: 'https://estimator.example/jobs/1' };
    const event = async (i: number) => expectOk(await server.post('analytics.events.insert', { name: i % 3 ? 'search.completed' : 'page_view', properties: { i } }, server.staffToken, headers), 'analytics.events.insert');
    await closedLoop({ concurrency: 8, durationMs: 30_000, maxOps: 500 }, event); // warm-up
    await billingLatencies(server, next, 50);
    const unloaded = await billingLatencies(server, next, 300);
    // The same load of the cheapest signed-in request: what any 32 busy clients do to billing on this machine.
    const referenceCpu = new CpuTotals();
    const reference = referenceCpu.during(server.pid, () => closedLoop({ concurrency: 32, durationMs }, async () => expectOk(await server.post('auth.sessions.get', {}, server.staffToken), 'auth.sessions.get')));
    await sleep(200);
    const referenceLoaded = await billingLatencies(server, next, 0, reference);
    const reference_c32 = await reference;
    const appendsBefore = await appendCount(server);
    const loadCpu = new CpuTotals();
    const load = loadCpu.during(server.pid, () => closedLoop({ concurrency: 32, durationMs }, event));
    await sleep(200);
    const loaded = await billingLatencies(server, next, 0, load);
    const c32 = await load;
    // Each customers.insert is one append of its own.
    const appends = (await appendCount(server)) - appendsBefore - loaded.length;
    return {
      c32,
      reference_c32,
      billing_unloaded: { p50Ms: percentile(unloaded, 50), p99Ms: percentile(unloaded, 99), ops: unloaded.length },
      billing_loaded: { p50Ms: percentile(loaded, 50), p99Ms: percentile(loaded, 99), ops: loaded.length },
      billing_reference_loaded: { p50Ms: percentile(referenceLoaded, 50), p99Ms: percentile(referenceLoaded, 99), ops: referenceLoaded.length },
      appends_per_event: c32.ops ? appends / c32.ops : Number.NaN,
      // Both include the one customers.insert client that runs beside them.
      cpu: loadCpu.perRequest(c32.ops),
      reference_cpu: referenceCpu.perRequest(reference_c32.ops),
    };
  } finally {
    await server.stop();
  }
}

// Event store appends the server has made so far (its metrics; the bench process cannot see an embedded database).
async function appendCount(server: BenchServer): Promise<number> {
  const res = await fetch(`${server.url}/metrics`);
  const text = await res.text();
  const line = text.split('\n').find((l) => /^eventstore_append_duration_seconds_count(\{[^}]*\})? /.test(l));
  return line ? Number(line.split(' ').at(-1)) : Number.NaN;
}

/** Figures of phase (h). */
export interface IngestFigures {
  rows: number;
  bytes: number;
  /** Prepare, upload, commit, processing and the read model holding every item. */
  seconds: number;
  upload_seconds: number;
  rows_per_sec: number;
  /** A plain multi-row INSERT of the same rows (1,000 per statement) into a bare table. */
  raw_insert_seconds: number;
}

function row(i: number): string {
  return `SKU-${String(i).padStart(7, '0')},"Front wing panel ${i}","Primed, ready to paint",${1000 + (i % 9000)},GBP,${i % 50},HCA-BODY-${i % 40}|HCA-LIGHT-${i % 7},PN-${i}`;
}

/** Phase (h): a supplier imports a CSV of `rows` items; measured until async-imports.get says completed and the last item is listed. */
export async function benchIngest(backend: BenchBackend, rows: number): Promise<IngestFigures> {
  const lines = ['sku,title,description,price_amount,price_currency,stock_quantity,hca_ids,part_numbers'];
  for (let i = 1; i <= rows; i++) lines.push(row(i));
  const file = Buffer.from(`${lines.join('\n')}\n`);
  const raw = await rawInsert(backend, rows);
  const server = await startBenchServer(backend, 10, { BENCH_SUPPLIER: '1', BENCH_WORKER_MS: '250' });
  try {
    const token = server.supplierToken;
    if (!token) throw new Error('the bench server made no supplier');
    const t0 = performance.now();
    const prep = await server.post('async-imports.prepare', { kind: 'sellable_items', format: 'csv', size: file.length }, token);
    expectOk(prep, 'async-imports.prepare');
    const p = JSON.parse(prep.body) as { id: string; upload_url: string; upload_headers: Record<string, string> };
    const put = await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: file });
    if (put.status >= 300) throw new Error(`upload: HTTP ${put.status}`);
    const uploaded = performance.now();
    expectOk(await server.post('async-imports.commit', { id: p.id }, token), 'async-imports.commit');
    for (;;) {
      const got = await server.post('async-imports.get', { id: p.id, limit: 1 }, token);
      expectOk(got, 'async-imports.get');
      const s = JSON.parse(got.body) as { status: string; counts: { ok: number } };
      if (s.status === 'failed') throw new Error(`import failed: ${got.body}`);
      if (s.status === 'completed') {
        if (s.counts.ok !== rows) throw new Error(`import recorded ${s.counts.ok} of ${rows} rows`);
        break;
      }
      await sleep(100);
    }
    const last = await server.post('sellable-items.list', { sku: `SKU-${String(rows).padStart(7, '0')}` }, token);
    expectOk(last, 'sellable-items.list');
    if ((JSON.parse(last.body) as { items: unknown[] }).items.length !== 1) throw new Error('the last item is not in the read model');
    const seconds = (performance.now() - t0) / 1000;
    return { rows, bytes: file.length, seconds, upload_seconds: (uploaded - t0) / 1000, rows_per_sec: rows / seconds, raw_insert_seconds: raw };
  } finally {
    await server.stop();
  }
}

// The same rows as a bare table gets them from a plain multi-row INSERT, 1,000 rows per statement.
async function rawInsert(backend: BenchBackend, rows: number): Promise<number> {
  const db = await openBenchDb(backend);
  try {
    await db.knex.raw('create table bench_raw_items (organization_id uuid, sku text primary key, title text, description text, price_amount bigint, currency text, stock integer, hca_ids text[], part_numbers text[])');
    const org = '0190c6a2-0000-7000-8000-0000000000f1';
    const t0 = performance.now();
    for (let i = 1; i <= rows; i += 1000) {
      const batch = [];
      for (let j = i; j < Math.min(i + 1000, rows + 1); j++)
        batch.push({ organization_id: org, sku: `SKU-${String(j).padStart(7, '0')}`, title: `Front wing panel ${j}`, description: 'Primed, ready to paint', price_amount: 1000 + (j % 9000), currency: 'GBP', stock: j % 50, hca_ids: [`HCA-BODY-${j % 40}`, `HCA-LIGHT-${j % 7}`], part_numbers: [`PN-${j}`] });
      await db.knex('bench_raw_items').insert(batch);
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await db.close();
  }
}
