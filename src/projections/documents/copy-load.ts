// A replay's writes of many documents on Postgres, as COPY FROM STDIN: the rows go as text lines the server parses
// straight into the table (the first load into an empty table), or into a temporary copy of it and then one upsert
// (later writes). The multi-row INSERT from jsonb_populate_recordset made Postgres parse every 5,000-row batch into one
// jsonb value and take each column out of it again: issue 31 measured 2.3-3.0 s for the 100,000 documents of the
// replay bench against 1.1 s for COPY of the same rows.
import type { Knex } from 'knex';
import pg from 'pg';

/** Rows per COPY data message (each built while the server parses the one before). */
const COPY_CHUNK = 2_000;

/**
 * Loads `rows` (column name -> value, as the jsonb_populate_recordset path takes them; `columns` every row's keys)
 * into `table` with COPY, in the caller's transaction. Values are written as that path would have read them: JSON
 * text for json and jsonb columns, the value's text otherwise. False, having sent nothing, when COPY is not there
 * (PGlite) or a value has no plain text form (an object or array for a column that is not json): then load the other way.
 */
export async function copyRows(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], columns: string[]): Promise<boolean> {
  const copy = await copyOf(trx, table, rows, columns);
  if (!copy) return false;
  await copyIn(copy.connection, `copy "${table}" (${copy.list}) from stdin`, rows, copy.line);
  return true;
}

/**
 * Upserts `rows` into `table` (on its key `id`; `updates` the SET list) by COPY into a temporary copy of the table
 * and one INSERT ... SELECT from it, in the caller's transaction. The JSON-parameter upsert made the server parse
 * every row twice (the batch's JSON, then its doc as jsonb): a bulk replay's later writes took about 20 us a row.
 * False, having written nothing, where copyRows would be.
 */
export async function copyUpsert(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], columns: string[], updates: string): Promise<boolean> {
  const copy = await copyOf(trx, table, rows, columns);
  if (!copy) return false;
  const staging = `load_${table}`.slice(0, 63);
  await trx.raw(`drop table if exists pg_temp."${staging}"`);
  await trx.raw(`create temp table "${staging}" (like "${table}" including defaults) on commit drop`);
  await copyIn(copy.connection, `copy pg_temp."${staging}" (${copy.list}) from stdin`, rows, copy.line);
  await trx.raw(`insert into "${table}" (${copy.list}) select ${copy.list} from pg_temp."${staging}" on conflict (id) do ${updates ? `update set ${updates}` : 'nothing'}`);
  return true;
}

/**
 * The transaction's own pg connection (another knex's would take one from the pool and keep it), the column list and
 * each row as a COPY text line; null on PGlite, outside a transaction, or when a value has no plain text form.
 */
async function copyOf(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], columns: string[]): Promise<{ connection: pg.Client; list: string; line: (r: Record<string, unknown>) => string } | null> {
  if (!trx.isTransaction || rows.length === 0) return null;
  const connection = await (trx.client as { acquireConnection(): Promise<unknown> }).acquireConnection();
  if (!(connection instanceof pg.Client)) return null;
  const types = await trx.raw(`select attname as name, format_type(atttypid, null) in ('json', 'jsonb') as json from pg_attribute where attrelid = ?::regclass and attnum > 0 and not attisdropped`, [`"${table}"`]);
  const json = new Set((types.rows as { name: string; json: boolean }[]).filter((c) => c.json).map((c) => c.name));
  const plain = columns.filter((c) => !json.has(c));
  for (const r of rows) {
    for (const c of plain) {
      const v = r[c];
      if (v !== null && typeof v === 'object' && !(v instanceof Date)) return null;
    }
  }
  const fields = columns.map((c) => ({ c, encode: json.has(c) ? jsonField : plainField }));
  return { connection, list: columns.map((c) => `"${c}"`).join(', '), line: (r) => fields.map((f) => f.encode(r[f.c])).join('\t') };
}

function copyIn(connection: pg.Client, sql: string, rows: Record<string, unknown>[], line: (r: Record<string, unknown>) => string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const query = new pg.Query(sql, undefined, (err: Error | undefined) => (err ? reject(err) : resolve()));
    (query as unknown as { handleCopyInResponse(c: CopyConnection): void }).handleCopyInResponse = (c) => void send(c, rows, line);
    void connection.query(query);
  });
}

interface CopyConnection {
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

/** Sends the rows in chunks, letting the socket and the server work between them; a row that cannot be written fails the COPY. */
async function send(c: CopyConnection, rows: Record<string, unknown>[], line: (r: Record<string, unknown>) => string): Promise<void> {
  try {
    for (let i = 0; i < rows.length; i += COPY_CHUNK) {
      let text = '';
      for (const r of rows.slice(i, i + COPY_CHUNK)) text += `${line(r)}\n`;
      c.sendCopyFromChunk(Buffer.from(text));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    c.endCopyFrom();
  } catch (err) {
    c.sendCopyFail(err instanceof Error ? err.message : String(err));
  }
}

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// COPY's text format: backslash, newline, carriage return and tab escaped; \N is NULL.
function escape(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (m) => ESCAPES[m] ?? m) : text;
}

function jsonField(v: unknown): string {
  return v === null || v === undefined ? '\\N' : escape(JSON.stringify(v));
}

function plainField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return escape(v);
  if (v instanceof Date) return v.toISOString();
  // As JSON would give it: a number that JSON cannot hold is null.
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '\\N';
  return escape(String(v));
}
