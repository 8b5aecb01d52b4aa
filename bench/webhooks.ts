// Phase (l): billing.customers.insert with 100 webhook endpoints registered next to none (issue 29: delivery must not slow
// commands). Two servers with their workers (the delivery worker among them), each endpoint a billing staff endpoint for
// every organization's customer.created, all pointing at one receiver in this process that answers 200 at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchBackend, SliceTotals, closedLoop, percentile } from './support.ts';
import { type HttpFigures, type InsertLoad, expectOk, startBenchServer } from './http.ts';
import { CpuTotals } from './cpu.ts';

/** The receiver of every delivery: counts them. */
async function startReceiver(): Promise<{ url: string; count: () => number; stop: () => Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => n,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A started customers.insert load with `endpoints` webhook endpoints registered; `delivered()` counts what the receiver got. */
export interface WebhookInsertLoad extends InsertLoad {
  delivered(): number;
}

/** Like phase (c)'s load, with the workers running and `endpoints` endpoints registered before the warm-up. */
export async function startWebhookInsertLoad(backend: BenchBackend, maxOps: number, endpoints: number): Promise<WebhookInsertLoad> {
  const warmup = 100;
  const serial = 100;
  const receiver = await startReceiver();
  const server = await startBenchServer(backend, maxOps + warmup + serial, { BENCH_WORKERS: '1', WEBHOOK_HTTP_LOOPBACK: 'allow' });
  try {
    for (let i = 0; i < endpoints; i++) {
      expectOk(await server.post('billing.webhook-endpoints.insert', { url: `${receiver.url}?n=${i}`, event_types: ['customer.created'], description: `bench ${i}` }, server.staffToken), 'billing.webhook-endpoints.insert');
    }
    let o = 0;
    const insert = async () => {
      const orgId = server.orgIds[o++];
      if (!orgId) throw new Error('ran out of organizations');
      expectOk(await server.post('billing.customers.insert', { organization_id: orgId, name: `Customer ${o}`, email: `billing${o}@example.com`, currency: 'GBP' }, server.staffToken), 'billing.customers.insert');
    };
    await closedLoop({ concurrency: 8, durationMs: 30_000, maxOps: warmup }, insert);
    const lat: number[] = [];
    for (let i = 0; i < serial; i++) {
      const t0 = performance.now();
      await insert();
      lat.push(performance.now() - t0);
    }
    const c32 = new SliceTotals();
    const cpu = new CpuTotals();
    return {
      async slice(ms) {
        c32.add(await cpu.during(server.pid, () => closedLoop({ concurrency: 32, durationMs: ms, maxOps: server.orgIds.length - o, latencies: c32.latencies }, insert)));
      },
      figures: (): HttpFigures => {
        const result = c32.result();
        return { unloaded_p50_ms: percentile(lat, 50), unloaded_p99_ms: percentile(lat, 99), c32: result, cpu: cpu.perRequest(result.ops) };
      },
      delivered: () => receiver.count(),
      async stop() {
        await server.stop();
        await receiver.stop();
      },
    };
  } catch (err) {
    await server.stop();
    await receiver.stop();
    throw err;
  }
}
