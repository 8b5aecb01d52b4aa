// The SQL of document writes: rows from documents, set-based upserts and deletes, and the commit statement's CTEs.
import type { Knex } from 'knex';
import type { DomainEvent } from '../../domain/decider.ts';
import type { DocumentTable } from './declaration.ts';
import type { StagedWrites } from '../projection.ts';
import { afterCommit } from '../engine/commit.ts';
import { rememberDocument } from './cache.ts';
import { loadWithoutIndexes } from './fresh-table.ts';
import { copyRows, copyUpsert } from './copy-load.ts';

/** Writes the `touched` documents: deletes and upserts, a few thousand rows per statement. `remember`: a live commit (see cache.ts). */
export async function writeDocuments<D, E extends DomainEvent>(trx: Knex.Transaction, def: DocumentTable<D, E>, docs: Map<string, D | null>, touched: Set<string>, remember = false, empty = false): Promise<void> {
  if (remember) {
    const written = [...touched].map((key) => ({ key, doc: docs.get(key) ?? null }));
    afterCommit(trx, (at, root) => {
      for (const w of written) rememberDocument(root, def.table, w.key, w.doc, at);
    });
  }
  const { upserts, deletes } = documentRows(def, docs, touched);
  // Into an empty table (the first write of a replay from the start): plain inserts, nothing to delete, and for a
  // large load the indexes built once afterwards. A small one keeps its indexes: dropping and rebuilding them is a
  // few DDL statements per table, which cost more than they save below a few thousand rows (a blue/green rebuild
  // of every projection over a short log makes one such load per table). On Postgres the rows go by COPY.
  const columns = columnsOf(upserts);
  if (empty) {
    const load = async () => {
      if (!(await copyRows(trx, def.table, upserts, columns))) await writeChunks(trx, def.table, upserts, true);
    };
    return upserts.length >= LOAD_WITHOUT_INDEXES_ROWS ? loadWithoutIndexes(trx, def.table, load) : load();
  }
  for (let i = 0; i < deletes.length; i += 10_000) await trx.raw(`delete from "${def.table}" where id = any(?)`, [deletes.slice(i, i + 10_000)]);
  // A bulk write into a table that has rows (a replay's later writes) goes by COPY too, then one upsert, on Postgres.
  if (upserts.length >= WRITE_CHUNK && (await copyUpsert(trx, def.table, upserts, columns, updateSet(columns)))) return;
  await writeChunks(trx, def.table, upserts, false);
}

/** The writes of the `touched` documents as CTEs of the one-statement commit (see StagedWrites). */
export function stagedDocumentWrites<D, E extends DomainEvent>(def: DocumentTable<D, E>, docs: Map<string, D | null>, touched: Set<string>): StagedWrites['write'] {
  const { upserts, deletes } = documentRows(def, docs, touched);
  return (add) => {
    // Deletes first (a unique column freed by a delete may be taken by an upsert of the same batch).
    const deleted = deletes.length ? add((guard) => `delete from "${def.table}" where id = any(?) and ${guard} returning 1`, [deletes]) : null;
    if (upserts.length) {
      const after = deleted ? ` and (select count(*) from ${deleted}) >= 0` : '';
      add((guard) => upsertSql(def.table, upserts, `${guard}${after}`), [JSON.stringify(upserts)]);
    }
  };
}

/** From this many rows on, a load into an empty table drops its indexes and builds them after (fresh-table.ts). */
const LOAD_WITHOUT_INDEXES_ROWS = 5_000;

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

/**
 * The upsert of `rows` (one JSON parameter), writing only where `guard` holds. Postgres maps the JSON
 * fields onto the table's column types (jsonb_populate_recordset), which is far cheaper than binding
 * every value of a 1,000-row batch separately.
 */
function upsertSql(table: string, rows: Record<string, unknown>[], guard: string, plain = false): string {
  const columns = columnsOf(rows);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const updates = updateSet(columns);
  const insert = `insert into "${table}" (${list}) select ${list} from jsonb_populate_recordset(null::"${table}", ?::jsonb) where ${guard}`;
  return plain ? insert : `${insert} on conflict (id) do ${updates ? `update set ${updates}` : 'nothing'}`;
}

// Every row's keys (rows of one table usually share them; a flatMap of 5,000 key arrays showed in replay profiles).
function columnsOf(rows: Record<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const r of rows) for (const k in r) keys.add(k);
  return [...keys];
}

// An upsert's SET list: every column but the key from the row it would have inserted.
function updateSet(columns: string[]): string {
  return columns.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', ');
}
