// The whole test suite's events, collected for issue 32's check that the log rewrite runs on them
// (test/suite-log/whole-suite.ts). When CORE_SUITE_LOG_DIR is set (`npm test` sets it: test/suite-log/run.ts),
// every test database, when closed, first writes its es_events rows as stored, its data subject keys and its projection
// skips to one file under <dir>/<backend>/. Unset (a single-file run), nothing is collected and nothing is slowed.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db.ts';
import type { Backend } from './db.ts';

/** One collected event: the es_events row as stored (data and metadata as their stored JSON text). */
export interface CollectedEvent {
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

/** One collected key row (key as hex; null once erased: a tombstone). */
export interface CollectedKey {
  subject: string;
  key: string | null;
  created_at: string;
  erased_at: string | null;
}

/** One projection skip an operator step recorded in the suite's database (a row of projection_skips, as text). */
export interface CollectedSkip {
  projection: string;
  event_id: string;
  stream_id: string;
  type: string;
  reason: string;
  actor: string;
  skipped_at: string;
}

/** One test database's part of the collection. */
export interface CollectedSuite {
  /** The test file that opened the database (relative to the repository). */
  file: string;
  /** Its order among the file's databases (the collection is read by file, then this: the same order whatever ran in parallel). */
  seq: number;
  events: CollectedEvent[];
  keys: CollectedKey[];
  /** Events the suite wrote on purpose that do not read or apply, left out of a projection by an operator step. */
  skips: CollectedSkip[];
}

// Per test file (mocha's workers run each file whole in one process), so the collection's order does not depend on
// which files ran beside each other.
const seqOf = new Map<string, number>();

/**
 * The test file among the callers: the first `.test.ts` frame, else the first under test/ outside test/support/ (a
 * shared helper such as test/projections/spec.ts). The stack is taken deep: mocha's and tsx's frames come first.
 */
function callerFile(): string {
  const root = path.resolve(import.meta.dirname, '../..');
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const files = stack
    .split('\n')
    .map((line) => /(?:\(|at )(?:file:\/\/)?(\/[^():]+\.ts):\d+/.exec(line)?.[1])
    .filter((f): f is string => f !== undefined && f.startsWith(path.join(root, 'test')) && !f.startsWith(path.join(root, 'test', 'support')));
  const file = files.find((f) => f.endsWith('.test.ts')) ?? files[0];
  return file ? path.relative(root, file) : 'unknown';
}

/** `db`, whose close first adds its events to the collection when one is being made. */
export function collectedOnClose(db: Db, backend: Backend): Db {
  const dir = process.env.CORE_SUITE_LOG_DIR;
  if (!dir) return db;
  const file = callerFile();
  return {
    ...db,
    async close() {
      await collect(db, path.join(dir, backend), file).catch((err: unknown) => {
        // A suite that broke its own database (dropped tables, ended connections) is counted, never failed for it.
        fs.mkdirSync(path.join(dir, backend), { recursive: true });
        fs.appendFileSync(path.join(dir, backend, 'uncollected.txt'), `${file}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
      });
      await db.close();
    },
  };
}

async function collect(db: Db, dir: string, file: string): Promise<void> {
  const events = (await db.knex.raw(`select stream_id, revision::text as revision, event_id::text as event_id, type, data::text as data, metadata::text as metadata, created_at::text as created_at from es_events order by transaction_id, global_position`)).rows as CollectedEvent[];
  if (events.length === 0) return;
  const keys = (await db.knex.raw(`select subject, encode(key, 'hex') as key, created_at::text as created_at, erased_at::text as erased_at from data_subject_keys order by subject`)).rows as CollectedKey[];
  const skips = (await db.knex.raw(`select projection, event_id::text as event_id, stream_id, type, reason, actor, skipped_at::text as skipped_at from projection_skips order by skipped_at, projection`)).rows as CollectedSkip[];
  fs.mkdirSync(dir, { recursive: true });
  const n = (seqOf.get(file) ?? 0) + 1;
  seqOf.set(file, n);
  // One JSON line per row: a suite of the property tests holds tens of thousands of events.
  const lines = [JSON.stringify({ file, seq: n }), ...events.map((e) => JSON.stringify({ e })), ...keys.map((k) => JSON.stringify({ k })), ...skips.map((s) => JSON.stringify({ s }))];
  // By file, then its order there; the process id keeps apart two workers' databases opened from one shared helper.
  fs.writeFileSync(path.join(dir, `${file.replaceAll('/', '~')}~${String(n).padStart(5, '0')}~${process.pid}.jsonl`), `${lines.join('\n')}\n`);
}

/** Every suite collected for `backend` under `dir`, in collection order. */
export function readCollection(dir: string, backend: Backend): CollectedSuite[] {
  const at = path.join(dir, backend);
  if (!fs.existsSync(at)) return [];
  return fs
    .readdirSync(at)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => {
      const [head, ...rest] = fs.readFileSync(path.join(at, f), 'utf8').trimEnd().split('\n');
      const suite: CollectedSuite = { ...(JSON.parse(head ?? '{}') as { file: string; seq: number }), events: [], keys: [], skips: [] };
      for (const line of rest) {
        const row = JSON.parse(line) as { e?: CollectedEvent; k?: CollectedKey; s?: CollectedSkip };
        if (row.e) suite.events.push(row.e);
        else if (row.k) suite.keys.push(row.k);
        else if (row.s) suite.skips.push(row.s);
      }
      return suite;
    });
}

/** Lines of suites whose database could not be read at close (see collectedOnClose). */
export function uncollected(dir: string, backend: Backend): string[] {
  const f = path.join(dir, backend, 'uncollected.txt');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trimEnd().split('\n') : [];
}
