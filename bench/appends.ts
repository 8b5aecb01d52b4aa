// Phase (a): event appends per second at concurrency 1 and 16, next to raw single-row INSERT commits.
import crypto from 'node:crypto';
import type { Db } from '../src/db.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { pooledQuery } from '../src/pooled-query.ts';
import { closedLoop, type LoadResult } from './support.ts';

/** Figures of phase (a). */
export interface AppendFigures {
  append_c1: LoadResult;
  append_c16: LoadResult;
  raw_insert_c1: LoadResult;
  raw_insert_c16: LoadResult;
  /** The same INSERT sent the way the append is (prepared, straight to a pool connection), at 16. */
  raw_prepared_c16: LoadResult;
  /** appends at 16 / raw inserts at 16. */
  ratio_c16: number;
  /** appends at 16 / prepared raw inserts at 16 (the stricter reference). */
  ratio_prepared_c16: number;
  /** Acknowledged appends not stored exactly once, plus revisions missing from a bench stream (0: none lost, none doubled, no gap). */
  unaccounted: number;
}

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'bench' }, request_id: null, correlation_id: null, causation_id: null };
const data = { name: 'Bench Ltd', email: 'bench@example.com', currency: 'GBP', payment_terms_days: 30 };

/** `concurrency` workers, each appending one event at a time to its own new stream with the exact expected revision (what a command does). */
export function appendLoad(store: PostgresEventStore, concurrency: number, durationMs: number, latencies?: number[]): Promise<LoadResult> {
  const streams = Array.from({ length: concurrency }, () => ({ id: `benchappend-${crypto.randomUUID()}`, revision: -1n }));
  return closedLoop({ concurrency, durationMs, ...(latencies ? { latencies } : {}) }, async (_i, w) => {
    const s = streams[w]!;
    const res = await store.appendToStream(s.id, [{ id: crypto.randomUUID(), type: 'BenchAppended', data, metadata }], { expectedRevision: s.revision < 0n ? 'no_stream' : s.revision });
    s.revision = res.nextExpectedRevision;
  });
}

/**
 * Each append writes one event to its worker's own stream with the exact expected revision (what a
 * command does). The raw reference inserts the same row shape into a copy of es_events, autocommit,
 * through the same pool.
 */
export async function benchAppends(db: Db, durationMs: number): Promise<AppendFigures> {
  const store = new PostgresEventStore(db);
  await db.knex.raw('create table bench_raw_events (like es_events including defaults including indexes)');
  const append = (concurrency: number) => appendLoad(store, concurrency, durationMs);
  const raw = (concurrency: number) =>
    closedLoop({ concurrency, durationMs }, async (i) => {
      await db.knex.raw(
        'insert into bench_raw_events (stream_id, revision, event_id, type, data, metadata, created_at) values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)',
        [`benchraw-${concurrency}-${i}`, 0, crypto.randomUUID(), 'BenchAppended', JSON.stringify(data), JSON.stringify(metadata), new Date()],
      );
    });
  const insert = { name: 'bench_raw_insert', text: 'insert into bench_raw_events (stream_id, revision, event_id, type, data, metadata, created_at) values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)' };
  const rawPrepared = (concurrency: number) =>
    closedLoop({ concurrency, durationMs }, async (i) => {
      await pooledQuery(db, insert, [`benchprep-${concurrency}-${i}`, 0, crypto.randomUUID(), 'BenchAppended', JSON.stringify(data), JSON.stringify(metadata), new Date()]);
    });
  // Alternate so that neither side benefits from a warmer cache.
  const raw_insert_c1 = await raw(1);
  const append_c1 = await append(1);
  const raw_insert_c16 = await raw(16);
  const append_c16 = await append(16);
  const raw_prepared_c16 = await rawPrepared(16);
  await store.close();
  // Every acknowledged append stored once, each stream's revisions without a gap.
  const stored = await db.knex.raw(`select coalesce(sum(n), 0)::int as n, coalesce(sum(last + 1), 0)::int as span
    from (select count(*) as n, max(revision) as last from es_events where stream_id like 'benchappend-%' group by stream_id) s`);
  const { n, span } = stored.rows[0] as { n: number; span: number };
  const unaccounted = Math.abs(append_c1.ops + append_c16.ops - n) + Math.abs(span - n);
  return {
    append_c1, append_c16, raw_insert_c1, raw_insert_c16, raw_prepared_c16, unaccounted,
    ratio_c16: append_c16.opsPerSec / raw_insert_c16.opsPerSec, ratio_prepared_c16: append_c16.opsPerSec / raw_prepared_c16.opsPerSec,
  };
}
