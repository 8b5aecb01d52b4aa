// Phase (a): event appends per second at concurrency 1 and 16, side by side with raw single-row INSERT commits, and
// the same appends through the crypto-shredding decorator (issue 32) next to the plain store.
import crypto from 'node:crypto';
import type { Db } from '../src/db.ts';
import type { AppendOptions, EventData, EventStore } from '../src/eventstore/port.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { type PlainValue, plaintextValues, sealValues, shreddingStore } from '../src/eventstore/shredding.ts';
import { seal } from '../src/eventstore/envelope.ts';
import { TableKeyStore } from '../src/eventstore/key-table.ts';
import { PERSONAL_FIELDS } from '../src/domain/personal-events.ts';
import { pooledQuery } from '../src/pooled-query.ts';
import { type LoadResult, SliceTotals, abba, ceilingWith, closedLoop } from './support.ts';

/** Figures of phase (a). */
export interface AppendFigures {
  append_c1: LoadResult;
  append_c16: LoadResult;
  raw_insert_c1: LoadResult;
  raw_insert_c16: LoadResult;
  /** The reference (issue 31): the same row, a prepared INSERT straight on a pool connection, into a table with a primary key only. */
  raw_prepared_c1: LoadResult;
  raw_prepared_c16: LoadResult;
  /** appends at 16 / raw inserts (knex) at 16. */
  ratio_c16: number;
  /** appends / prepared raw inserts into the primary-key-only table, at 1 and at 16. */
  ratio_prepared_c1: number;
  ratio_prepared_c16: number;
  /** The same personal event (a customer's name and email changed) appended through the crypto-shredding decorator and through the plain store. */
  personal: {
    plain_c1: LoadResult; sealed_c1: LoadResult; plain_c16: LoadResult; sealed_c16: LoadResult; ratio_c1: number; ratio_c16: number;
    /**
     * The cipher alone (issue 32's AES-256-GCM through node:crypto): us to seal the event's two values, timed in this
     * run, and the best share of the plain store an append could reach with that added to the plain append's time
     * and nothing else (at c=16 the appends keep this process's thread busy, so time per append is its CPU).
     */
    seal_us: number; ceiling_c1: number; ceiling_c16: number;
    /** The plain store appending the event with its values already sealed (sealed once, beforehand): what the larger rows cost, without the decorator's work. */
    sized_c1: LoadResult; sized_c16: LoadResult;
    /** The plain store appending the plain event with two live keys named (AppendOptions.liveKeys): what the check that none was erased costs. */
    checked_c1: LoadResult; checked_c16: LoadResult;
  };
  /**
   * The event without personal fields (most of a billing log: invoices, payments, usage) appended through the
   * decorator, as the service always appends, next to the plain store in the same slices: at c=1 and c=16.
   */
  decorated: { c1: LoadResult; c16: LoadResult; ratio_c1: number; ratio_c16: number };
  /** Acknowledged appends not stored exactly once, plus revisions missing from a bench stream (0: none lost, none doubled, no gap). */
  unaccounted: number;
}

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'bench' }, request_id: null, correlation_id: null, causation_id: null };
const data = { name: 'Bench Ltd', email: 'bench@example.com', currency: 'GBP', payment_terms_days: 30 };

/** One event per call (a fresh id each time). */
type MakeEvent = () => EventData;
const benchEvent: MakeEvent = () => ({ id: crypto.randomUUID(), type: 'BenchAppended', data, metadata });
/** A CustomerUpdated whose name and email are personal (sealed with the customer's two keys by the decorator). */
const personalEvent: MakeEvent = () => ({ id: crypto.randomUUID(), type: 'CustomerUpdated', data: { changes: { name: 'Bench Ltd', email: 'bench@example.com' }, updated_at: '2026-01-02T00:00:00.000Z' }, metadata });

/** A personal event and its two personal values (what the decorator seals), on a bench stream. */
function personalValues(): { e: EventData; values: PlainValue[] } {
  const e = personalEvent();
  const values = plaintextValues(PERSONAL_FIELDS, e.type, e.data, `benchappend-${crypto.randomUUID()}`);
  if (values.length !== 2) throw new Error(`the personal event has ${values.length} personal values, expected 2`);
  return { e, values };
}

/** The personal event as the decorator stores it: its values sealed (once, here), for the plain store to append as they are. */
function sealedSizedEvent(): MakeEvent {
  const { e, values } = personalValues();
  const data = sealValues(e.data, values, () => crypto.randomBytes(32));
  return () => ({ ...personalEvent(), data });
}

/** us to seal the personal event's values, each with its subject's key (the cipher and the envelope, nothing else). */
function sealMicros(n = 20_000): number {
  const { values } = personalValues();
  const keys = values.map(() => crypto.randomBytes(32));
  for (let i = 0; i < 1_000; i++) values.forEach((v, j) => seal(v.subject, keys[j]!, v.text)); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) values.forEach((v, j) => seal(v.subject, keys[j]!, v.text));
  return ((performance.now() - t0) * 1000) / n;
}

/** Workers appending one event at a time, each to its own stream with the exact expected revision (what a command does); streams live across slices. */
function appender(store: EventStore, concurrency: number, make: MakeEvent = benchEvent, more: Partial<AppendOptions> = {}) {
  const streams = Array.from({ length: concurrency }, () => ({ id: `benchappend-${crypto.randomUUID()}`, revision: -1n }));
  return async (_i: number, w: number) => {
    const s = streams[w]!;
    const res = await store.appendToStream(s.id, [make()], { ...more, expectedRevision: s.revision < 0n ? 'no_stream' : s.revision });
    s.revision = res.nextExpectedRevision;
  };
}

/** `concurrency` workers, each appending one event at a time to its own new stream with the exact expected revision (what a command does). */
export function appendLoad(store: EventStore, concurrency: number, durationMs: number, latencies?: number[]): Promise<LoadResult> {
  return closedLoop({ concurrency, durationMs, ...(latencies ? { latencies } : {}) }, appender(store, concurrency));
}

/**
 * Runs the loads side by side: `durationMs` each in all, in 4 slices taken in turn in ABBA order, so a machine that
 * speeds up or slows down weighs on every load alike (see support.ts `interleave`).
 */
async function sideBySide<K extends string>(concurrency: number, durationMs: number, loads: Record<K, (i: number, w: number) => Promise<void>>): Promise<Record<K, LoadResult>> {
  const names = Object.keys(loads) as K[];
  const totals = new Map(names.map((n) => [n, new SliceTotals()]));
  const rounds = 4;
  for (const n of abba(names, rounds)) {
    const t = totals.get(n)!;
    t.add(await closedLoop({ concurrency, durationMs: durationMs / rounds, latencies: t.latencies }, loads[n]));
  }
  return Object.fromEntries(names.map((n) => [n, totals.get(n)!.result()])) as Record<K, LoadResult>;
}

/**
 * Each append writes one event to its worker's own stream with the exact expected revision (what a command does).
 * The references insert the same row shape, autocommit, through the same pool: into a copy of es_events through
 * `knex.raw` (issue 9's reference), and into a table with only a primary key as a prepared statement straight on
 * a pool connection (issue 31's, the stricter). Each concurrency's loads run side by side in the same seconds.
 */
export async function benchAppends(db: Db, durationMs: number): Promise<AppendFigures> {
  const plain = new PostgresEventStore(db);
  const sealing = shreddingStore(plain, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
  await db.knex.raw('create table bench_raw_events (like es_events including defaults including indexes)');
  await db.knex.raw(`create table bench_raw_pk (stream_id text not null, revision bigint not null, event_id uuid not null, type text not null,
    data jsonb not null, metadata jsonb not null, created_at timestamptz not null, primary key (stream_id, revision))`);
  const row = (stream: string, revision: number) => [stream, revision, crypto.randomUUID(), 'BenchAppended', JSON.stringify(data), JSON.stringify(metadata), new Date()];
  const raw = () => {
    const prefix = `benchraw-${crypto.randomUUID()}`;
    // A counter of its own: the load's operation index starts again in every slice, which made duplicate keys.
    let n = 0;
    return async () => {
      await db.knex.raw('insert into bench_raw_events (stream_id, revision, event_id, type, data, metadata, created_at) values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)', row(`${prefix}-${n++}`, 0));
    };
  };
  const insert = { name: 'bench_raw_insert', text: 'insert into bench_raw_pk (stream_id, revision, event_id, type, data, metadata, created_at) values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)' };
  // Each worker its own stream, revisions 0, 1, 2...: the same primary-key pattern as the appends.
  const rawPrepared = (concurrency: number) => {
    const streams = Array.from({ length: concurrency }, () => ({ id: `benchprep-${crypto.randomUUID()}`, revision: 0 }));
    return async (_i: number, w: number) => {
      const s = streams[w]!;
      await pooledQuery(db, insert, row(s.id, s.revision++));
    };
  };
  const c1 = await sideBySide(1, durationMs, { raw_prepared: rawPrepared(1), append: appender(plain, 1), raw_insert: raw(), decorated: appender(sealing, 1) });
  const c16 = await sideBySide(16, durationMs, { raw_prepared: rawPrepared(16), append: appender(plain, 16), raw_insert: raw(), decorated: appender(sealing, 16) });
  const sized = sealedSizedEvent();
  const live = { liveKeys: [`customer:${crypto.randomUUID()}`, `customer:${crypto.randomUUID()}:retained`] };
  const personalLoads = (c: number) => ({ plain: appender(plain, c, personalEvent), sealed: appender(sealing, c, personalEvent), sized: appender(plain, c, sized), checked: appender(plain, c, personalEvent, live) });
  const p1 = await sideBySide(1, durationMs, personalLoads(1));
  const p16 = await sideBySide(16, durationMs, personalLoads(16));
  const seal_us = sealMicros();
  await plain.close();
  // Every acknowledged append stored once, each stream's revisions without a gap.
  const stored = await db.knex.raw(`select coalesce(sum(n), 0)::int as n, coalesce(sum(last + 1), 0)::int as span
    from (select count(*) as n, max(revision) as last from es_events where stream_id like 'benchappend-%' group by stream_id) s`);
  const { n, span } = stored.rows[0] as { n: number; span: number };
  const acknowledged = c1.append.ops + c16.append.ops + c1.decorated.ops + c16.decorated.ops + [p1, p16].reduce((n, p) => n + p.plain.ops + p.sealed.ops + p.sized.ops + p.checked.ops, 0);
  const unaccounted = Math.abs(acknowledged - n) + Math.abs(span - n);
  return {
    append_c1: c1.append, append_c16: c16.append, raw_insert_c1: c1.raw_insert, raw_insert_c16: c16.raw_insert,
    raw_prepared_c1: c1.raw_prepared, raw_prepared_c16: c16.raw_prepared, unaccounted,
    ratio_c16: c16.append.opsPerSec / c16.raw_insert.opsPerSec,
    ratio_prepared_c1: c1.append.opsPerSec / c1.raw_prepared.opsPerSec,
    ratio_prepared_c16: c16.append.opsPerSec / c16.raw_prepared.opsPerSec,
    personal: {
      plain_c1: p1.plain, sealed_c1: p1.sealed, plain_c16: p16.plain, sealed_c16: p16.sealed,
      ratio_c1: p1.sealed.opsPerSec / p1.plain.opsPerSec, ratio_c16: p16.sealed.opsPerSec / p16.plain.opsPerSec,
      seal_us, ceiling_c1: ceilingWith(p1.plain.opsPerSec, seal_us), ceiling_c16: ceilingWith(p16.plain.opsPerSec, seal_us),
      sized_c1: p1.sized, sized_c16: p16.sized, checked_c1: p1.checked, checked_c16: p16.checked,
    },
    decorated: { c1: c1.decorated, c16: c16.decorated, ratio_c1: c1.decorated.opsPerSec / c1.append.opsPerSec, ratio_c16: c16.decorated.opsPerSec / c16.append.opsPerSec },
  };
}
