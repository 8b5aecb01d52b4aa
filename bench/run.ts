// `npm run bench`: appends vs raw inserts, projection replay, and customers.insert over HTTP, on PGlite
// and (with BENCH_DATABASE_URL) Postgres. Prints a table with met/missed and writes bench/results.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchBackend, machineFacts, openBenchDb, serverVersion } from './support.ts';
import { benchAppends } from './appends.ts';
import { benchReplay } from './replay.ts';
import { type HttpFigures, benchCustomersInsert } from './http.ts';
import { benchInvoiceList, benchLedgerMix } from './ledger.ts';
import { benchResolve } from './configuration.ts';

/** One printed line: what, on which backend, the figure, and the target verdict. */
interface Line {
  phase: string;
  backend: BenchBackend;
  metric: string;
  value: string;
  target?: string;
  met?: boolean;
}

const seconds = Number(process.env.BENCH_SECONDS ?? '4');
const customers = Number(process.env.BENCH_CUSTOMERS ?? '100000');
const only = (process.env.BENCH_ONLY ?? 'appends,replay,http,mix,list,resolve').split(',');
// PGlite keeps the whole database in memory: the 1M-row list phase uses fewer rows there (said in the output).
const invoicesFor = (b: BenchBackend) => Number(b === 'postgres' ? (process.env.BENCH_INVOICES ?? '1000000') : (process.env.BENCH_INVOICES_PGLITE ?? '200000'));
const backends: BenchBackend[] = (process.env.BENCH_BACKENDS?.split(',') as BenchBackend[] | undefined) ?? (process.env.BENCH_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']);

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');

async function main(): Promise<void> {
  const facts: Record<string, string | number> = { ...machineFacts(), backends: backends.join(', ') };
  if (backends.includes('postgres')) {
    const db = await openBenchDb('postgres');
    facts.postgres = await serverVersion(db.knex);
    await db.close();
  }
  console.log(`machine: ${Object.entries(facts).map(([k, v]) => `${k}=${v}`).join('  ')}`);
  const lines: Line[] = [];
  const results: Record<string, unknown> = { at: new Date().toISOString(), facts, phase_seconds: seconds };
  for (const backend of backends) {
    const pg = backend === 'postgres';
    const out: Record<string, unknown> = {};
    results[backend] = out;
    if (only.includes('appends')) {
      const db = await openBenchDb(backend);
      const a = await benchAppends(db, seconds * 1000);
      await db.close();
      out.appends = a;
      lines.push(
        { phase: '(a) appends', backend, metric: 'raw INSERT commits/s, c=1', value: fmt(a.raw_insert_c1.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'event appends/s, c=1', value: fmt(a.append_c1.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'raw INSERT commits/s, c=16', value: fmt(a.raw_insert_c16.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'event appends/s, c=16', value: fmt(a.append_c16.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'appends/raw at c=16', value: `${fmt(a.ratio_c16 * 100, 1)}%`, target: '>= 80%', met: a.ratio_c16 >= 0.8 },
      );
      report(lines, backend, '(a)');
      const errs = a.append_c16.errors + a.append_c1.errors + a.raw_insert_c16.errors + a.raw_insert_c1.errors;
      if (errs) console.log(`  (a) ${errs} errors, first: ${a.append_c16.firstError ?? a.append_c1.firstError ?? a.raw_insert_c16.firstError}`);
    }
    if (only.includes('replay')) {
      const db = await openBenchDb(backend);
      const r = await benchReplay(db, customers);
      await db.close();
      out.replay = r;
      const want = pg ? 50_000 : 20_000;
      lines.push(
        { phase: '(b) replay', backend, metric: `plain SELECT of the same ${fmt(r.events)} events (reference)`, value: `${fmt(r.select_events_per_sec)} events/s (${fmt(r.select_seconds, 1)} s)` },
        { phase: '(b) replay', backend, metric: `rebuild billing.customers, ${fmt(r.events)} events (of SELECT)`, value: `${fmt(r.eventsPerSec)} events/s (${fmt(r.seconds, 1)} s, ${fmt(r.fraction_of_select * 100, 1)}%)`, target: `>= ${fmt(want)} events/s`, met: r.eventsPerSec >= want },
      );
      report(lines, backend, '(b)');
    }
    // The CRUD baseline (express + pg/PGlite, one INSERT ... RETURNING and one SELECT per request), same load.
    let crud: HttpFigures | undefined;
    if (only.includes('http') || only.includes('mix')) {
      crud = await benchCustomersInsert(backend, seconds * 1000, pg ? 15_000 : 6_000, true);
      out.crud_baseline = crud;
      lines.push(
        { phase: '(c0) CRUD baseline', backend, metric: 'customers insert c=32 ops/s', value: fmt(crud.c32.opsPerSec) },
        { phase: '(c0) CRUD baseline', backend, metric: 'c=32 latency p50 / p99', value: `${fmt(crud.c32.p50Ms, 1)} / ${fmt(crud.c32.p99Ms, 1)} ms` },
      );
      if (crud.c32.errors) lines.push({ phase: '(c0) CRUD baseline', backend, metric: 'errors', value: `${crud.c32.errors}: ${crud.c32.firstError}` });
      report(lines, backend, '(c0)');
    }
    if (only.includes('http')) {
      const h = await benchCustomersInsert(backend, seconds * 1000, pg ? 15_000 : 6_000);
      out.customers_insert = h;
      const base = crud?.c32;
      const ratio = base ? h.c32.opsPerSec / base.opsPerSec : Number.NaN;
      const p99x = base ? h.c32.p99Ms / base.p99Ms : Number.NaN;
      out.customers_insert_vs_crud = { ops_ratio: ratio, p99_ratio: p99x };
      lines.push(
        { phase: '(c) customers.insert', backend, metric: 'unloaded latency p50 / p99', value: `${fmt(h.unloaded_p50_ms, 1)} / ${fmt(h.unloaded_p99_ms, 1)} ms` },
        pg
          ? { phase: '(c) customers.insert', backend, metric: 'c=32 ops/s (of CRUD baseline)', value: `${fmt(h.c32.opsPerSec)} (${fmt(ratio * 100, 1)}%)`, target: '>= 75% of CRUD', met: ratio >= 0.75 }
          : { phase: '(c) customers.insert', backend, metric: 'c=32 ops/s (of CRUD baseline)', value: `${fmt(h.c32.opsPerSec)} (${fmt(ratio * 100, 1)}%)`, target: '>= 200 ops/s', met: h.c32.opsPerSec >= 200 },
        pg
          ? { phase: '(c) customers.insert', backend, metric: 'c=32 latency p50 / p99 (p99 / CRUD p99)', value: `${fmt(h.c32.p50Ms, 1)} / ${fmt(h.c32.p99Ms, 1)} ms (${fmt(p99x, 2)}x)`, target: 'p99 <= 1.5x CRUD', met: p99x <= 1.5 }
          : { phase: '(c) customers.insert', backend, metric: 'c=32 latency p50 / p99 (p99 / CRUD p99)', value: `${fmt(h.c32.p50Ms, 1)} / ${fmt(h.c32.p99Ms, 1)} ms (${fmt(p99x, 2)}x)`, target: 'p99 < 500 ms', met: h.c32.p99Ms < 500 },
        { phase: '(c) customers.insert', backend, metric: 'slowest request', value: `${fmt(h.c32.maxMs ?? Number.NaN, 1)} ms`, ...(pg ? {} : { target: '<= 2,000 ms', met: (h.c32.maxMs ?? Infinity) <= 2000 }) },
      );
      if (h.c32.errors) lines.push({ phase: '(c) customers.insert', backend, metric: 'errors', value: `${h.c32.errors}: ${h.c32.firstError}` });
      report(lines, backend, '(c)');
    }
    if (only.includes('mix')) {
      const m = await benchLedgerMix(backend, seconds * 1000);
      out.ledger_mix = m;
      const ratio = crud ? m.opsPerSec / crud.c32.opsPerSec : Number.NaN;
      out.ledger_mix_vs_crud = { ops_ratio: ratio };
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'all operations/s (of CRUD baseline)', value: `${fmt(m.opsPerSec)} (${fmt(ratio * 100, 1)}%)`, ...(pg ? { target: '>= 75% of CRUD', met: ratio >= 0.75 } : {}) });
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'slowest request', value: `${fmt(m.maxMs, 1)} ms`, ...(pg ? {} : { target: '<= 2,000 ms', met: m.maxMs <= 2000 }) });
      for (const [op, f] of Object.entries(m.byOperation)) {
        lines.push({ phase: '(d) ledger mix c=32', backend, metric: `${op} p50 / p99 (${fmt(f.ops)} ops)`, value: `${fmt(f.p50Ms, 1)} / ${fmt(f.p99Ms, 1)} ms` });
      }
      for (const s of m.skipped) lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'skipped', value: s });
      if (m.errors) lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'errors', value: `${m.errors}: ${m.firstError}` });
      report(lines, backend, '(d)');
    }
    if (only.includes('list')) {
      const l = await benchInvoiceList(backend, invoicesFor(backend), 400);
      out.invoice_list = l;
      lines.push({
        phase: '(e) invoices.list', backend, metric: `p50 / p99 over ${fmt(l.invoices)} bulk-inserted read-model rows, ${l.requests} pages`,
        value: `${fmt(l.p50Ms, 1)} / ${fmt(l.p99Ms, 1)} ms`, target: 'p99 < 15 ms', met: l.p99Ms < 15,
      });
      report(lines, backend, '(e)');
    }
    if (only.includes('resolve')) {
      const r = await benchResolve(backend, Number(process.env.BENCH_RELATIONSHIPS ?? '10000'), Number(process.env.BENCH_REVISIONS ?? '1000'), 1000);
      out.resolve = r;
      const what = `${fmt(r.relationships)} relationships, ${fmt(r.revisions)} revisions`;
      lines.push(
        { phase: '(f) configuration.resolve.get', backend, metric: 'unloaded reference p50 / p99 (1 relationship, 2 revisions)', value: `${fmt(r.unloaded.p50Ms, 1)} / ${fmt(r.unloaded.p99Ms, 1)} ms` },
        { phase: '(f) configuration.resolve.get', backend, metric: `p50 / p99 with ${what}, ${fmt(r.requests)} requests`, value: `${fmt(r.loaded.p50Ms, 1)} / ${fmt(r.loaded.p99Ms, 1)} ms (${fmt(r.loaded.p99Ms / r.unloaded.p99Ms, 2)}x reference)`, target: 'p99 < 20 ms', met: r.loaded.p99Ms < 20 },
        { phase: '(f) configuration.resolve.get', backend, metric: 'set-up (seed through the event store and projections)', value: `${fmt(r.seed_seconds, 1)} s` },
      );
      report(lines, backend, '(f)');
    }
  }
  console.log('');
  printTable(lines);
  console.log('\nTargets of issue 9, for a 2-core machine; (c0) is the plain CRUD reference measured in the same run.');
  console.log('(e) inserts the invoice rows in bulk straight into the billing_invoices read model (it measures reads), then pages');
  console.log('    billing.invoices.list over HTTP as billing staff, filtered by customer and status, one request at a time.');
  console.log('(f) seeds billing configuration through the event store (events made by the deciders), then times resolve.get one request');
  console.log('    at a time (random buyer, instant and as_of) on the large subscription and on a nearly empty one, interleaved.');
  results.lines = lines;
  results.load_avg_1m_at_end = os.loadavg()[0];
  console.log(`load average (1 min) at the start ${facts.load_avg_1m}, at the end ${os.loadavg()[0]!.toFixed(1)}: other work on the machine slows every figure.`);
  const file = path.join(import.meta.dirname, 'results.json');
  fs.writeFileSync(file, `${JSON.stringify(results, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

function report(lines: Line[], backend: BenchBackend, phase: string): void {
  for (const l of lines.filter((x) => x.backend === backend && x.phase.startsWith(phase))) console.log(`  ${backend} ${l.phase}: ${l.metric} = ${l.value}${l.target ? ` [target ${l.target}: ${l.met ? 'met' : 'MISSED'}]` : ''}`);
}

function printTable(lines: Line[]): void {
  const rows = [['phase', 'backend', 'metric', 'value', 'target', 'verdict'], ...lines.map((l) => [l.phase, l.backend, l.metric, l.value, l.target ?? '', l.target ? (l.met ? 'met' : 'MISSED') : ''])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [i, r] of rows.entries()) {
    console.log(r.map((c, j) => c.padEnd(widths[j]!)).join('  ').trimEnd());
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
