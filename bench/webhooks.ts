// Phase (l): billing.customers.insert with 100 webhook endpoints registered next to none (issue 29: delivery must not slow
// commands). Two servers with their workers (the delivery worker among them), each endpoint a billing staff endpoint for
// every organization's customer.created, all pointing at one receiver in this process that answers 200 at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchBackend } from './support.ts';
import { type InsertLoad, expectOk, insertLoad, startBenchServer } from './http.ts';

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
  const counts = { warmup: 100, serial: 100 };
  const receiver = await startReceiver();
  const server = await startBenchServer(backend, maxOps + counts.warmup + counts.serial, { BENCH_WORKERS: '1', WEBHOOK_HTTP_LOOPBACK: 'allow' });
  try {
    for (let i = 0; i < endpoints; i++) {
      expectOk(await server.post('billing.webhook-endpoints.insert', { url: `${receiver.url}?n=${i}`, event_types: ['customer.created'], description: `bench ${i}` }, server.staffToken), 'billing.webhook-endpoints.insert');
    }
  } catch (err) {
    await server.stop();
    await receiver.stop();
    throw err;
  }
  const load = await insertLoad(server, counts).catch(async (err: unknown) => {
    await receiver.stop();
    throw err;
  });
  return {
    ...load,
    delivered: () => receiver.count(),
    async stop() {
      await load.stop();
      await receiver.stop();
    },
  };
}
