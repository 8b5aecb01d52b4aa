// The documents this process's live projection commits wrote last, per database and table: staging folds onto them
// instead of reading the rows again, and a command that waited for its own write may answer with one.
import type { Knex } from 'knex';
import { type LogPosition, comparePositions } from '../../eventstore/port.ts';

/** Documents the live projection of this process committed last, per database (the runner's knex) and table. */
const recent = new WeakMap<object, Map<string, { doc: unknown; at: LogPosition }>>();
const MAX_RECENT = 10_000;

const tableWatchers = new Map<string, Set<() => void>>();

/**
 * Calls `fn` whenever a live projection commit of this process wrote a document of `table`, or the table's rows may
 * have been written otherwise (forgetDocuments): caches of what it holds drop their copies.
 */
export function onDocumentWritten(table: string, fn: () => void): void {
  const set = tableWatchers.get(table) ?? new Set();
  set.add(fn);
  tableWatchers.set(table, set);
}

/** Says that `tables` were replaced whole (a rebuild swapped them in): the caches of what they hold drop their copies. */
export function tablesReplaced(tables: string[]): void {
  for (const t of tables) tableWatchers.get(t)?.forEach((fn) => fn());
}

/** Remembers that a live commit of `client` wrote `doc` (null: deleted) as `table`/`key` at `at`. */
export function rememberDocument(client: object, table: string, key: string, doc: unknown, at: LogPosition): void {
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

/** Every document remembered for `knex`, keyed `table:key` (staging reads through it). */
export function rememberedDocuments(knex: Knex): Map<string, { doc: unknown }> | undefined {
  return recent.get(knex);
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
  for (const t of tables) tableWatchers.get(t)?.forEach((fn) => fn());
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
