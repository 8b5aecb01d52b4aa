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
  /** An amount in minor units (a `bigint` column). */
  minor: z.int().min(-1e15).max(1e15),
  /** A name (a `text` column sorted on, up to 200 characters). */
  name: z.string().max(200),
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
  opts: { columns: string[]; shape: CursorShape; limit: number; cursor?: string; key: (row: R) => (string | number)[]; descending?: boolean },
): Promise<{ rows: R[]; pagination: { cursor: string } | null }> {
  if (opts.shape.def.items.length !== opts.columns.length) throw new Error(`keysetPage: a cursor of ${opts.shape.def.items.length} parts for ${opts.columns.length} columns`);
  if (opts.cursor) {
    const after = decodeCursor(opts.cursor, opts.shape);
    query.whereRaw(`(${opts.columns.map(() => '??').join(', ')}) ${opts.descending ? '<' : '>'} (${opts.columns.map(() => '?').join(', ')})`, [...opts.columns, ...after]);
  }
  for (const c of opts.columns) query.orderBy(c, opts.descending ? 'desc' : 'asc');
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

/** A sort a list offers besides its default (created_at, oldest first): a NOT NULL column, what its cursor holds, how to read it from the row. */
export interface SortKey {
  column: string;
  part: z.ZodType<string | number>;
  value: (row: Record<string, unknown>) => string | number;
}

/** The created_at sort every document list has. */
export const CREATED_AT: SortKey = { column: 'created_at', part: cursorParts.instant, value: (r) => new Date(String(r.created_at instanceof Date ? r.created_at.toISOString() : r.created_at)).toISOString() };

/**
 * A page of document rows sorted by `sort` (a key of `keys`; a leading `-` for descending), then id; the rows must
 * select the sort column. `sort` undefined is the spec's order: created_at, oldest first. A cursor is valid only for
 * the sort that made it (another sort's value fails its shape: 400).
 */
export async function sortedDocumentPage<D>(query: Knex.QueryBuilder, page: { limit: number; cursor?: string; sort?: string }, keys: Record<string, SortKey>): Promise<{ docs: D[]; pagination: { cursor: string } | null }> {
  const name = (page.sort ?? 'created_at').replace(/^-/, '');
  const key = keys[name] ?? CREATED_AT;
  const res = await keysetPage<{ id: string; doc: D } & Record<string, unknown>>(query, {
    columns: [key.column, 'id'],
    shape: cursorShape(key.part, cursorParts.uuid),
    limit: page.limit,
    cursor: page.cursor,
    descending: page.sort?.startsWith('-') ?? false,
    key: (r) => [key.value(r), r.id],
  });
  return { docs: res.rows.map((r) => r.doc), pagination: res.pagination };
}

/** How many rows `query` matches in all (its filters, not its page): the `total_count` a list gives when asked for it. */
export async function totalCount(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.clone().clearSelect().clearOrder().count<{ n: string | number }[]>('* as n').first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}
