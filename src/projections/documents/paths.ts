// The three write paths of a document table, over one load-and-fold: in the runner's transaction (apply), staged
// for the one-statement live commit (stage), and folded in memory across batches for bulk replay (bulk).
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { type DomainEvent, type EventCodec, currentType, readEvent } from '../../domain/decider.ts';
import type { BulkApplier, StagedWrites } from '../projection.ts';
import { readRecorded, streamCategory, streamKey } from '../recorded.ts';
import { type DocumentHandler, type DocumentTable, isReplacing } from './declaration.ts';
import { rememberDocument, rememberedDocuments } from './cache.ts';
import { stagedDocumentWrites, writeDocuments } from './sql.ts';
import { REPLAY_DOCUMENTS, replayMemoryFull } from '../replay-memory.ts';

/** Applies the events a document table handles, in the runner's transaction. */
export async function applyDocuments<D, E extends DomainEvent>(trx: Knex.Transaction, def: DocumentTable<D, E>, all: RecordedEvent[]): Promise<void> {
  const events = handledEvents(def, all);
  if (events.length === 0) return;
  const docs = await loadDocuments(trx, def, events);
  const touched = new Set<string>();
  foldDocuments(def, docs, touched, events);
  await writeDocuments(trx, def, docs, touched, true);
}

/** Stages a document table's batch for a one-statement commit: loads, folds, and returns deletes and upserts. */
export async function stageDocuments<D, E extends DomainEvent>(knex: Knex, def: DocumentTable<D, E>, all: RecordedEvent[]): Promise<StagedWrites> {
  const events = handledEvents(def, all);
  if (events.length === 0) return { write: () => {} };
  // The documents this process's live commits wrote last are the stored rows (see forgetDocuments): not read again.
  const docs = await loadDocuments(knex, def, events, rememberedDocuments(knex));
  const touched = new Set<string>();
  foldDocuments(def, docs, touched, events);
  const write = stagedDocumentWrites(def, docs, touched);
  const written = [...touched].map((key) => ({ key, doc: docs.get(key) ?? null }));
  return {
    write,
    committed: (at, root) => written.forEach((w) => rememberDocument(root, def.table, w.key, w.doc, at)),
  };
}

/**
 * Bulk replay of a document table: every touched document is loaded once, folded, and written once per
 * write. `alone`: the only table of its projection, so no other table reads the events a replay reads
 * for it. `schema`: where stored rows are read (a blue/green build's tables), else the search path's table.
 */
export function documentBulk<D, E extends DomainEvent>(def: DocumentTable<D, E>, knex: Knex, fresh: boolean, alone: boolean, schema?: string): BulkApplier {
  const stored = schema ? `"${schema.replace(/"/g, '""')}"."${def.table}"` : `"${def.table}"`;
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
        // Documents not in memory: asked for, but for those the batch creates (see bornInBatch).
        const keyOf = def.keyOf ?? streamKey;
        const missing = new Set<string>();
        for (const e of events) {
          const r = read(e);
          const key = keyOf(e, r);
          if (key === null || docs.has(key) || missing.has(key)) continue;
          if (bornInBatch(def, e, r)) docs.set(key, null);
          else missing.add(key);
        }
        const asked = [...missing];
        for (const k of asked) docs.set(k, null);
        for (let i = 0; i < asked.length; i += 10_000) {
          const found = await knex.raw(`select id::text as id, doc from ${stored} where id = any(?)`, [asked.slice(i, i + 10_000)]);
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
      // Documents are kept across writes while they fit (replay-memory.ts).
      if (docs.size > REPLAY_DOCUMENTS || replayMemoryFull()) {
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
    if (bornInBatch(def, e, read)) docs.set(key, null);
    else keys.add(key);
  }
  if (keys.size === 0) return docs;
  // One array parameter instead of one bind per key: planning an IN list of 1,000 binds costs more than the lookups.
  const found = await knex.raw(`select id::text as id, doc from "${def.table}" where id = any(?)`, [[...keys]]);
  for (const r of found.rows as { id: string; doc: D }[]) docs.set(r.id, r.doc);
  return docs;
}

/**
 * Whether the key's first event in a batch, `e`, makes a document that needs no stored row: a replacing handler makes
 * it from the event alone, and a document keyed by its stream (the default) is born with its stream, so the stream's
 * first event (revision 0) finds none (guarded by the table having seen one stream category only).
 */
function bornInBatch<D, E extends DomainEvent>(def: DocumentTable<D, E>, e: RecordedEvent, read: E): boolean {
  const handler = handlerOf(def, read.type);
  if (handler && isReplacing(handler)) return true;
  return !def.keyOf && e.revision === 0n && oneCategory(def.table, e.streamId);
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
