// One statement on a pooled connection, past knex's query building (the hot statements: the log's, and reads every write makes).
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Db } from './db.ts';

/** A statement with a name: on Postgres a prepared statement, parsed and planned once per connection. */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * Runs `statement` with `values` ($1, $2, ...) on a connection taken from knex's pool and given back after,
 * so it queues with every other query (on PGlite: its one connection, in turn, never inside another's
 * transaction). Skips knex's binding rewrite, query events and response wrapping. `rows` (Postgres): rows as
 * arrays and the column parsers to use (TEXT_ROWS: every column as the server's text).
 */
export async function pooledQuery<R>(db: Db, statement: NamedStatement, values: unknown[], rows?: { rowMode: 'array'; types?: pg.CustomTypesConfig }): Promise<R[]> {
  const client = db.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    if (db.kind === 'pglite') {
      if (rows) throw new Error('pooledQuery: row options are for Postgres (PGlite parses every column itself)');
      return (await (connection as PGlite).query<R>(statement.text, values)).rows;
    }
    if (rows) return (await (connection as pg.Client).query({ ...statement, ...rows, values })).rows as R[];
    return (await (connection as pg.Client).query<R & pg.QueryResultRow>({ ...statement, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
