// Shared pieces of the benchmark: a fresh database per backend, a closed-loop load driver, percentiles.
import crypto from 'node:crypto';
import os from 'node:os';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { type Db, openPglite, openPostgres } from '../src/db.ts';
import { migrateLatest } from '../migrations/index.ts';
import { CpuTotals } from './cpu.ts';

/** Where a phase runs. */
export type BenchBackend = 'pglite' | 'postgres';

/** Pool size used for every Postgres measurement (appends, raw inserts and the server alike). */
export const POOL_SIZE = 20;

/** The Postgres connections of a reference server (no listener): its whole budget BENCH_POOL_MAX when set, else POOL_SIZE. */
export function benchPoolMax(): number {
  return Number(process.env.BENCH_POOL_MAX ?? String(POOL_SIZE));
}

/** A fresh, migrated database; on Postgres a new database on the BENCH_DATABASE_URL server, dropped on close. */
export async function openBenchDb(backend: BenchBackend): Promise<Db> {
  if (backend === 'pglite') {
    const db = await openPglite();
    await migrateLatest(db.knex);
    return db;
  }
  const { url, drop } = await createPostgresDatabase();
  const db = openPostgres(url, POOL_SIZE);
  await migrateLatest(db.knex);
  return { ...db, close: async () => { await db.close(); await drop(); } };
}

/** Creates an empty database on the bench server; `drop` removes it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.BENCH_DATABASE_URL!;
  const name = `core_bench_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

/** What a timed run measured. */
export interface LoadResult {
  ops: number;
  errors: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Slowest call. */
  maxMs?: number;
  firstError?: string;
}

/**
 * Runs `fn` from `concurrency` workers back to back until `durationMs` passes or `maxOps` calls started.
 * `fn(i, worker)` gets a unique sequence number and the worker's index. Latency is measured per call (and pushed to
 * `latencies` when given).
 */
export async function closedLoop(opts: { concurrency: number; durationMs: number; maxOps?: number; latencies?: number[] }, fn: (i: number, worker: number) => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = opts.latencies ?? [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const max = opts.maxOps ?? Number.POSITIVE_INFINITY;
  const worker = async (_: unknown, w: number) => {
    while (performance.now() < deadline && next < max) {
      const i = next++;
      const t0 = performance.now();
      try {
        await fn(i, w);
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return loadResult(latencies, seconds, errors, firstError);
}

/** A LoadResult of these latencies over `seconds`. */
export function loadResult(latencies: number[], seconds: number, errors: number, firstError?: string): LoadResult {
  return { ops: latencies.length, errors, seconds, opsPerSec: latencies.length / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: maxOf(latencies), firstError };
}

/** A started load that runs in slices at concurrency 32 and sums them (see `interleave`). */
export interface SlicedLoad {
  slice(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs each load for `msEach` in all, in `rounds` slices taken in turn, ABBA order (A B, B A, A B, ...), so that
 * a machine that speeds up or slows down during the phase (these 2-core VMs do, by 2x within minutes) weighs
 * on every load alike: a reference and the load compared with it are measured in the same seconds.
 */
export async function interleave(loads: SlicedLoad[], msEach: number, rounds = 4): Promise<void> {
  for (const load of abba(loads, rounds)) await load.slice(msEach / rounds);
}

/** `items` taken in turn `rounds` times, ABBA order (A B, B A, A B, ...): the order of interleaved slices. */
export function* abba<T>(items: readonly T[], rounds = 4): Generator<T> {
  for (let r = 0; r < rounds; r++) yield* r % 2 === 0 ? items : [...items].reverse();
}

/**
 * A load's slices so far as one LoadResult: `latencies` is what closedLoop records into, `add` each slice's result
 * (`measure` adds a slice run against a server process, with the CPU it used: `cpu.perRequest`).
 */
export class SliceTotals {
  readonly latencies: number[] = [];
  readonly cpu = new CpuTotals();
  private seconds = 0;
  private errors = 0;
  private firstError?: string;

  add(r: LoadResult): void {
    this.seconds += r.seconds;
    this.errors += r.errors;
    this.firstError ??= r.firstError;
  }

  /** Runs a slice against the server process `pid` (and its descendants), adds it and the CPU it used. */
  async measure(pid: number, run: () => Promise<LoadResult>): Promise<void> {
    this.add(await this.cpu.during(pid, run));
  }

  result(): LoadResult {
    return loadResult(this.latencies, this.seconds, this.errors, this.firstError);
  }
}

/** The p-th percentile (nearest rank) of `values`, in the same unit. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The machine the figures were taken on. */
export function machineFacts(): Record<string, string | number> {
  const cpus = os.cpus();
  return { cores: cpus.length, cpu: cpus[0]?.model ?? 'unknown', memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}`, load_avg_1m: os.loadavg()[0]!.toFixed(1) };
}

/** Postgres server version, for the facts line. */
export async function serverVersion(knex: Knex): Promise<string> {
  const res = await knex.raw('show server_version');
  return String(res.rows[0].server_version);
}

/** Sleeps without holding anything. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The share of a load's rate (`opsPerSec`) it could keep if each operation cost `us` more and nothing else. */
export function ceilingWith(opsPerSec: number, us: number): number {
  const each = 1e6 / opsPerSec;
  return each / (each + us);
}

/** The largest value (NaN for none), without spreading: Math.max(...values) overflows the stack past ~120k values. */
export function maxOf(values: readonly number[]): number {
  return values.length ? values.reduce((m, v) => (v > m ? v : m), -Infinity) : Number.NaN;
}
