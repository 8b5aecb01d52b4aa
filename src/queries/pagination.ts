// Keyset pagination: opaque base64url cursors over (sort value, id), stable under concurrent inserts.
import type { Knex } from 'knex';
import { ApiError } from '../api/errors.ts';

/** Encodes the last row's sort key. */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor; a malformed one is a 400. */
export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === arity && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v;
  } catch {
    // fall through
  }
  throw invalidCursor();
}

function invalidCursor(): ApiError {
  return new ApiError(400, 'invalid_cursor', 'The cursor is not one this list returned.', { issues: [{ path: 'cursor', message: 'invalid cursor' }] });
}

/**
 * Runs a keyset page over `query` ordered by `columns` ascending (the last one unique). Fetches one
 * extra row to know whether there is a next page.
 */
export async function keysetPage<R extends Record<string, unknown>>(
  query: Knex.QueryBuilder,
  opts: { columns: string[]; limit: number; cursor?: string; key: (row: R) => (string | number)[] },
): Promise<{ rows: R[]; pagination: { cursor: string } | null }> {
  if (opts.cursor) {
    const after = decodeCursor(opts.cursor, opts.columns.length);
    query.whereRaw(`(${opts.columns.map(() => '??').join(', ')}) > (${opts.columns.map(() => '?').join(', ')})`, [...opts.columns, ...after]);
  }
  for (const c of opts.columns) query.orderBy(c, 'asc');
  let rows: R[];
  try {
    rows = (await query.limit(opts.limit + 1)) as R[];
  } catch (err) {
    // A forged cursor whose values do not fit the columns (a "date" that is not one, say): SQLSTATE class 22, data exception.
    if (opts.cursor && /^22/.test(String((err as { code?: unknown }).code))) throw invalidCursor();
    throw err;
  }
  const pageRows = rows.slice(0, opts.limit);
  const last = pageRows.at(-1);
  return { rows: pageRows, pagination: rows.length > opts.limit && last ? { cursor: encodeCursor(opts.key(last)) } : null };
}

/** A page of document rows (`id`, `created_at`, `doc`) oldest first, keyed on (created_at, id): the shape every document list shares. */
export async function documentPage<D>(query: Knex.QueryBuilder, page: { limit: number; cursor?: string }): Promise<{ docs: D[]; pagination: { cursor: string } | null }> {
  const res = await keysetPage<{ id: string; created_at: Date; doc: D }>(query, {
    columns: ['created_at', 'id'],
    limit: page.limit,
    cursor: page.cursor,
    key: (r) => [new Date(r.created_at).toISOString(), r.id],
  });
  return { docs: res.rows.map((r) => r.doc), pagination: res.pagination };
}
