// The end of a reference server's child process: listen on an ephemeral port, tell the bench where, stop when told.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { ServerReady } from './server.ts';

/** Serves `app` on 127.0.0.1 and sends the bench its ServerReady (`BENCH_ORGS` fresh organization ids); `close` runs on stop. */
export async function serveReference(app: Express, opts: { operations: string[]; defaultOrgs: number; close: () => Promise<void> }): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const orgIds = Array.from({ length: Number(process.env.BENCH_ORGS ?? String(opts.defaultOrgs)) }, () => crypto.randomUUID());
  const ready: ServerReady = { url: `http://127.0.0.1:${port}`, staffToken: 'crud', orgIds, operations: opts.operations, benchCustomerIds: [] };
  process.send?.({ ready });
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await opts.close();
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}
