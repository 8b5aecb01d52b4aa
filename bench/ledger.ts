// Issue 4's phases: a realistic invoicing mix over HTTP at concurrency 32, and billing.invoices.list
// latency over a read model of 1,000,000 invoices (rows inserted in bulk, straight into the table).
import { type BenchBackend, type SlicedLoad, SliceTotals, closedLoop, maxOf, percentile } from './support.ts';
import { type BenchServer, expectOk, startBenchServer } from './http.ts';
import type { CpuFigures } from './cpu.ts';

/** Latency and count of one operation type in the mix. */
export interface OpFigures {
  ops: number;
  p50Ms: number;
  p99Ms: number;
}

/** Figures of the mix phase. */
export interface MixFigures {
  opsPerSec: number;
  seconds: number;
  errors: number;
  firstError?: string;
  byOperation: Record<string, OpFigures>;
  /** Slowest request of any operation. */
  maxMs: number;
  /** What the mix names but the service does not have yet. */
  skipped: string[];
  /** CPU per operation during the slices. */
  cpu: CpuFigures;
}

/** Figures of the list phase. */
export interface ListFigures {
  invoices: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const CUSTOMERS = 64;
const today = () => new Date().toISOString().slice(0, 10);

/** A started ledger mix: slices of c=32, and the figures of all of them. */
export interface MixLoad extends SlicedLoad {
  figures(): MixFigures;
}

/**
 * Each of 32 workers repeats: draft an invoice with 5 lines, finalize it, record 2 partial payments,
 * list the customer's open invoices, read the customer's statement for this month. With `script`
 * 'crud-ledger-server.ts', the same flows against the plain CRUD ledger (the mix's same-run reference); `env`
 * goes to the server (BENCH_TOPOLOGY=split: `serve` and `project` in two processes). Starts the server,
 * creates the customers and warms up; `slice` adds load.
 */
export async function startLedgerMix(backend: BenchBackend, script = 'server.ts', env: Record<string, string> = {}): Promise<MixLoad> {
  const server = await startBenchServer(backend, CUSTOMERS, env, script);
  try {
    const customers = await createCustomers(server);
    const skipped = server.operations.includes('billing.customers.statement.get') ? [] : ['statement reads (no billing.customers.statement.get operation)'];
    const lat = new Map<string, number[]>();
    const call = async (op: string, body: unknown): Promise<Record<string, unknown>> => {
      const t0 = performance.now();
      const reply = await server.post(op, body, server.staffToken);
      expectOk(reply, op);
      const ms = performance.now() - t0;
      const key = op === 'billing.invoices.update' ? 'billing.invoices.update (finalize)' : op;
      (lat.get(key) ?? lat.set(key, []).get(key)!).push(ms);
      return JSON.parse(reply.body) as Record<string, unknown>;
    };
    const flow = async (i: number, w: number) => {
      const customerId = customers[(w + i) % customers.length]!;
      const lines = Array.from({ length: 5 }, (_, k) => ({ description: `Part ${k + 1}`, quantity: k + 1, unit_amount: 1250 }));
      const draft = await call('billing.invoices.insert', { customer_id: customerId, lines });
      const open = await call('billing.invoices.update', { id: draft.id, action: 'finalize' });
      const part = Math.floor(Number(open.total) / 4);
      for (let k = 0; k < 2; k++) {
        await call('billing.payments.insert', { invoice_id: open.id, amount: part, currency: 'GBP', method: 'bank_transfer', reference: `BACS ${i}-${k}`, received_on: today() });
      }
      await call('billing.invoices.list', { customer_id: customerId, status: 'open', limit: 20 });
      if (skipped.length === 0) await call('billing.customers.statement.get', { customer_id: customerId, from: `${today().slice(0, 7)}-01`, to: today() });
    };
    await closedLoop({ concurrency: 8, durationMs: 30_000, maxOps: 16 }, flow); // warm-up
    lat.clear();
    const flows = new SliceTotals();
    return {
      async slice(ms) {
        await flows.measure(server.pid, () => closedLoop({ concurrency: 32, durationMs: ms, latencies: flows.latencies }, flow));
      },
      figures() {
        const run = flows.result();
        const byOperation: Record<string, OpFigures> = {};
        let ops = 0;
        for (const [op, xs] of lat) {
          byOperation[op] = { ops: xs.length, p50Ms: percentile(xs, 50), p99Ms: percentile(xs, 99) };
          ops += xs.length;
        }
        const maxMs = maxOf([...lat.values()].flat());
        return { opsPerSec: ops / run.seconds, seconds: run.seconds, errors: run.errors, firstError: run.firstError, byOperation, maxMs, skipped, cpu: flows.cpu.perRequest(ops) };
      },
      stop: () => server.stop(),
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

async function createCustomers(server: BenchServer): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, orgId] of server.orgIds.entries()) {
    const reply = await server.post('billing.customers.insert', { organization_id: orgId, name: `Ledger customer ${i}`, email: `ap${i}@example.com`, currency: 'GBP' }, server.staffToken);
    expectOk(reply, 'billing.customers.insert');
    ids.push((JSON.parse(reply.body) as { id: string }).id);
  }
  return ids;
}

/**
 * Fills billing_invoices with `invoices` rows in bulk (10,000 customers, 100 invoices each, 60% paid,
 * 20% open, 10% draft, 10% void), then pages through billing.invoices.list as billing staff filtered
 * by customer and status: first page and the pages after it by cursor, one request at a time.
 */
export async function benchInvoiceList(backend: BenchBackend, invoices: number, requests: number): Promise<ListFigures> {
  const server = await startBenchServer(backend, 1, { BENCH_INVOICES: String(invoices) });
  try {
    const lat: number[] = [];
    const page = async (body: Record<string, unknown>) => {
      const t0 = performance.now();
      const reply = await server.post('billing.invoices.list', body, server.staffToken);
      expectOk(reply, 'billing.invoices.list');
      lat.push(performance.now() - t0);
      return JSON.parse(reply.body) as { items: unknown[]; pagination: { cursor: string } | null };
    };
    const customerId = (n: number) => server.benchCustomerIds[n % server.benchCustomerIds.length]!;
    for (let i = 0; i < 20; i++) await page({ customer_id: customerId(i), status: 'paid', limit: 20 }); // warm-up
    lat.length = 0;
    for (let i = 0; lat.length < requests; i++) {
      const status = i % 2 === 0 ? 'paid' : 'open';
      let body: Record<string, unknown> = { customer_id: customerId(i * 7919), status, limit: status === 'paid' ? 20 : 10 };
      for (;;) {
        const res = await page(body);
        if (!res.pagination || lat.length >= requests) break;
        body = { ...body, cursor: res.pagination.cursor };
      }
    }
    return { invoices, requests: lat.length, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), maxMs: Math.max(...lat) };
  } finally {
    await server.stop();
  }
}
