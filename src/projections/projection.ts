// What a projection is, and a helper for the common kind: one JSON document per aggregate.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/port.ts';
import { type DomainEvent, type EventCodec, currentType, readEvent } from '../domain/decider.ts';

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
}

/** Handler of one event type in a document table: returns the new document, null to delete, undefined for no change. */
export type DocumentHandler<D, Data = unknown> = (doc: D | null, data: Data, event: RecordedEvent) => D | null | undefined;

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
  return {
    name: def.name,
    version: def.version,
    tables: def.tables.map((t) => t.table),
    async apply(trx, events) {
      for (const t of def.tables) await t.apply(trx, events);
    },
    handles: (type) => def.tables.some((t) => t.handles(type)),
  };
}

/** A table and how a batch of events is applied to it. */
export interface TableWriter {
  table: string;
  apply(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
  /** Whether the table has a handler for this event type. */
  handles(type: string): boolean;
}

/** A document table as a TableWriter. */
export function documentTable<D, E extends DomainEvent>(def: DocumentTable<D, E>): TableWriter {
  return { table: def.table, apply: (trx, events) => applyDocuments(trx, def, events), handles: (type) => Object.hasOwn(def.handlers, currentType(def.events, type)) };
}

/** Applies the events a document table handles. */
export async function applyDocuments<D, E extends DomainEvent>(trx: Knex.Transaction, def: DocumentTable<D, E>, all: RecordedEvent[]): Promise<void> {
  const keyOf = def.keyOf ?? streamKey;
  const handlerOf = (type: string) => (def.handlers as Record<string, DocumentHandler<D> | undefined>)[type];
  const events = all.filter((e) => handlerOf(currentType(def.events, e.type)) !== undefined).map((e) => ({ e, read: readRecorded(def.events, e) }));
  if (events.length === 0) return;
  const keys = [...new Set(events.map(({ e, read }) => keyOf(e, read)).filter((k): k is string => k !== null))];
  const docs = new Map<string, D | null>();
  // One array parameter instead of one bind per key: planning an IN list of 1,000 binds costs more than the lookups.
  const found = await trx.raw(`select id::text as id, doc from "${def.table}" where id = any(?)`, [keys]);
  for (const r of found.rows as { id: string; doc: D }[]) docs.set(r.id, r.doc);
  const touched = new Set<string>();
  for (const { e, read } of events) {
    const key = keyOf(e, read);
    const handler = handlerOf(read.type);
    if (key === null || handler === undefined) continue;
    const next = handler(docs.get(key) ?? null, read.data, e);
    if (next === undefined) continue;
    docs.set(key, next);
    touched.add(key);
  }
  const upserts: Record<string, unknown>[] = [];
  const deletes: string[] = [];
  for (const key of touched) {
    const doc = docs.get(key) ?? null;
    if (doc === null) deletes.push(key);
    else upserts.push({ id: key, ...def.columns(doc, key), doc });
  }
  if (deletes.length) await trx.raw(`delete from "${def.table}" where id = any(?)`, [deletes]);
  if (upserts.length) await upsertRows(trx, def.table, upserts);
}

/**
 * Inserts or replaces rows by `id` in one statement with one JSON parameter: Postgres maps the JSON
 * fields onto the table's column types (jsonb_populate_recordset), which is far cheaper than binding
 * every value of a 1,000-row batch separately.
 */
async function upsertRows(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const list = columns.map((c) => `"${c}"`).join(', ');
  const updates = columns.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', ');
  await trx.raw(
    `insert into "${table}" (${list}) select ${list} from jsonb_populate_recordset(null::"${table}", ?::jsonb)
     on conflict (id) do ${updates ? `update set ${updates}` : 'nothing'}`,
    [JSON.stringify(rows)],
  );
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
