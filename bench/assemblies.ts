// Phases (f) and (g) of issue 14: assemblies.v4.search of a ready vehicle (unloaded, then with the
// subscribers connected), and N concurrent assemblies.subscribe.stream clients: append-to-client latency
// and the server's memory per client. The real service in a child process, lookups by its worker.
import path from 'node:path';
import { fork } from 'node:child_process';
import { type BenchServer, startBenchServer } from './http.ts';
import { type BenchBackend, abba, maxOf, percentile, sleep } from './support.ts';
import { type CpuFigures, CpuTotals } from './cpu.ts';
import type { SubscribersCommand, SubscribersReply } from './subscribers.ts';

/** Figures of the assemblies phases. */
export interface AssemblyFigures {
  /** The service's cheapest authenticated call (auth.sessions.get), serial, same run: what the machine gives any request. */
  reference_unloaded: { p50Ms: number; p99Ms: number; n: number };
  search_unloaded: { p50Ms: number; p99Ms: number; n: number };
  search_with_subscribers: { p50Ms: number; p99Ms: number; n: number };
  /**
   * The same searches by another organization's user, in slices taken in turn with search_with_subscribers (ABBA):
   * the clients stay connected but no one receives these searches (what the delivery itself costs, same seconds).
   */
  search_undelivered: { p50Ms: number; p99Ms: number; n: number };
  /** CPU per search: unloaded; delivered to every client; not delivered. `subscribers_ms`: the clients' process. */
  cpu: { unloaded: CpuFigures; delivered: CpuFigures & { subscribers_ms: number }; undelivered: CpuFigures & { subscribers_ms: number } };
  clients: number;
  connected: number;
  events_per_client: number;
  delivered: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_max_ms: number;
  rss_per_client_bytes: number;
  heap_per_client_bytes: number;
}

const golf = { vehicle: { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } }, hca_ids: ['01.01'] };

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
}

/** `n` calls of `op` one after another (default: the ready vehicle's search by the staff token); latencies added to `ms`. */
async function timed(server: BenchServer, n: number, { op = 'assemblies.v4.search', body = golf as unknown, token = server.staffToken, ms = [] as number[] } = {}): Promise<{ p50Ms: number; p99Ms: number; n: number }> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await server.post(op, body, token);
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${res.body.slice(0, 200)}`);
    ms.push(performance.now() - t0);
  }
  return { p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), n: ms.length };
}

/** Searches by `token`, serial, timed and with their CPU (the service's, and the clients' process's) added to `cpu`. */
function searchSlices(server: BenchServer, token: string, subscribersPid: number) {
  const ms: number[] = [];
  const cpu = new CpuTotals();
  const clients = new CpuTotals();
  return {
    run: (n: number) => clients.during(subscribersPid, () => cpu.during(server.pid, () => timed(server, n, { token, ms }))),
    result: () => ({ p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), n: ms.length }),
    cpu: () => ({ ...cpu.perRequest(ms.length), subscribers_ms: clients.perRequest(ms.length).service_ms }),
  };
}

// The subscribers' process: commands in, one reply per command.
function subscribersProcess(): { pid: number; ask(m: SubscribersCommand): Promise<SubscribersReply>; stop(): void } {
  const child = fork(path.join(import.meta.dirname, 'subscribers.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    pid: child.pid!,
    ask: (m) =>
      new Promise((resolve, reject) => {
        child.once('message', (r) => ('error' in (r as SubscribersReply) ? reject(new Error((r as { error: string }).error)) : resolve(r as SubscribersReply)));
        child.send(m);
      }),
    stop: () => child.disconnect(),
  };
}

/**
 * Runs both phases on `backend` with `clients` subscribers and `events` searches while they listen. Then the search
 * with the clients connected, in ABBA slices: delivered to all of them, and by another organization (delivered to none).
 */
export async function benchAssemblies(backend: BenchBackend, clients: number, events: number): Promise<AssemblyFigures> {
  // Every subscriber uses the one staff token: the stream caps (issue 25) are raised to let them all in.
  const caps = { STREAMS_PER_TOKEN: String(clients + 10), STREAMS_PER_ORGANIZATION: String(clients + 10) };
  const server = await startBenchServer(backend, 1, { BENCH_SUPPLIER: '1', BENCH_WORKERS: '1', VEHICLE_DATA_DECODE_DELAY_MS: '0', VEHICLE_DATA_TREE_DELAY_MS: '0', VEHICLE_DATA_ENRICH_DELAY_MS: '0', LOG_LEVEL: 'warn', ...caps });
  const subscribers = subscribersProcess();
  try {
    // Ready the vehicle: the first search queues its lookup, the worker (every second) answers it in two steps.
    for (let ready = false, tries = 0; !ready; tries++) {
      if (tries > 100) throw new Error('the vehicle never became ready');
      const res = await server.post('assemblies.v4.search', golf, server.staffToken);
      // Ready means finished: the tree and its enrichments (what a repeat search of a known vehicle finds).
      ready = res.status === 200 && JSON.parse(res.body).enriched === true;
      if (!ready) await sleep(200);
    }
    await timed(server, 50); // warm-up
    const session = { op: 'auth.sessions.get', body: {} };
    await timed(server, 50, session);
    const reference_unloaded = await timed(server, 500, session);
    const unloadedCpu = new CpuTotals();
    const search_unloaded = await unloadedCpu.during(server.pid, () => timed(server, 500));
    const otherToken = server.supplierToken!;
    await timed(server, 20, { token: otherToken }); // warm-up of the other organization's session
    const rss0 = await metric(server.url, 'process_resident_memory_bytes');
    const heap0 = await metric(server.url, 'nodejs_heap_size_used_bytes');
    const { connected } = (await subscribers.ask({ connect: { url: server.url, token: server.staffToken, clients } })) as { connected: number };
    await sleep(2_000);
    const rss1 = await metric(server.url, 'process_resident_memory_bytes');
    const heap1 = await metric(server.url, 'nodejs_heap_size_used_bytes');
    // One search at a time, a little apart: each appends one event that every client must receive.
    for (let i = 0; i < events; i++) {
      await server.post('assemblies.v4.search', golf, server.staffToken);
      await sleep(20);
    }
    const deadline = Date.now() + 30_000;
    let seen: number[] = [];
    let delivered = 0;
    for (;;) {
      ({ latencies: seen, delivered } = (await subscribers.ask({ report: true })) as { latencies: number[]; delivered: number });
      if (delivered >= clients * events || Date.now() > deadline) break;
      await sleep(200);
    }
    const toAll = searchSlices(server, server.staffToken, subscribers.pid);
    const toNone = searchSlices(server, otherToken, subscribers.pid);
    for (const s of abba([toAll, toNone])) await s.run(50);
    return {
      reference_unloaded,
      search_unloaded,
      search_with_subscribers: toAll.result(),
      search_undelivered: toNone.result(),
      cpu: { unloaded: unloadedCpu.perRequest(search_unloaded.n), delivered: toAll.cpu(), undelivered: toNone.cpu() },
      clients,
      connected,
      events_per_client: events,
      delivered,
      latency_p50_ms: percentile(seen, 50),
      latency_p99_ms: percentile(seen, 99),
      latency_max_ms: maxOf(seen),
      rss_per_client_bytes: (rss1 - rss0) / clients,
      heap_per_client_bytes: (heap1 - heap0) / clients,
    };
  } finally {
    subscribers.stop();
    await server.stop();
  }
}
