// Phase (f): billing.configuration.resolve.get over HTTP, one request at a time, against a subscription with
// 10,000 relationships and 1,000 revisions, beside the same requests against a nearly empty subscription
// (the unloaded reference of the same run, same server).
import type { BenchBackend } from './support.ts';
import { percentile } from './support.ts';
import { expectOk, startBenchServer } from './http.ts';
import { Rng } from '../test/support/rng.ts';

/** Figures of phase (f). */
export interface ResolveFigures {
  relationships: number;
  revisions: number;
  seed_seconds: number;
  requests: number;
  loaded: { p50Ms: number; p99Ms: number; maxMs: number };
  unloaded: { p50Ms: number; p99Ms: number; maxMs: number };
}

const DAY = 86_400_000;
const START = Date.parse('2024-01-01T00:00:00.000Z');

function stats(lat: number[]) {
  return { p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), maxMs: Math.max(...lat) };
}

/** Seeds the configuration in the server process, then times `requests` resolves on each subscription (random buyer, instant and as_of). */
export async function benchResolve(backend: BenchBackend, relationships: number, revisions: number, requests: number): Promise<ResolveFigures> {
  const t0 = performance.now();
  const server = await startBenchServer(backend, relationships + 2, { BENCH_CONFIGURATION: `${relationships},${revisions}` });
  const seedSeconds = (performance.now() - t0) / 1000;
  try {
    const cfg = server.benchConfiguration;
    if (!cfg) throw new Error('the bench server seeded no configuration');
    const rng = new Rng(12);
    const run = async (sub: { subscriptionId: string; seller: string; buyers: string[] }, n: number) => {
      const lat: number[] = [];
      for (let i = 0; i < n; i++) {
        const buyer = sub.buyers[rng.int(0, sub.buyers.length - 1)] ?? '';
        const occurred_at = new Date(START + rng.int(0, 700) * DAY + rng.int(0, DAY - 1)).toISOString();
        // Half ask as known now, half as known at an earlier instant of the recording (minutes apart in the seed).
        const as_of = i % 2 ? new Date(START + rng.int(0, revisions) * 60_000).toISOString() : undefined;
        const body = { subscription_id: sub.subscriptionId, event: { seller: sub.seller, buyer, occurred_at }, ...(as_of ? { as_of } : {}) };
        const s = performance.now();
        const reply = await server.post('billing.configuration.resolve.get', body, server.staffToken);
        lat.push(performance.now() - s);
        expectOk(reply, 'billing.configuration.resolve.get');
      }
      return lat;
    };
    await run(cfg.small, 50);
    await run(cfg.large, 50); // warm-up
    // Interleaved blocks, so load from elsewhere on the machine hits both alike.
    const loaded: number[] = [];
    const unloaded: number[] = [];
    for (let block = 0; block < 10; block++) {
      unloaded.push(...(await run(cfg.small, requests / 10)));
      loaded.push(...(await run(cfg.large, requests / 10)));
    }
    return { relationships: cfg.relationships, revisions: cfg.revisions, seed_seconds: seedSeconds, requests, loaded: stats(loaded), unloaded: stats(unloaded) };
  } finally {
    await server.stop();
  }
}
