// `npm run bench`: appends vs raw inserts, projection replay, and customers.insert over HTTP, on PGlite
// and (with BENCH_DATABASE_URL) Postgres. Prints a table with met/missed and writes bench/results.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchBackend, type SlicedLoad, interleave, machineFacts, openBenchDb, serverVersion } from './support.ts';
import { benchAppends } from './appends.ts';
import { benchReplay } from './replay.ts';
import { startInsertLoad } from './http.ts';
import { benchInvoiceList, startLedgerMix } from './ledger.ts';
import { benchAssemblies } from './assemblies.ts';
import { benchAnalytics, benchIngest } from './ingest.ts';
import { benchResolve } from './configuration.ts';
import { benchUsage } from './usage.ts';
import { benchScale } from './scale.ts';
import { startWebhookInsertLoad } from './webhooks.ts';
import { benchFirstStart } from './first-start.ts';
import { benchCli } from './cli.ts';
import { type CpuFigures, formatCpu } from './cpu.ts';

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
const only = (process.env.BENCH_ONLY ?? 'appends,replay,http,mix,list,assemblies,analytics,ingest,resolve,usage,webhooks,start,cli').split(',');
const subscribers = Number(process.env.BENCH_SUBSCRIBERS ?? '1000');
const subscribeEvents = Number(process.env.BENCH_SUBSCRIBE_EVENTS ?? '50');
const importRows = Number(process.env.BENCH_IMPORT_ROWS ?? '100000');
// PGlite keeps the whole database in memory: the 1M-row list phase uses fewer rows there (said in the output).
const invoicesFor = (b: BenchBackend) => Number(b === 'postgres' ? (process.env.BENCH_INVOICES ?? '1000000') : (process.env.BENCH_INVOICES_PGLITE ?? '200000'));
const backends: BenchBackend[] = (process.env.BENCH_BACKENDS?.split(',') as BenchBackend[] | undefined) ?? (process.env.BENCH_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']);

// Server CPU per request (service + PostgreSQL's processes; PGlite's run in the service) and how busy the service's
// busiest process was: near 100% of a core, its one JavaScript thread bounds the load, whatever the machine has left.
const CPU_METRIC = 'CPU per request: service + database';
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
      const pct = (x: number) => `${fmt(x * 100, 1)}%`;
      const p = a.personal;
      lines.push(
        { phase: '(a) appends', backend, metric: 'prepared raw INSERT (primary key only) commits/s, c=1 (reference)', value: fmt(a.raw_prepared_c1.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'event appends/s, c=1 (of prepared raw)', value: `${fmt(a.append_c1.opsPerSec)} (${pct(a.ratio_prepared_c1)})`, target: '>= 75%', met: a.ratio_prepared_c1 >= 0.75 },
        { phase: '(a) appends', backend, metric: 'prepared raw INSERT (primary key only) commits/s, c=16 (reference)', value: fmt(a.raw_prepared_c16.opsPerSec) },
        { phase: '(a) appends', backend, metric: 'event appends/s, c=16 (of prepared raw)', value: `${fmt(a.append_c16.opsPerSec)} (${pct(a.ratio_prepared_c16)})`, target: '>= 90%', met: a.ratio_prepared_c16 >= 0.9 },
        { phase: '(a) appends', backend, metric: 'knex raw INSERT commits/s, c=1 / c=16 (issue 9 reference)', value: `${fmt(a.raw_insert_c1.opsPerSec)} / ${fmt(a.raw_insert_c16.opsPerSec)} (appends at 16: ${pct(a.ratio_c16)})` },
        { phase: '(a) appends', backend, metric: 'appends/s of an event without personal fields through the decorator, c=1 / c=16 (of plain store)', value: `${fmt(a.decorated.c1.opsPerSec)} / ${fmt(a.decorated.c16.opsPerSec)} (${pct(a.decorated.ratio_c1)} / ${pct(a.decorated.ratio_c16)})`, target: '>= 90%', met: Math.min(a.decorated.ratio_c1, a.decorated.ratio_c16) >= 0.9 },
        { phase: '(a) appends', backend, metric: 'personal event appends/s c=1, sealed (of plain store)', value: `${fmt(p.sealed_c1.opsPerSec)} (${pct(p.ratio_c1)})`, target: '>= 90%', met: p.ratio_c1 >= 0.9 },
        { phase: '(a) appends', backend, metric: 'personal event appends/s c=16, sealed (of plain store)', value: `${fmt(p.sealed_c16.opsPerSec)} (${pct(p.ratio_c16)})`, target: '>= 90%', met: p.ratio_c16 >= 0.9 },
        { phase: '(a) appends', backend, metric: "the cipher alone: us to seal the event's 2 values; best share with only it added, c=1 / c=16", value: `${fmt(p.seal_us, 1)} us; ${pct(p.ceiling_c1)} / ${pct(p.ceiling_c16)}` },
        { phase: '(a) appends', backend, metric: 'the plain store appending the event already sealed (its larger rows alone), c=1 / c=16 (of plain)', value: `${fmt(p.sized_c1.opsPerSec)} / ${fmt(p.sized_c16.opsPerSec)} (${pct(p.sized_c1.opsPerSec / p.plain_c1.opsPerSec)} / ${pct(p.sized_c16.opsPerSec / p.plain_c16.opsPerSec)})` },
        { phase: '(a) appends', backend, metric: 'the plain store appending the event with two live keys checked (the erasure check alone), c=1 / c=16 (of plain)', value: `${fmt(p.checked_c1.opsPerSec)} / ${fmt(p.checked_c16.opsPerSec)} (${pct(p.checked_c1.opsPerSec / p.plain_c1.opsPerSec)} / ${pct(p.checked_c16.opsPerSec / p.plain_c16.opsPerSec)})` },
        { phase: '(a) appends', backend, metric: 'acknowledged appends not stored once', value: fmt(a.unaccounted), target: '0', met: a.unaccounted === 0 },
      );
      report(lines, backend, '(a)');
      const loads = [a.append_c16, a.append_c1, a.raw_insert_c16, a.raw_insert_c1, a.raw_prepared_c16, a.raw_prepared_c1, p.plain_c1, p.sealed_c1, p.sized_c1, p.checked_c1, p.plain_c16, p.sealed_c16, p.sized_c16, p.checked_c16];
      const errs = loads.reduce((n, l) => n + l.errors, 0);
      if (errs) console.log(`  (a) ${errs} errors, first: ${loads.find((l) => l.firstError)?.firstError}`);
    }
    if (only.includes('replay')) {
      const db = await openBenchDb(backend);
      const sealedDb = await openBenchDb(backend);
      const r = await benchReplay(db, customers, sealedDb).finally(() => sealedDb.close());
      await db.close();
      out.replay = r;
      const want = 20_000;
      lines.push(
        { phase: '(b) replay', backend, metric: `plain SELECT of the same ${fmt(r.events)} events (reference)`, value: `${fmt(r.select_events_per_sec)} events/s (${fmt(r.select_seconds, 1)} s)` },
        pg
          ? { phase: '(b) replay', backend, metric: `rebuild billing.customers, ${fmt(r.events)} events (of SELECT)`, value: `${fmt(r.eventsPerSec)} events/s (${fmt(r.seconds, 1)} s, ${fmt(r.fraction_of_select * 100, 1)}%)`, target: '>= 80% of SELECT', met: r.fraction_of_select >= 0.8 }
          : { phase: '(b) replay', backend, metric: `rebuild billing.customers, ${fmt(r.events)} events (of SELECT)`, value: `${fmt(r.eventsPerSec)} events/s (${fmt(r.seconds, 1)} s, ${fmt(r.fraction_of_select * 100, 1)}%)`, target: `>= ${fmt(want)} events/s`, met: r.eventsPerSec >= want },
      );
      const cpuSeconds = (c: CpuFigures) => `${fmt(c.service_ms / 1000, 2)} + ${fmt(c.database_ms / 1000, 2)} s`;
      lines.push({ phase: '(b) replay', backend, metric: 'CPU of one rebuild / of one SELECT: node + database (PGlite\'s in node)', value: `${cpuSeconds(r.cpu.rebuild)} / ${cpuSeconds(r.cpu.select)}` });
      if (r.personal) {
        lines.push(
          { phase: '(b) replay', backend, metric: 'same, personal fields sealed, through the decorator (of plain)', value: `${fmt(r.personal.sealed_events_per_sec)} events/s (${fmt(r.personal.ratio * 100, 1)}%)`, target: '>= 90%', met: r.personal.ratio >= 0.9 },
          { phase: '(b) replay', backend, metric: "the cipher alone: us to open an event's values; best share with only it added", value: `${fmt(r.personal.open_us, 1)} us; ${fmt(r.personal.ceiling * 100, 1)}%` },
        );
      }
      report(lines, backend, '(b)');
    }
    // The CRUD baseline (express + pg/PGlite, one INSERT ... RETURNING and one SELECT per request) and customers.insert,
    // same load, in interleaved slices: the ratio compares loads measured in the same seconds.
    const maxOps = pg ? 15_000 : 6_000;
    if (only.includes('http')) {
      const { crud, h } = await withLoads(async (keep) => {
        const crudLoad = keep(await startInsertLoad(backend, maxOps, true));
        const insertLoad = keep(await startInsertLoad(backend, maxOps));
        await interleave([crudLoad, insertLoad], seconds * 1000);
        return { crud: crudLoad.figures(), h: insertLoad.figures() };
      });
      out.crud_baseline = crud;
      lines.push(
        { phase: '(c0) CRUD baseline', backend, metric: 'customers insert c=32 ops/s', value: fmt(crud.c32.opsPerSec) },
        { phase: '(c0) CRUD baseline', backend, metric: 'c=32 latency p50 / p99', value: `${fmt(crud.c32.p50Ms, 1)} / ${fmt(crud.c32.p99Ms, 1)} ms` },
      );
      lines.push({ phase: '(c0) CRUD baseline', backend, metric: CPU_METRIC, value: formatCpu(crud.cpu) });
      if (crud.c32.errors) lines.push({ phase: '(c0) CRUD baseline', backend, metric: 'errors', value: `${crud.c32.errors}: ${crud.c32.firstError}` });
      report(lines, backend, '(c0)');
      out.customers_insert = h;
      const ratio = h.c32.opsPerSec / crud.c32.opsPerSec;
      const p99x = h.c32.p99Ms / crud.c32.p99Ms;
      out.customers_insert_vs_crud = { ops_ratio: ratio, p99_ratio: p99x };
      lines.push(
        { phase: '(c) customers.insert', backend, metric: 'unloaded latency p50 / p99', value: `${fmt(h.unloaded_p50_ms, 1)} / ${fmt(h.unloaded_p99_ms, 1)} ms` },
        { phase: '(c) customers.insert', backend, metric: 'c=32 ops/s (of CRUD baseline)', value: `${fmt(h.c32.opsPerSec)} (${fmt(ratio * 100, 1)}%)`, target: '>= 90% of (c0)', met: ratio >= 0.9 },
        { phase: '(c) customers.insert', backend, metric: 'c=32 latency p50 / p99 (p99 / CRUD p99)', value: `${fmt(h.c32.p50Ms, 1)} / ${fmt(h.c32.p99Ms, 1)} ms (${fmt(p99x, 2)}x)`, target: 'p99 <= 1.2x (c0)', met: p99x <= 1.2 },
        { phase: '(c) customers.insert', backend, metric: 'slowest request', value: `${fmt(h.c32.maxMs ?? Number.NaN, 1)} ms`, ...(pg ? {} : { target: '<= 2,000 ms', met: (h.c32.maxMs ?? Infinity) <= 2000 }) },
        { phase: '(c) customers.insert', backend, metric: CPU_METRIC, value: formatCpu(h.cpu) },
      );
      if (h.c32.errors) lines.push({ phase: '(c) customers.insert', backend, metric: 'errors', value: `${h.c32.errors}: ${h.c32.firstError}` });
      report(lines, backend, '(c)');
    }
    if (only.includes('mix')) {
      // The CRUD baseline again, the same flows done the plain CRUD way (rows updated in place, one transaction per
      // write: what the mix's work costs without events), the mix, and on Postgres the mix against serve + project
      // in two processes (the production shape): direct, through the bench's round-robin proxy, and two `serve`
      // behind it; all in interleaved slices. On Postgres every process of the phase gets the same share of one
      // connection budget (BENCH_CONNECTIONS, default 72: a 100-connection server less the superusers' 3 and 25 for
      // everything else on it), as docs/operations.md sizes DATABASE_POOL_MAX.
      const processes = pg ? 1 + 1 + 1 + 2 + 2 + 3 : 0;
      const budget = Number(process.env.BENCH_CONNECTIONS ?? '72');
      const pool: Record<string, string> = pg ? { BENCH_POOL_MAX: String(Math.floor(budget / processes)) } : {};
      const { crud, plain, m, split, proxied, two } = await withLoads(async (keep) => {
        const crudLoad = keep(await startInsertLoad(backend, maxOps, true, pool));
        const plainLoad = keep(await startLedgerMix(backend, 'crud-ledger-server.ts', pool));
        const mixLoad = keep(await startLedgerMix(backend, 'server.ts', pool));
        const split = { ...pool, BENCH_TOPOLOGY: 'split' };
        const splitLoad = pg ? keep(await startLedgerMix(backend, 'server.ts', split)) : null;
        const proxiedLoad = pg ? keep(await startLedgerMix(backend, 'server.ts', { ...split, BENCH_PROXY: '1' })) : null;
        const twoLoad = pg ? keep(await startLedgerMix(backend, 'server.ts', { ...split, BENCH_SERVES: '2' })) : null;
        await interleave([crudLoad, plainLoad, mixLoad, ...[splitLoad, proxiedLoad, twoLoad].filter((l) => l !== null)], seconds * 1000);
        return { crud: crudLoad.figures(), plain: plainLoad.figures(), m: mixLoad.figures(), split: splitLoad?.figures(), proxied: proxiedLoad?.figures(), two: twoLoad?.figures() };
      });
      if (pg) lines.push({ phase: '(d0) CRUD ledger mix', backend, metric: 'connections per process (one budget)', value: `${pool.BENCH_POOL_MAX} each, ${processes} processes, budget ${budget}` });
      out.crud_ledger_mix = plain;
      lines.push({ phase: '(d0) CRUD ledger mix', backend, metric: 'all operations/s c=32 (CRUD baseline in the same slices)', value: `${fmt(plain.opsPerSec)} (${fmt(crud.c32.opsPerSec)})` });
      lines.push({ phase: '(d0) CRUD ledger mix', backend, metric: CPU_METRIC, value: formatCpu(plain.cpu) });
      if (plain.errors) lines.push({ phase: '(d0) CRUD ledger mix', backend, metric: 'errors', value: `${plain.errors}: ${plain.firstError}` });
      report(lines, backend, '(d0)');
      out.ledger_mix = m;
      const ratio = m.opsPerSec / crud.c32.opsPerSec;
      const ofPlain = m.opsPerSec / plain.opsPerSec;
      out.ledger_mix_vs_crud = { ops_ratio: ratio, of_crud_ledger_mix: ofPlain, crud_baseline_ops_per_sec: crud.c32.opsPerSec };
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'all operations/s, of the CRUD ledger mix (d0)', value: `${fmt(m.opsPerSec)} (${fmt(ofPlain * 100, 1)}%)`, target: '>= 90% of (d0)', met: ofPlain >= 0.9 });
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'same, of the CRUD baseline (c0)', value: `${fmt(ratio * 100, 1)}%` });
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: CPU_METRIC, value: formatCpu(m.cpu) });
      lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'slowest request', value: `${fmt(m.maxMs, 1)} ms`, ...(pg ? {} : { target: '<= 2,000 ms', met: m.maxMs <= 2000 }) });
      for (const [op, f] of Object.entries(m.byOperation)) {
        lines.push({ phase: '(d) ledger mix c=32', backend, metric: `${op} p50 / p99 (${fmt(f.ops)} ops)`, value: `${fmt(f.p50Ms, 1)} / ${fmt(f.p99Ms, 1)} ms` });
      }
      for (const s of m.skipped) lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'skipped', value: s });
      if (m.errors) lines.push({ phase: '(d) ledger mix c=32', backend, metric: 'errors', value: `${m.errors}: ${m.firstError}` });
      report(lines, backend, '(d)');
      if (split) {
        out.ledger_mix_split = split;
        const share = split.opsPerSec / m.opsPerSec;
        lines.push({ phase: '(d1) mix, serve+project', backend, metric: 'all operations/s (of (d), one process)', value: `${fmt(split.opsPerSec)} (${fmt(share * 100, 1)}%)`, target: '>= 90% of (d)', met: share >= 0.9 });
        lines.push({ phase: '(d1) mix, serve+project', backend, metric: 'errors', value: split.errors ? `${split.errors}: ${split.firstError}` : '0', target: '0', met: split.errors === 0 });
        lines.push({ phase: '(d1) mix, serve+project', backend, metric: 'slowest request', value: `${fmt(split.maxMs, 1)} ms` });
        lines.push({ phase: '(d1) mix, serve+project', backend, metric: CPU_METRIC, value: formatCpu(split.cpu) });
        report(lines, backend, '(d1)');
      }
      if (split && proxied && two) {
        out.ledger_mix_split_proxied = proxied;
        out.ledger_mix_split_two_serves = two;
        lines.push({ phase: '(d2) mix, 2 serve+project', backend, metric: 'one serve behind the round-robin proxy: operations/s (of (d1))', value: `${fmt(proxied.opsPerSec)} (${fmt((proxied.opsPerSec / split.opsPerSec) * 100, 1)}%)` });
        lines.push({ phase: '(d2) mix, 2 serve+project', backend, metric: 'two serve behind it: operations/s (of one behind it)', value: `${fmt(two.opsPerSec)} (${fmt((two.opsPerSec / proxied.opsPerSec) * 100, 1)}%)` });
        lines.push({ phase: '(d2) mix, 2 serve+project', backend, metric: 'errors (one / two serve)', value: `${proxied.errors} / ${two.errors}${proxied.firstError ?? two.firstError ? `: ${proxied.firstError ?? two.firstError}` : ''}`, target: '0', met: proxied.errors + two.errors === 0 });
        lines.push({ phase: '(d2) mix, 2 serve+project', backend, metric: `${CPU_METRIC}: one serve / two serve`, value: `${formatCpu(proxied.cpu)} / ${formatCpu(two.cpu)}` });
        lines.push({ phase: '(d2) mix, 2 serve+project', backend, metric: 'p50 of invoices.insert (one / two serve)', value: `${fmt(proxied.byOperation['billing.invoices.insert']?.p50Ms ?? Number.NaN, 1)} / ${fmt(two.byOperation['billing.invoices.insert']?.p50Ms ?? Number.NaN, 1)} ms` });
        report(lines, backend, '(d2)');
      }
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
    // Issue 14: a ready vehicle's search (unloaded reference first, then with the subscribers connected) and the subscribe fan-out.
    if (only.includes('assemblies')) {
      const f = await benchAssemblies(backend, subscribers, subscribeEvents);
      out.assemblies = f;
      lines.push(
        { phase: '(f) assemblies.v4.search', backend, metric: `reference: auth.sessions.get, serial: p50 / p99 (${f.reference_unloaded.n})`, value: `${fmt(f.reference_unloaded.p50Ms, 1)} / ${fmt(f.reference_unloaded.p99Ms, 1)} ms` },
        { phase: '(f) assemblies.v4.search', backend, metric: `ready vehicle, serial, unloaded: p50 / p99 (${f.search_unloaded.n})`, value: `${fmt(f.search_unloaded.p50Ms, 1)} / ${fmt(f.search_unloaded.p99Ms, 1)} ms`, target: 'p99 < 20 ms', met: f.search_unloaded.p99Ms < 20 },
        { phase: '(f) assemblies.v4.search', backend, metric: `same, ${fmt(f.clients)} subscribers connected: p50 / p99 (${f.search_with_subscribers.n})`, value: `${fmt(f.search_with_subscribers.p50Ms, 1)} / ${fmt(f.search_with_subscribers.p99Ms, 1)} ms`, target: 'p99 < 20 ms', met: f.search_with_subscribers.p99Ms < 20 },
        { phase: '(f) assemblies.v4.search', backend, metric: `same seconds, another organization's (delivered to none): p50 / p99 (${f.search_undelivered.n})`, value: `${fmt(f.search_undelivered.p50Ms, 1)} / ${fmt(f.search_undelivered.p99Ms, 1)} ms` },
        { phase: '(f) assemblies.v4.search', backend, metric: `${CPU_METRIC}: unloaded / delivered to ${fmt(f.clients)} / to none`, value: [f.cpu.unloaded, f.cpu.delivered, f.cpu.undelivered].map(formatCpu).join(' / ') },
        { phase: '(f) assemblies.v4.search', backend, metric: "the subscribers' process, CPU per search: delivered / not", value: `${fmt(f.cpu.delivered.subscribers_ms, 2)} / ${fmt(f.cpu.undelivered.subscribers_ms, 2)} ms` },
        { phase: '(g) subscribe.stream', backend, metric: `${fmt(f.connected)} clients x ${f.events_per_client} searches: delivered`, value: `${fmt(f.delivered)} of ${fmt(f.connected * f.events_per_client)}`, target: 'all', met: f.delivered === f.connected * f.events_per_client },
        { phase: '(g) subscribe.stream', backend, metric: 'search start -> client latency p50 / p99 (max)', value: `${fmt(f.latency_p50_ms, 1)} / ${fmt(f.latency_p99_ms, 1)} ms (${fmt(f.latency_max_ms)} ms)`, ...(pg ? { target: 'p99 < 100 ms', met: f.latency_p99_ms < 100 } : {}) },
        { phase: '(g) subscribe.stream', backend, metric: 'server memory per client: RSS / JS heap', value: `${fmt(f.rss_per_client_bytes / 1024, 1)} / ${fmt(f.heap_per_client_bytes / 1024, 1)} KiB` },
      );
      report(lines, backend, '(f)');
      report(lines, backend, '(g)');
    }
    if (only.includes('analytics')) {
      const a = await benchAnalytics(backend, seconds * 1000);
      out.analytics = a;
      const p50x = a.billing_loaded.p50Ms / a.billing_unloaded.p50Ms;
      lines.push(
        { phase: '(h) analytics', backend, metric: 'auth.sessions.get c=32 ops/s (reference: cheapest signed-in request)', value: fmt(a.reference_c32.opsPerSec) },
        { phase: '(h) analytics', backend, metric: 'analytics.events.insert c=32 events/s (of reference)', value: `${fmt(a.c32.opsPerSec)} (${fmt((a.c32.opsPerSec / a.reference_c32.opsPerSec) * 100, 1)}%)`, target: '>= 2,000 events/s', met: a.c32.opsPerSec >= 2000 },
        { phase: '(h) analytics', backend, metric: 'analytics c=32 latency p50 / p99', value: `${fmt(a.c32.p50Ms, 1)} / ${fmt(a.c32.p99Ms, 1)} ms` },
        { phase: '(h) analytics', backend, metric: 'event-store appends per analytics event', value: fmt(a.appends_per_event, 3) },
        { phase: '(h) analytics', backend, metric: `${CPU_METRIC} (of the reference's)`, value: `${formatCpu(a.cpu)}; reference ${formatCpu(a.reference_cpu)}` },
        { phase: '(h) analytics', backend, metric: `customers.insert alone p50 / p99 (${a.billing_unloaded.ops} serial)`, value: `${fmt(a.billing_unloaded.p50Ms, 1)} / ${fmt(a.billing_unloaded.p99Ms, 1)} ms` },
        { phase: '(h) analytics', backend, metric: `customers.insert under c=32 auth.sessions.get p50 / p99 (${a.billing_reference_loaded.ops} serial)`, value: `${fmt(a.billing_reference_loaded.p50Ms, 1)} / ${fmt(a.billing_reference_loaded.p99Ms, 1)} ms` },
        { phase: '(h) analytics', backend, metric: `customers.insert under c=32 analytics p50 / p99 (${a.billing_loaded.ops} serial)`, value: `${fmt(a.billing_loaded.p50Ms, 1)} / ${fmt(a.billing_loaded.p99Ms, 1)} ms (p50 ${fmt(p50x, 2)}x alone, ${fmt(a.billing_loaded.p50Ms / a.billing_reference_loaded.p50Ms, 2)}x under the reference load)` },
      );
      if (a.c32.errors) lines.push({ phase: '(h) analytics', backend, metric: 'errors', value: `${a.c32.errors}: ${a.c32.firstError}` });
      report(lines, backend, '(h)');
    }
    if (only.includes('ingest')) {
      const g = await benchIngest(backend, importRows);
      out.ingest = g;
      lines.push(
        { phase: '(i) ingest', backend, metric: `plain multi-row INSERT of the same ${fmt(g.rows)} rows (reference)`, value: `${fmt(g.raw_insert_seconds, 1)} s` },
        { phase: '(i) ingest', backend, metric: `CSV import of ${fmt(g.rows)} items (${fmt(g.bytes / 2 ** 20, 1)} MiB), prepare to listed`, value: `${fmt(g.seconds, 1)} s (${fmt(g.rows_per_sec)} rows/s; upload ${fmt(g.upload_seconds, 1)} s)`, target: '< 30 s', met: g.seconds < 30 },
      );
      report(lines, backend, '(i)');
    }
    if (only.includes('resolve')) {
      const r = await benchResolve(backend, Number(process.env.BENCH_RELATIONSHIPS ?? '10000'), Number(process.env.BENCH_REVISIONS ?? '1000'), 1000);
      out.resolve = r;
      const what = `${fmt(r.relationships)} relationships, ${fmt(r.revisions)} revisions`;
      lines.push(
        { phase: '(j) configuration.resolve.get', backend, metric: 'unloaded reference p50 / p99 (1 relationship, 2 revisions)', value: `${fmt(r.unloaded.p50Ms, 1)} / ${fmt(r.unloaded.p99Ms, 1)} ms` },
        { phase: '(j) configuration.resolve.get', backend, metric: `p50 / p99 with ${what}, ${fmt(r.requests)} requests`, value: `${fmt(r.loaded.p50Ms, 1)} / ${fmt(r.loaded.p99Ms, 1)} ms (${fmt(r.loaded.p99Ms / r.unloaded.p99Ms, 2)}x reference)`, target: 'p99 < 20 ms', met: r.loaded.p99Ms < 20 },
        { phase: '(j) configuration.resolve.get', backend, metric: 'set-up (seed through the event store and projections)', value: `${fmt(r.seed_seconds, 1)} s` },
      );
      report(lines, backend, '(j)');
    }
    if (only.includes('usage')) {
      const u = await benchUsage(backend, Number(process.env.BENCH_USAGE_ORDERS ?? '100000'), 400);
      out.usage = u;
      lines.push(
        { phase: '(k) usage invoice', backend, metric: `plain SELECT of the month's ${fmt(u.orders)} usage rows (reference)`, value: `${fmt(u.select_rows_seconds, 2)} s` },
        {
          phase: '(k) usage invoice', backend, metric: `billing.invoices.generate from ${fmt(u.orders)} orders (${u.lines} lines)`, value: `${fmt(u.generate_seconds, 2)} s`,
          ...(pg ? { target: '< 10 s', met: u.generate_seconds < 10 } : {}),
        },
        { phase: '(k) usage invoice', backend, metric: `invoices.orders.list p50 / p99, ${u.list_requests} pages of 50`, value: `${fmt(u.list_p50_ms, 1)} / ${fmt(u.list_p99_ms, 1)} ms`, target: 'p99 < 20 ms', met: u.list_p99_ms < 20 },
      );
      report(lines, backend, '(k)');
    }
    // Opt-in (not in the default list): builds logs and read models ten times today's sizes, which takes long.
    if (only.includes('scale')) {
      out.scale = await benchScale(backend, seconds * 1000, (p) => {
        lines.push({
          phase: '(s) scale', backend, metric: `${p.what}, ${fmt(p.sizes[0])} -> ${fmt(p.sizes[1])}`,
          value: `${fmt(p.small, p.unit === 'ms' ? 1 : 0)} -> ${fmt(p.large, p.unit === 'ms' ? 1 : 0)} ${p.unit} (cost x${fmt(p.ratio, 2)})`,
          target: 'cost <= x1.25', met: p.ratio <= 1.25,
        });
        report(lines.slice(-1), backend, '(s)');
      });
    }
    if (only.includes('webhooks')) {
      // Issue 29: the same insert load with 100 webhook endpoints registered and with none, in the same seconds (ABBA slices).
      const endpoints = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? '100');
      const { none, many, delivered } = await withLoads(async (keep) => {
        const noneLoad = keep(await startWebhookInsertLoad(backend, maxOps, 0));
        const manyLoad = keep(await startWebhookInsertLoad(backend, maxOps, endpoints));
        await interleave([noneLoad, manyLoad], seconds * 1000);
        return { none: noneLoad.figures(), many: manyLoad.figures(), delivered: manyLoad.delivered() };
      });
      out.webhooks = { none, many, delivered };
      const ratio = many.c32.opsPerSec / none.c32.opsPerSec;
      lines.push(
        { phase: '(l) webhooks', backend, metric: 'customers.insert c=32 ops/s, no endpoints', value: `${fmt(none.c32.opsPerSec)} (p50 / p99 ${fmt(none.c32.p50Ms, 1)} / ${fmt(none.c32.p99Ms, 1)} ms)` },
        { phase: '(l) webhooks', backend, metric: `same with ${endpoints} endpoints (of none)`, value: `${fmt(many.c32.opsPerSec)} (${fmt(ratio * 100, 1)}%; p50 / p99 ${fmt(many.c32.p50Ms, 1)} / ${fmt(many.c32.p99Ms, 1)} ms)`, target: '>= 95% of none', met: ratio >= 0.95 },
        { phase: '(l) webhooks', backend, metric: 'deliveries received during the run', value: fmt(delivered) },
      );
      for (const [name, f] of [['none', none], ['endpoints', many]] as const) if (f.c32.errors) lines.push({ phase: '(l) webhooks', backend, metric: `errors (${name})`, value: `${f.c32.errors}: ${f.c32.firstError}` });
      report(lines, backend, '(l)');
    }
    // Issue 31: the first `npm start` on an empty data directory (the embedded database: PGlite only), next to a restart.
    if (only.includes('start') && backend === 'pglite') {
      const s = await benchFirstStart();
      out.first_start = s;
      lines.push(
        { phase: '(m) first start', backend, metric: 'restart on the directory it left, to the banner (reference)', value: `${fmt(s.restart_seconds, 1)} s` },
        { phase: '(m) first start', backend, metric: '`core-server start` on an empty data directory, to the banner', value: `${fmt(s.first_seconds, 1)} s (${fmt(s.first_seconds / s.restart_seconds, 2)}x restart)`, target: '< 5 s', met: s.first_seconds < 5 },
      );
      report(lines, backend, '(m)');
    }
    // Issue 30: a CLI command as an operator waits for it, spawn to exit, next to the process floor (and PGlite's open).
    if (only.includes('cli')) {
      const figures = await benchCli(backend);
      out.cli = figures;
      for (const f of figures) {
        const value = `${fmt(f.median_ms)} ms median (max ${fmt(f.max_ms)} ms)`;
        lines.push(f.reference ? { phase: '(n) cli', backend, metric: f.command, value } : { phase: '(n) cli', backend, metric: f.command, value, target: '< 1 s (median)', met: f.median_ms < 1000 });
      }
      report(lines, backend, '(n)');
    }
  }
  console.log('');
  printTable(lines);
  console.log('\nTargets of issues 9 and 31, for a 2-core machine; (c0) is the plain CRUD reference measured in the same run.');
  console.log('(a) and (b) have issue 31\'s targets (appends against a prepared INSERT into a primary-key-only table, side by side in');
  console.log('    slices; replay against a plain SELECT of the same events) and issue 32\'s (with crypto-shredding within 10% of without).');
  console.log('(e) inserts the invoice rows in bulk straight into the billing_invoices read model (it measures reads), then pages');
  console.log('    billing.invoices.list over HTTP as billing staff, filtered by customer and status, one request at a time.');
  console.log('(f) with the subscribers connected, searches run back to back in slices taken in turn: by their organization (each delivered');
  console.log('    to every client) and by another (delivered to none), so the delivery\'s cost shows beside what connected clients cost.');
  console.log('(h) customers.insert latency is taken one request at a time, first alone, then while 32 clients log analytics events.');
  console.log('(i) times prepare, upload, commit, worker processing and the sellable-items read model holding the last row (the import worker passes every 2 s).');
  console.log('(j) seeds billing configuration through the event store (events made by the deciders), then times resolve.get one request');
  console.log('    at a time (random buyer, instant and as_of) on the large subscription and on a nearly empty one, interleaved.');
  console.log('(k) writes a month of usage facts in bulk into the log, then times billing.invoices.generate over HTTP next to a plain SELECT');
  console.log('    of the same usage rows (reference), then pages billing.invoices.orders.list one request at a time.');
  console.log('(l) runs the customers.insert load of (c) on two servers with their workers, one with 100 webhook endpoints (every organization\'s');
  console.log('    customer.created, delivered to a receiver in the bench process) and one with none, in the same seconds (ABBA slices).');
  console.log('(m) builds dist/ if stale (as npm start does), then times `core-server start` on an empty data directory and a restart, to the banner.');
  console.log('(n) times CLI commands spawn to exit (7 runs each, taken in turn; the target is on the median, the slowest run printed beside it), next to `node -e 0` and, on PGlite, PGlite\'s own open.');
  results.lines = lines;
  results.load_avg_1m_at_end = os.loadavg()[0];
  console.log(`load average (1 min) at the start ${facts.load_avg_1m}, at the end ${os.loadavg()[0]!.toFixed(1)}: other work on the machine slows every figure.`);
  const file = path.join(import.meta.dirname, 'results.json');
  fs.writeFileSync(file, `${JSON.stringify(results, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** Runs `fn`, then stops every load it kept (started), whether it finished or failed. */
async function withLoads<T>(fn: (keep: <L extends SlicedLoad>(load: L) => L) => Promise<T>): Promise<T> {
  const started: SlicedLoad[] = [];
  try {
    return await fn((load) => {
      started.push(load);
      return load;
    });
  } finally {
    await Promise.all(started.map((l) => l.stop()));
  }
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
