// The scale phase (issue 31, opt-in: BENCH_ONLY=scale): each figure at today's size (1x) and at ten times it (10x), and
// the ratio of their costs (>1: the bigger log or read model costs more per operation). Target: every ratio <= 1.25.
import { type BenchBackend, SliceTotals, abba, closedLoop, openBenchDb, percentile } from './support.ts';
import { appendLoad } from './appends.ts';
import { benchReplay, preloadCustomerEvents } from './replay.ts';
import { benchInvoiceList } from './ledger.ts';
import { benchAssemblies } from './assemblies.ts';
import { type BenchServer, expectOk, startBenchServer } from './http.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';

/** One figure at two sizes. `ratio` is the cost at `large` over the cost at `small` (for rates: small rate / large rate). */
export interface ScalePair {
  what: string;
  unit: string;
  sizes: [number, number];
  small: number;
  large: number;
  ratio: number;
}

/** The sizes of each figure, from the knobs (defaults: today's bench sizes and ten times them). */
export interface ScaleSizes {
  /** Events already in the log before appending (BENCH_SCALE_LOG). */
  log: [number, number];
  /** Events replayed by a rebuild (BENCH_SCALE_REPLAY). */
  replay: [number, number];
  /** billing_invoices read-model rows under billing.invoices.list (BENCH_SCALE_INVOICES). */
  invoices: [number, number];
  /** Invoices of the one customer whose statement is read (BENCH_SCALE_CUSTOMER_INVOICES). */
  customerInvoices: [number, number];
  /** Payment events already on the invoice stream a payment is recorded on (BENCH_SCALE_PAYMENTS). */
  payments: [number, number];
  /** assemblies.subscribe.stream clients (BENCH_SCALE_SUBSCRIBERS). */
  subscribers: [number, number];
}

const pair = (name: string, fallback: [number, number]): [number, number] => {
  const raw = process.env[name]?.split(',').map(Number);
  return raw && raw.length === 2 && raw.every((n) => Number.isInteger(n) && n > 0) ? [raw[0]!, raw[1]!] : fallback;
};

/** Sizes from the knobs; the read-model sizes are smaller on PGlite, which keeps the whole database in memory. */
export function scaleSizes(backend: BenchBackend): ScaleSizes {
  const pg = backend === 'postgres';
  return {
    log: pair('BENCH_SCALE_LOG', [200_000, 2_000_000]),
    replay: pair('BENCH_SCALE_REPLAY', [200_000, 2_000_000]),
    invoices: pair('BENCH_SCALE_INVOICES', pg ? [1_000_000, 10_000_000] : [200_000, 2_000_000]),
    customerInvoices: pair('BENCH_SCALE_CUSTOMER_INVOICES', [100, 10_000]),
    payments: pair('BENCH_SCALE_PAYMENTS', [10, 2_000]),
    subscribers: pair('BENCH_SCALE_SUBSCRIBERS', [1_000, 10_000]),
  };
}

const cost = (what: string, unit: string, sizes: [number, number], small: number, large: number, rate: boolean): ScalePair => ({
  what, unit, sizes, small, large, ratio: rate ? small / large : large / small,
});

/**
 * Appends/s at c=16 with each size of log already in place (bulk-written customer events, then vacuumed and analyzed
 * as a settled log is), the two logs in their own databases and measured side by side in ABBA slices: measured one
 * after the other on a shared machine, the load of the moment decided the ratio (x1.52 one run, flat in slices).
 */
async function appendsWithLogs(backend: BenchBackend, sizes: [number, number], durationMs: number): Promise<[number, number]> {
  const dbs: Awaited<ReturnType<typeof openBenchDb>>[] = [];
  try {
    for (const existing of sizes) {
      const db = await openBenchDb(backend);
      dbs.push(db);
      await preloadCustomerEvents(db.knex, Math.ceil(existing / 2));
      await db.knex.raw('vacuum analyze es_events');
    }
    const stores = dbs.map((db) => new PostgresEventStore(db));
    const totals = stores.map(() => new SliceTotals());
    const rounds = 4;
    for (const i of abba([0, 1], rounds)) totals[i]!.add(await appendLoad(stores[i]!, 16, durationMs / rounds, totals[i]!.latencies));
    for (const store of stores) await store.close();
    return [totals[0]!.result().opsPerSec, totals[1]!.result().opsPerSec];
  } finally {
    for (const db of dbs) await db.close();
  }
}

async function replayOf(backend: BenchBackend, events: number): Promise<number> {
  const db = await openBenchDb(backend);
  try {
    return (await benchReplay(db, Math.ceil(events / 2))).eventsPerSec;
  } finally {
    await db.close();
  }
}

/** A customer of its own organization, with `invoices` finalized invoices made through the API (16 at a time). */
async function customerWithInvoices(server: BenchServer, orgId: string, invoices: number): Promise<string> {
  const made = await server.post('billing.customers.insert', { organization_id: orgId, name: `Scale customer ${invoices}`, email: `scale${invoices}@example.com`, currency: 'GBP' }, server.staffToken);
  expectOk(made, 'billing.customers.insert');
  const customerId = (JSON.parse(made.body) as { id: string }).id;
  await closedLoop({ concurrency: 16, durationMs: 3_600_000, maxOps: invoices }, async () => {
    const draft = await server.post('billing.invoices.insert', { customer_id: customerId, lines: [{ description: 'Parts', quantity: 1, unit_amount: 1250 }] }, server.staffToken);
    expectOk(draft, 'billing.invoices.insert');
    expectOk(await server.post('billing.invoices.update', { id: (JSON.parse(draft.body) as { id: string }).id, action: 'finalize' }, server.staffToken), 'billing.invoices.update');
  });
  return customerId;
}

/** An open invoice of `customerId` with `payments` payments of 1 already recorded (one at a time: one stream). */
async function invoiceWithPayments(server: BenchServer, customerId: string, payments: number): Promise<string> {
  const draft = await server.post('billing.invoices.insert', { customer_id: customerId, lines: [{ description: 'Long account', quantity: 1, unit_amount: 100_000_000 }] }, server.staffToken);
  expectOk(draft, 'billing.invoices.insert');
  const id = (JSON.parse(draft.body) as { id: string }).id;
  expectOk(await server.post('billing.invoices.update', { id, action: 'finalize' }, server.staffToken), 'billing.invoices.update');
  for (let i = 0; i < payments; i++) expectOk(await server.post('billing.payments.insert', payment(id, i), server.staffToken), 'billing.payments.insert');
  return id;
}

const today = () => new Date().toISOString().slice(0, 10);
const payment = (invoiceId: string, i: number) => ({ invoice_id: invoiceId, amount: 1, currency: 'GBP', method: 'bank_transfer', reference: `SCALE ${i}`, received_on: today() });

/** Latencies of `fn` on the small and the large subject, interleaved one request at a time so both see the same machine. */
async function interleaved(n: number, small: () => Promise<void>, large: () => Promise<void>): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [fn, into] of [[small, a], [large, b]] as const) {
      const t0 = performance.now();
      await fn();
      into.push(performance.now() - t0);
    }
  }
  return [percentile(a, 99), percentile(b, 99)];
}

/**
 * statement.get of a customer with few and with many invoices (its period after all of them: the opening balance and
 * ageing read the whole history), and payments.insert on an invoice stream with few and with many payment events.
 */
async function historyFigures(backend: BenchBackend, sizes: ScaleSizes): Promise<ScalePair[]> {
  const server = await startBenchServer(backend, 3, { LOG_LEVEL: 'warn' });
  try {
    const [orgSmall, orgLarge, orgPayments] = server.orgIds as [string, string, string];
    const few = await customerWithInvoices(server, orgSmall, sizes.customerInvoices[0]);
    const many = await customerWithInvoices(server, orgLarge, sizes.customerInvoices[1]);
    const next = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    const statement = (customerId: string) => async () =>
      expectOk(await server.post('billing.customers.statement.get', { customer_id: customerId, from: next, to: next }, server.staffToken), 'billing.customers.statement.get');
    for (let i = 0; i < 20; i++) await Promise.all([statement(few)(), statement(many)()]); // warm-up
    const [s1, s10] = await interleaved(200, statement(few), statement(many));

    const payer = await customerWithInvoices(server, orgPayments, 0);
    const short = await invoiceWithPayments(server, payer, sizes.payments[0]);
    const long = await invoiceWithPayments(server, payer, sizes.payments[1]);
    let i = 0;
    const pay = (invoiceId: string) => async () => expectOk(await server.post('billing.payments.insert', payment(invoiceId, 1_000_000 + i++), server.staffToken), 'billing.payments.insert');
    const [p1, p10] = await interleaved(200, pay(short), pay(long));
    return [
      cost('billing.customers.statement.get p99', 'ms', sizes.customerInvoices, s1, s10, false),
      cost('billing.payments.insert p99 (payment events on the stream)', 'ms', sizes.payments, p1, p10, false),
    ];
  } finally {
    await server.stop();
  }
}

/** Every figure of the scale phase on `backend`, printed as it is measured by `report`. */
export async function benchScale(backend: BenchBackend, durationMs: number, report: (p: ScalePair) => void): Promise<ScalePair[]> {
  const sizes = scaleSizes(backend);
  // BENCH_SCALE_FIGURES picks figures (log, replay, invoices, history, subscribers): each 10x build is long.
  const picked = (process.env.BENCH_SCALE_FIGURES ?? 'log,replay,invoices,history,subscribers').split(',');
  const out: ScalePair[] = [];
  const add = (p: ScalePair) => {
    out.push(p);
    report(p);
  };
  if (picked.includes('log')) {
    const [small, large] = await appendsWithLogs(backend, sizes.log, durationMs);
    add(cost('event appends/s, c=16, with events in the log (side by side)', 'appends/s', sizes.log, small, large, true));
  }
  if (picked.includes('replay'))
    add(cost('rebuild billing.customers', 'events/s', sizes.replay, await replayOf(backend, sizes.replay[0]), await replayOf(backend, sizes.replay[1]), true));
  if (picked.includes('invoices')) {
    const lists = [await benchInvoiceList(backend, sizes.invoices[0], 500), await benchInvoiceList(backend, sizes.invoices[1], 500)];
    add(cost('billing.invoices.list p99 (read-model rows)', 'ms', sizes.invoices, lists[0]!.p99Ms, lists[1]!.p99Ms, false));
  }
  if (picked.includes('history')) for (const p of await historyFigures(backend, sizes)) add(p);
  if (picked.includes('subscribers')) {
    const subs = [await benchAssemblies(backend, sizes.subscribers[0], 10), await benchAssemblies(backend, sizes.subscribers[1], 10)];
    add(cost('assemblies.subscribe.stream memory per client', 'bytes', sizes.subscribers, subs[0]!.rss_per_client_bytes, subs[1]!.rss_per_client_bytes, false));
    // The heap used, beside the RSS: the process keeps pages it grew to while the clients connected.
    add(cost('assemblies.subscribe.stream heap used per client', 'bytes', sizes.subscribers, subs[0]!.heap_per_client_bytes, subs[1]!.heap_per_client_bytes, false));
    add(cost('assemblies.subscribe.stream delivery p99', 'ms', sizes.subscribers, subs[0]!.latency_p99_ms, subs[1]!.latency_p99_ms, false));
  }
  return out;
}
