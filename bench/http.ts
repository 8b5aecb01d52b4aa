// Phase (c): billing.customers.insert over HTTP against the real service in a child process.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type ChildProcess, fork } from 'node:child_process';
import { type BenchBackend, type LoadResult, type SlicedLoad, SliceTotals, closedLoop, createPostgresDatabase, percentile } from './support.ts';
import type { ServerReady } from './server.ts';
import type { CpuFigures } from './cpu.ts';

/** Figures of phase (c). */
export interface HttpFigures {
  unloaded_p50_ms: number;
  unloaded_p99_ms: number;
  c32: LoadResult;
  /** CPU per request during the c=32 slices. */
  cpu: CpuFigures;
}

/** A running bench server and a keep-alive client for it. */
export interface BenchServer extends ServerReady {
  /** The server's process id (its projector, other serves and proxy are its descendants). */
  pid: number;
  post(op: string, body: unknown, token: string, headers?: Record<string, string>): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/** Starts the service in a child process over a fresh database of `backend`. */
export async function startBenchServer(backend: BenchBackend, orgs: number, env: Record<string, string> = {}, script = 'server.ts'): Promise<BenchServer> {
  const pgdb = backend === 'postgres' ? await createPostgresDatabase() : null;
  const child: ChildProcess = fork(path.join(import.meta.dirname, script), [], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, BENCH_BACKEND: backend, BENCH_ORGS: String(orgs), BENCH_LOG_FILE: path.join(os.tmpdir(), `core-bench-${process.pid}.log`), ...(pgdb ? { BENCH_SERVER_DB: pgdb.url } : {}), ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    child.on('message', (m) => {
      const msg = m as { ready?: ServerReady };
      if (msg.ready) resolve(msg.ready);
    });
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(ready.url);
  return {
    ...ready,
    pid: child.pid!,
    post: (op, body, token, headers = {}) =>
      new Promise((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = http.request(
          { host: target.hostname, port: target.port, path: `/api/v1/${op}`, method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${token}` } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      }),
    async stop() {
      agent.destroy();
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send('stop');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill();
      await pgdb?.drop();
    },
  };
}

/** Throws unless the reply is a 200. */
export function expectOk(reply: { status: number; body: string }, what: string): void {
  if (reply.status !== 200) throw new Error(`${what}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
}

/** A started customers.insert load (phase (c), or with `crud` the baseline (c0)): its unloaded latency, then slices of c=32. */
export interface InsertLoad extends SlicedLoad {
  figures(): HttpFigures;
}

/**
 * Customers inserted by billing staff, one per pre-created organization; each answer waited for its read
 * model. With `crud`, the same requests against the plain CRUD baseline (bench/crud-server.ts) instead; `env` goes to the server.
 * Starts the server, warms it up and takes the unloaded latency (200 serial requests); `slice` adds load.
 */
export async function startInsertLoad(backend: BenchBackend, maxOps: number, crud = false, env: Record<string, string> = {}): Promise<InsertLoad> {
  const counts = { warmup: 300, serial: 200 };
  const server = await startBenchServer(backend, maxOps + counts.warmup + counts.serial, env, crud ? 'crud-server.ts' : 'server.ts');
  return insertLoad(server, counts);
}

/**
 * The customers.insert load on a started server (stopped with the load, or if the warm-up fails): `warmup` requests
 * at concurrency 8, then `serial` one at a time for the unloaded latency.
 */
export async function insertLoad(server: BenchServer, { warmup, serial }: { warmup: number; serial: number }): Promise<InsertLoad> {
  try {
    let o = 0;
    const insert = async () => {
      const orgId = server.orgIds[o++];
      if (!orgId) throw new Error('ran out of organizations');
      const reply = await server.post('billing.customers.insert', { organization_id: orgId, name: `Customer ${o}`, email: `billing${o}@example.com`, currency: 'GBP' }, server.staffToken);
      expectOk(reply, 'billing.customers.insert');
    };
    await closedLoop({ concurrency: 8, durationMs: 30_000, maxOps: warmup }, insert);
    const lat: number[] = [];
    for (let i = 0; i < serial; i++) {
      const t0 = performance.now();
      await insert();
      lat.push(performance.now() - t0);
    }
    const c32 = new SliceTotals();
    return {
      async slice(ms) {
        await c32.measure(server.pid, () => closedLoop({ concurrency: 32, durationMs: ms, maxOps: server.orgIds.length - o, latencies: c32.latencies }, insert));
      },
      figures: () => {
        const result = c32.result();
        return { unloaded_p50_ms: percentile(lat, 50), unloaded_p99_ms: percentile(lat, 99), c32: result, cpu: c32.cpu.perRequest(result.ops) };
      },
      stop: () => server.stop(),
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}
