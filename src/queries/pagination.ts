// Keyset pagination: opaque base64url cursors over (sort value, id), stable under concurrent inserts. A cursor
// is read back through the shape of what this list writes into it, so a forged one is a 400, never a query.
import type { Knex } from 'knex';
import { z } from 'zod';
import { EventName } from '../contract/schemas/analytics.ts';
import { RequestDate, Uuid, inRange } from '../contract/schemas/common.ts';
import { commonErrors, type DomainError } from '../domain/errors.ts';

/** The parts a cursor is made of, each exactly as the service writes it (and in range for the database). */
export const cursorParts = {
  /** An instant as `toISOString` writes it, in the years 1900-9999. */
  instant: z.iso.datetime({ precision: 3 }).refine(inRange),
  /** A row id. */
  uuid: Uuid,
  /** A log position token (`pg1:<xid>:<position>`, `esdb1:<commit>:<prepare>`). */
  position: z.string().max(64).regex(/^[a-z][a-z0-9]*:\d{1,20}:\d{1,20}$/),
  /** A line number, index or sequence stored in an `integer` column. */
  index: z.int().min(0).max(2_147_483_647),
  /** A stream revision. */
  revision: z.int().min(0),
  /** A calendar day, `YYYY-MM-DD`, in the years 1900-9999. */
  day: RequestDate,
  /** An analytics event name. */
  eventName: EventName,
  /** An attention item's key (`<kind>:<subject>`). */
  attentionKey: z.string().min(1).max(300).regex(/^[a-z_]+:/),
  /** A SKU (1-100 characters). */
  sku: z.string().min(1).max(100),
};

/** What one list's cursors hold, in order. */
export type CursorShape = z.ZodTuple<[z.ZodType<string | number>, ...z.ZodType<string | number>[]], null>;

/** The shape of a cursor made of these parts. */
export function cursorShape<const T extends [z.ZodType<string | number>, ...z.ZodType<string | number>[]]>(...parts: T): z.ZodTuple<T, null> {
  return z.tuple(parts);
}

/** Encodes the last row's sort key. */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor to the values of `shape`; anything else (not base64url JSON, another shape, a value out of range) is a 400. */
export function decodeCursor<S extends CursorShape>(cursor: string, shape: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw invalidCursor();
  return parsed.data;
}

function invalidCursor(): DomainError {
  return commonErrors.error('invalid_cursor', 'The cursor is not one this list returned.', { issues: [{ path: 'cursor', message: 'invalid cursor' }] });
}

/**
 * Runs a keyset page over `query` ordered by `columns` ascending (the last one unique); `shape` is what the
 * cursor holds for them. Fetches one extra row to know whether there is a next page.
 */
export async function keysetPage<R extends Record<string, unknown>>(
  query: Knex.QueryBuilder,
  opts: { columns: string[]; shape: CursorShape; limit: number; cursor?: string; key: (row: R) => (string | number)[] },
): Promise<{ rows: R[]; pagination: { cursor: string } | null }> {
  if (opts.shape.def.items.length !== opts.columns.length) throw new Error(`keysetPage: a cursor of ${opts.shape.def.items.length} parts for ${opts.columns.length} columns`);
  if (opts.cursor) {
    const after = decodeCursor(opts.cursor, opts.shape);
    query.whereRaw(`(${opts.columns.map(() => '??').join(', ')}) > (${opts.columns.map(() => '?').join(', ')})`, [...opts.columns, ...after]);
  }
  for (const c of opts.columns) query.orderBy(c, 'asc');
  let rows: R[];
  try {
    rows = (await query.limit(opts.limit + 1)) as R[];
  } catch (err) {
    // Defence in depth: a cursor that passed its shape but still does not fit the columns is a data exception (SQLSTATE class 22).
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
    shape: cursorShape(cursorParts.instant, cursorParts.uuid),
    limit: page.limit,
    cursor: page.cursor,
    key: (r) => [new Date(r.created_at).toISOString(), r.id],
  });
  return { docs: res.rows.map((r) => r.doc), pagination: res.pagination };
}
