// What a projection is, and a helper for the common kind: one JSON document per aggregate.
import type { Knex } from 'knex';
import { type LogPosition, type RecordedEvent, comparePositions } from '../eventstore/port.ts';
import { type DomainEvent, type EventCodec, currentType, readEvent } from '../domain/decider.ts';
import { loadWithoutIndexes } from './fresh-table.ts';

/** A read-model builder. It owns `tables`; nothing else writes them. */
export interface Projection {
  name: string;
  /** Bumping the version drops the tables' rows and replays the log into them. */
  version: number;
  tables: string[];
  /** Applies a batch of events in the runner's transaction. Events it does not handle are ignored. */
  apply(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
  /** Whether `apply` could change anything for an event of this type; when absent, every type counts. */
  handles?(type: string): boolean;
  /**
   * Optional bulk replay: folds many batches in memory and writes the result at once (catch-up and
   * rebuild). `fresh` says the tables are empty (the checkpoint is at the start of the log).
   */
  bulk?(knex: Knex, fresh: boolean): BulkApplier;
  /**
   * Optional live commit in one statement: reads what the batch needs (outside any transaction: the
   * checkpoint's compare-and-set in the commit statement guards them), folds the events, and returns
   * the writes. The runner runs them as CTEs of one statement with the lock and the checkpoint move
   * (commit.ts), one round trip instead of a transaction's six. Absent: `apply` in a transaction.
   */
  stage?(knex: Knex, events: RecordedEvent[]): Promise<StagedWrites>;
}

/** Adds one data-modifying CTE to the commit statement; `sql` gets the SQL condition the write must AND into its WHERE. Returns the CTE's name. */
export type AddStatement = (sql: (guard: string) => string, bindings: Knex.RawBinding[]) => string;

/** A batch's writes, prepared before the commit statement (reads done, events folded). */
export interface StagedWrites {
  /** Adds the writes as CTEs; each writes only when its guard holds (lock taken, checkpoint moved). */
  write(add: AddStatement): void;
  /** Called once the statement committed, with the position the checkpoint moved to and the runner's knex. */
  committed?(position: LogPosition, root: Knex): void;
}

/** Folds batches in memory between writes; the runner writes it with the checkpoint in one transaction. */
export interface BulkApplier {
  /** Folds a batch into memory, reading stored rows it does not hold yet. */
  fold(events: RecordedEvent[]): Promise<void>;
  /** Rows changed in memory and not written yet. */
  pending(): number;
  /** Writes what changed since the last write, in the runner's transaction. */
  write(trx: Knex.Transaction): Promise<void>;
}

/** Handler of one event type in a document table: returns the new document, null to delete, undefined for no change. */
export type DocumentHandler<D, Data = unknown> = (doc: D | null, data: Data, event: RecordedEvent) => D | null | undefined;

const replacingHandlers = new WeakSet<object>();

/**
 * A handler whose document never depends on the stored one and always exists (a creating event: a new
 * payment, a ledger line): a batch whose first event for a key has one does not read that key's row.
 */
export function replacing<D, Data>(fn: (data: Data, event: RecordedEvent) => NoInfer<D>): DocumentHandler<D, Data> {
  const handler: DocumentHandler<D, Data> = (_doc, data, event) => fn(data, event);
  replacingHandlers.add(handler);
  return handler;
}

/** Handlers keyed by event type, each receiving that event's typed data. */
export type DocumentHandlers<D, E extends DomainEvent> = { [K in E['type']]?: DocumentHandler<D, Extract<E, { type: K }>['data']> };

/** One table of JSON documents: `id`, indexed `columns` derived from the document, and `doc`. */
export interface DocumentTable<D, E extends DomainEvent> {
  table: string;
  /** The codec of the aggregate whose events the table is built from: handlers see events read through it (upcast and parsed). */
  events: EventCodec<E>;
  /** The document key an event touches; the stream's id suffix by default; null to skip. */
  keyOf?: (event: RecordedEvent, read: E) => string | null;
  handlers: DocumentHandlers<D, E>;
  columns: (doc: D, id: string) => Record<string, unknown>;
}

/**
 * A projection of document tables. A batch loads every touched document once, folds its events in
 * memory and writes all changes in a few statements, which is what makes a 200k-event replay fast.
 */
export function documentProjection(def: { name: string; version: number; tables: TableWriter[] }): Projection {
  const bulkTables = def.tables.flatMap((t) => (t.bulk ? [{ bulk: t.bulk }] : []));
  const stagedTables = def.tables.flatMap((t) => (t.stage ? [{ stage: t.stage }] : []));
  return {
    name: def.name,
    version: def.version,
    tables: def.tables.map((t) => t.table),
    async apply(trx, events) {
      for (const t of def.tables) await t.apply(trx, events);
    },
    handles: (type) => def.tables.some((t) => t.handles(type)),
    // Bulk replay only when every table can (a table that reads another in the same batch cannot).
    ...(bulkTables.length === def.tables.length ? { bulk: (knex: Knex, fresh: boolean) => combineBulk(bulkTables.map((t) => t.bulk(knex, fresh, def.tables.length === 1))) } : {}),
    // One-statement commits likewise.
    ...(stagedTables.length === def.tables.length ? { stage: (knex: Knex, events: RecordedEvent[]) => combineStaged(stagedTables.map((t) => t.stage), knex, events) } : {}),
  };
}

async function combineStaged(tables: ((knex: Knex, events: RecordedEvent[]) => Promise<StagedWrites>)[], knex: Knex, events: RecordedEvent[]): Promise<StagedWrites> {
  const parts = await Promise.all(tables.map((stage) => stage(knex, events)));
  return {
    write: (add) => parts.forEach((p) => p.write(add)),
    committed: (position, root) => parts.forEach((p) => p.committed?.(position, root)),
  };
}

function combineBulk(parts: BulkApplier[]): BulkApplier {
  return {
    async fold(events) {
      for (const p of parts) await p.fold(events);
    },
    pending: () => parts.reduce((n, p) => n + p.pending(), 0),
    async write(trx) {
      for (const p of parts) await p.write(trx);
    },
  };
}

/** A table and how a batch of events is applied to it. */
export interface TableWriter {
  table: string;
  apply(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
  /** Whether the table has a handler for this event type. */
  handles(type: string): boolean;
  /** Bulk replay of this table (see Projection.bulk). */
  bulk?(knex: Knex, fresh: boolean, alone?: boolean): BulkApplier;
  /** One-statement live commit of this table (see Projection.stage). */
  stage?(knex: Knex, events: RecordedEvent[]): Promise<StagedWrites>;
}

/** A document table as a TableWriter. */
export function documentTable<D, E extends DomainEvent>(def: DocumentTable<D, E>): TableWriter {
  return {
    table: def.table,
    apply: (trx, events) => applyDocuments(trx, def, events),
    handles: (type) => Object.hasOwn(def.handlers, currentType(def.events, type)),
    bulk: (knex, fresh, alone) => documentBulk(def, knex, fresh, alone ?? false),
    stage: (knex, events) => stageDocuments(knex, def, events),
  };
}

/** Documents kept in memory across batches; beyond this many the cache is dropped after a write. */
const MAX_CACHED_DOCS = 250_000;

/**
 * Bulk replay of a document table: every touched document is loaded once, folded, and written once per
 * write. `alone`: the only table of its projection, so no other table reads the events a replay reads
 * for it.
 */
function documentBulk<D, E extends DomainEvent>(def: DocumentTable<D, E>, knex: Knex, fresh: boolean, alone: boolean): BulkApplier {
  const docs = new Map<string, D | null>();
  const dirty = new Set<string>();
  // An empty table at the start: a document not in memory does not exist, no need to ask.
  let complete = fresh;
  // Nothing written yet into a table that was empty: its first write inserts.
  let empty = fresh;
  return {
    async fold(all) {
      const events = handledEvents(def, all);
      if (events.length === 0) return;
      // Alone, an event's reading is kept for this fold only: kept with the event (readRecorded), the
      // readings of a 200k-event replay lived as long as their batches, about 0.4 s of node CPU in GC.
      const read = alone ? foldReader(def.events) : (e: RecordedEvent) => readRecorded(def.events, e);
      if (!complete) {
        const keyOf = def.keyOf ?? streamKey;
        const missing = [...new Set(events.map((e) => keyOf(e, read(e))).filter((k): k is string => k !== null && !docs.has(k)))];
        for (const k of missing) docs.set(k, null);
        for (let i = 0; i < missing.length; i += 10_000) {
          const found = await knex.raw(`select id::text as id, doc from "${def.table}" where id = any(?)`, [missing.slice(i, i + 10_000)]);
          for (const r of found.rows as { id: string; doc: D }[]) docs.set(r.id, r.doc);
        }
      }
      foldDocuments(def, docs, dirty, events, read);
    },
    pending: () => dirty.size,
    async write(trx) {
      await writeDocuments(trx, def, docs, dirty, false, empty);
      empty = false;
      dirty.clear();
      if (docs.size > MAX_CACHED_DOCS) {
        docs.clear();
        complete = false;
      }
    },
  };
}

function handlerOf<D, E extends DomainEvent>(def: DocumentTable<D, E>, type: string): DocumentHandler<D> | undefined {
  return (def.handlers as Record<string, DocumentHandler<D> | undefined>)[type];
}

// The events of a batch the table has a handler for (by their current type name).
function handledEvents<D, E extends DomainEvent>(def: DocumentTable<D, E>, all: RecordedEvent[]): RecordedEvent[] {
  return all.filter((e) => handlerOf(def, currentType(def.events, e.type)) !== undefined);
}

/** Reads events through `codec`, each once, remembering the readings only as long as the reader lives. */
function foldReader<E extends DomainEvent>(codec: EventCodec<E>): (e: RecordedEvent) => E {
  const readings = new Map<RecordedEvent, E>();
  return (e) => {
    let read = readings.get(e);
    if (read === undefined) readings.set(e, (read = readEvent(codec, e)));
    return read;
  };
}

/** Folds `events` into `docs` (null: absent), marking what changed in `touched`. */
function foldDocuments<D, E extends DomainEvent>(
  def: DocumentTable<D, E>,
  docs: Map<string, D | null>,
  touched: Set<string>,
  events: RecordedEvent[],
  readOf: (e: RecordedEvent) => E = (e) => readRecorded(def.events, e),
): void {
  const keyOf = def.keyOf ?? streamKey;
  for (const e of events) {
    const read = readOf(e);
    const key = keyOf(e, read);
    const handler = handlerOf(def, read.type);
    if (key === null || !handler) continue;
    const next = handler(docs.get(key) ?? null, read.data, e);
    if (next === undefined) continue;
    docs.set(key, next);
    touched.add(key);
  }
}

/** Writes the `touched` documents: deletes and upserts, a few thousand rows per statement. */
async function writeDocuments<D, E extends DomainEvent>(trx: Knex.Transaction, def: DocumentTable<D, E>, docs: Map<string, D | null>, touched: Set<string>, remember = false, empty = false): Promise<void> {
  if (remember) {
    const written = [...touched].map((key) => ({ key, doc: docs.get(key) ?? null }));
    afterCommit(trx, (at, root) => {
      for (const w of written) rememberDocument(root, def.table, w.key, w.doc, at);
    });
  }
  const { upserts, deletes } = documentRows(def, docs, touched);
  // Into an empty table (the first write of a replay from the start): plain inserts, nothing to delete,
  // and the indexes built once afterwards.
  if (empty) return loadWithoutIndexes(trx, def.table, () => writeChunks(trx, def.table, upserts, true));
  for (let i = 0; i < deletes.length; i += 10_000) await trx.raw(`delete from "${def.table}" where id = any(?)`, [deletes.slice(i, i + 10_000)]);
  await writeChunks(trx, def.table, upserts, false);
}

/** Rows per upsert statement. */
const WRITE_CHUNK = 5_000;

/**
 * Upserts `rows` in statements of WRITE_CHUNK rows. The JSON of the next statement is built while the
 * database runs the current one (on Postgres the two overlap; a replay's write is database-bound).
 */
async function writeChunks(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], plain: boolean): Promise<void> {
  let running: Promise<unknown> | null = null;
  for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
    const chunk = rows.slice(i, i + WRITE_CHUNK);
    const sql = upsertSql(table, chunk, 'true', plain);
    const json = JSON.stringify(chunk);
    if (running) await running;
    running = trx.raw(sql, [json]).then(() => undefined);
    running.catch(() => {}); // awaited below: a failure is thrown there, not reported as unhandled meanwhile
    // Let the driver send it before the next chunk's JSON is built.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (running) await running;
}

/** The rows to upsert and the keys to delete for the `touched` documents. */
function documentRows<D, E extends DomainEvent>(def: DocumentTable<D, E>, docs: Map<string, D | null>, touched: Set<string>): { upserts: Record<string, unknown>[]; deletes: string[] } {
  const upserts: Record<string, unknown>[] = [];
  const deletes: string[] = [];
  for (const key of touched) {
    const doc = docs.get(key) ?? null;
    if (doc === null) deletes.push(key);
    else upserts.push({ id: key, ...def.columns(doc, key), doc });
  }
  return { upserts, deletes };
}

/** Applies the events a document table handles. */
export async function applyDocuments<D, E extends DomainEvent>(trx: Knex.Transaction, def: DocumentTable<D, E>, all: RecordedEvent[]): Promise<void> {
  const events = handledEvents(def, all);
  if (events.length === 0) return;
  const docs = await loadDocuments(trx, def, events);
  const touched = new Set<string>();
  foldDocuments(def, docs, touched, events);
  await writeDocuments(trx, def, docs, touched, true);
}

/** The documents a batch touches, as stored; documents of streams the batch starts are known absent without asking. */
async function loadDocuments<D, E extends DomainEvent>(knex: Knex, def: DocumentTable<D, E>, events: RecordedEvent[], known?: Map<string, { doc: unknown }>): Promise<Map<string, D | null>> {
  const keyOf = def.keyOf ?? streamKey;
  const docs = new Map<string, D | null>();
  const keys = new Set<string>();
  for (const e of events) {
    const read = readRecorded(def.events, e);
    const key = keyOf(e, read);
    if (key === null || keys.has(key) || docs.has(key)) continue;
    const held = known?.get(`${def.table}:${key}`);
    if (held) {
      docs.set(key, held.doc as D | null);
      continue;
    }
    // The key's first event in the batch makes its document from the event alone: the stored row is not needed.
    const handler = handlerOf(def, read.type);
    if (handler && replacingHandlers.has(handler)) {
      docs.set(key, null);
      continue;
    }
    // Keyed by its stream (the default), a document is born with its stream: the first event of a
    // stream (revision 0) finds none. Guarded by the table having seen one stream category only.
    if (!def.keyOf && e.revision === 0n && oneCategory(def.table, e.streamId)) docs.set(key, null);
    else keys.add(key);
  }
  if (keys.size === 0) return docs;
  // One array parameter instead of one bind per key: planning an IN list of 1,000 binds costs more than the lookups.
  const found = await knex.raw(`select id::text as id, doc from "${def.table}" where id = any(?)`, [[...keys]]);
  for (const r of found.rows as { id: string; doc: D }[]) docs.set(r.id, r.doc);
  return docs;
}

/** Stream categories each stream-keyed table has seen in this process. */
const categoriesSeen = new Map<string, string>();

// A table that ever sees two categories (two aggregates could share an id suffix) always reads.
function oneCategory(table: string, streamId: string): boolean {
  const category = streamCategory(streamId);
  const seen = categoriesSeen.get(table);
  if (seen === undefined) categoriesSeen.set(table, category);
  else if (seen !== category) categoriesSeen.set(table, '');
  return (categoriesSeen.get(table) ?? '') !== '';
}

/** Stages a document table's batch for a one-statement commit: loads, folds, and returns deletes and upserts. */
export async function stageDocuments<D, E extends DomainEvent>(knex: Knex, def: DocumentTable<D, E>, all: RecordedEvent[]): Promise<StagedWrites> {
  const events = handledEvents(def, all);
  if (events.length === 0) return { write: () => {} };
  // The documents this process's live commits wrote last are the stored rows (see forgetDocuments): not read again.
  const docs = await loadDocuments(knex, def, events, recent.get(knex));
  const touched = new Set<string>();
  foldDocuments(def, docs, touched, events);
  const { upserts, deletes } = documentRows(def, docs, touched);
  const written = [...touched].map((key) => ({ key, doc: docs.get(key) ?? null }));
  return {
    write(add) {
      // Deletes first (a unique column freed by a delete may be taken by an upsert of the same batch).
      const deleted = deletes.length ? add((guard) => `delete from "${def.table}" where id = any(?) and ${guard} returning 1`, [deletes]) : null;
      if (upserts.length) {
        const after = deleted ? ` and (select count(*) from ${deleted}) >= 0` : '';
        add((guard) => upsertSql(def.table, upserts, `${guard}${after}`), [JSON.stringify(upserts)]);
      }
    },
    committed: (at, root) => written.forEach((w) => rememberDocument(root, def.table, w.key, w.doc, at)),
  };
}

const commitHooks = new WeakMap<Knex.Transaction, ((position: LogPosition, root: Knex) => void)[]>();

/** Runs `fn` once the runner's transaction `trx` has committed, with the position its checkpoints moved to and the runner's knex. */
export function afterCommit(trx: Knex.Transaction, fn: (position: LogPosition, root: Knex) => void): void {
  const hooks = commitHooks.get(trx) ?? [];
  hooks.push(fn);
  commitHooks.set(trx, hooks);
}

/** Called by the runner after `trx` committed. */
export function committed(trx: Knex.Transaction, position: LogPosition, root: Knex): void {
  for (const fn of commitHooks.get(trx) ?? []) fn(position, root);
  commitHooks.delete(trx);
}

/** Documents the live projection of this process committed last, per database (the runner's knex) and table. */
const recent = new WeakMap<object, Map<string, { doc: unknown; at: LogPosition }>>();
const MAX_RECENT = 10_000;

const tableWatchers = new Map<string, Set<() => void>>();

/** Calls `fn` whenever a live projection commit of this process wrote a document of `table` (caches of what it holds drop their copies). */
export function onDocumentWritten(table: string, fn: () => void): void {
  const set = tableWatchers.get(table) ?? new Set();
  set.add(fn);
  tableWatchers.set(table, set);
}

function rememberDocument(client: object, table: string, key: string, doc: unknown, at: LogPosition): void {
  tableWatchers.get(table)?.forEach((fn) => fn());
  let docs = recent.get(client);
  if (!docs) recent.set(client, (docs = new Map()));
  const id = `${table}:${key}`;
  docs.delete(id); // re-insert: the map's order is the eviction order
  docs.set(id, { doc, at });
  if (docs.size > MAX_RECENT) {
    const oldest = docs.keys().next();
    if (!oldest.done) docs.delete(oldest.value);
  }
}

/** The document `table`/`key` as this process's live commits last wrote it (the stored row while the runner keeps it, see forgetDocuments), or undefined. */
export function knownDocument<D>(knex: Knex, table: string, key: string): { doc: D | null } | undefined {
  const hit = recent.get(knex)?.get(`${table}:${key}`);
  return hit ? { doc: hit.doc as D | null } : undefined;
}

/**
 * Forgets the documents of `tables` remembered for `knex`. The runner calls it whenever rows of those
 * tables may be written other than by its live commits (catching up alone, bulk replay, rebuild,
 * another runner's commits, a failed commit), so staging never folds onto a copy older than the row.
 */
export function forgetDocuments(knex: Knex, tables: string[]): void {
  const docs = recent.get(knex);
  if (!docs || tables.length === 0) return;
  const prefixes = tables.map((t) => `${t}:`);
  for (const id of docs.keys()) if (prefixes.some((p) => id.startsWith(p))) docs.delete(id);
}

/**
 * The document row `table`/`key` as a projection commit of this process wrote it at or after
 * `position`, or undefined (then read the table). A command that waited for its own position can
 * answer with it instead of reading the row back: it is a state at or after the command's write, as
 * a read would be. Null: the commit deleted the row.
 */
export function recentDocument<D>(knex: Knex, table: string, key: string, position: LogPosition | null): D | null | undefined {
  const hit = position === null ? undefined : recent.get(knex)?.get(`${table}:${key}`);
  if (!hit || comparePositions(hit.at, position) < 0) return undefined;
  return hit.doc as D | null;
}

/**
 * The upsert of `rows` (one JSON parameter), writing only where `guard` holds. Postgres maps the JSON
 * fields onto the table's column types (jsonb_populate_recordset), which is far cheaper than binding
 * every value of a 1,000-row batch separately.
 */
function upsertSql(table: string, rows: Record<string, unknown>[], guard: string, plain = false): string {
  // Every row's keys (rows of one table usually share them; a flatMap of 5,000 key arrays showed in replay profiles).
  const keys = new Set<string>();
  for (const r of rows) for (const k in r) keys.add(k);
  const columns = [...keys];
  const list = columns.map((c) => `"${c}"`).join(', ');
  const updates = columns.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', ');
  const insert = `insert into "${table}" (${list}) select ${list} from jsonb_populate_recordset(null::"${table}", ?::jsonb) where ${guard}`;
  return plain ? insert : `${insert} on conflict (id) do ${updates ? `update set ${updates}` : 'nothing'}`;
}

/** A recorded event read through its aggregate's codec (upcast, then parsed), once per recorded event however many tables read it. */
export function readRecorded<E extends DomainEvent>(codec: EventCodec<E>, e: RecordedEvent): E {
  const known = codec.memo.get(e);
  if (known) return known;
  const read = readEvent(codec, e);
  codec.memo.set(e, read);
  return read;
}

/** `customer-0190...` -> `0190...`. */
export function streamKey(event: RecordedEvent): string {
  return event.streamId.slice(event.streamId.indexOf('-') + 1);
}

/** The category of a stream id (`customer-0190...` -> `customer`). */
export function streamCategory(streamId: string): string {
  return streamId.slice(0, streamId.indexOf('-'));
}
