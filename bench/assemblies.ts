// Phases (f) and (g) of issue 14: assemblies.v4.search of a ready vehicle (unloaded, then with the
// subscribers connected), and N concurrent assemblies.subscribe.stream clients: append-to-client latency
// and the server's memory per client. The real service in a child process, lookups by its worker.
import http from 'node:http';
import { type BenchServer, startBenchServer } from './http.ts';
import { type BenchBackend, percentile, sleep } from './support.ts';

/** Figures of the assemblies phases. */
export interface AssemblyFigures {
  /** The service's cheapest authenticated call (auth.sessions.get), serial, same run: what the machine gives any request. */
  reference_unloaded: { p50Ms: number; p99Ms: number; n: number };
  search_unloaded: { p50Ms: number; p99Ms: number; n: number };
  search_with_subscribers: { p50Ms: number; p99Ms: number; n: number };
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

async function timed(server: BenchServer, n: number, op = 'assemblies.v4.search', body: unknown = golf): Promise<{ p50Ms: number; p99Ms: number; n: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await server.post(op, body, server.staffToken);
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${res.body.slice(0, 200)}`);
    ms.push(performance.now() - t0);
  }
  return { p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), n };
}

/** One SSE client: records, per event, the time from the search's `completed_at` to its arrival. */
function subscriber(url: URL, token: string, latencies: number[], counts: number[], i: number): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: '/api/v1/assemblies.subscribe.stream', method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscribe: ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const at = Date.parse((JSON.parse(data.slice(6)) as { completed_at: string }).completed_at);
          latencies.push(Date.now() - at);
          counts[i] = (counts[i] ?? 0) + 1;
        }
      });
      res.on('error', () => {});
      resolve(req);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Runs both phases on `backend` with `clients` subscribers and `events` searches while they listen. */
export async function benchAssemblies(backend: BenchBackend, clients: number, events: number): Promise<AssemblyFigures> {
  const server = await startBenchServer(backend, 1, { BENCH_WORKERS: '1', VEHICLE_DATA_DECODE_DELAY_MS: '0', VEHICLE_DATA_TREE_DELAY_MS: '0', VEHICLE_DATA_ENRICH_DELAY_MS: '0', LOG_LEVEL: 'warn' });
  const requests: http.ClientRequest[] = [];
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
    await timed(server, 50, 'auth.sessions.get', {});
    const reference_unloaded = await timed(server, 500, 'auth.sessions.get', {});
    const search_unloaded = await timed(server, 500);
    const url = new URL(server.url);
    const rss0 = await metric(server.url, 'process_resident_memory_bytes');
    const heap0 = await metric(server.url, 'nodejs_heap_size_used_bytes');
    const latencies: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < clients; i += 50) requests.push(...(await Promise.all(Array.from({ length: Math.min(50, clients - i) }, (_, k) => subscriber(url, server.staffToken, latencies, counts, i + k)))));
    await sleep(2_000);
    const rss1 = await metric(server.url, 'process_resident_memory_bytes');
    const heap1 = await metric(server.url, 'nodejs_heap_size_used_bytes');
    // One search at a time, a little apart: each appends one event that every client must receive.
    for (let i = 0; i < events; i++) {
      await server.post('assemblies.v4.search', golf, server.staffToken);
      await sleep(20);
    }
    const deadline = Date.now() + 30_000;
    while (latencies.length < clients * events && Date.now() < deadline) await sleep(100);
    const delivered = counts.reduce((a, b) => a + (b ?? 0), 0);
    const seen = [...latencies];
    const search_with_subscribers = await timed(server, 200);
    return {
      reference_unloaded,
      search_unloaded,
      search_with_subscribers,
      clients,
      connected: requests.length,
      events_per_client: events,
      delivered,
      latency_p50_ms: percentile(seen, 50),
      latency_p99_ms: percentile(seen, 99),
      latency_max_ms: seen.length ? Math.max(...seen) : Number.NaN,
      rss_per_client_bytes: (rss1 - rss0) / clients,
      heap_per_client_bytes: (heap1 - heap0) / clients,
    };
  } finally {
    for (const r of requests) r.destroy();
    await server.stop();
  }
}
