// One read-model document by its id: the `doc` column of a document table (src/projections/documents/).
import type { Db } from '../db.ts';
import { type NamedStatement, pooledQuery } from '../pooled-query.ts';

const statements = new Map<string, NamedStatement>();

/** SQL of `table`'s document row by id (`$1`), for a statement that reads it in the same round trip as other rows. */
export function documentByIdSql(table: string): string {
  return `select doc from "${table}" where id = $1`;
}

/**
 * The document `id` of `table`, or null. Named per table, so Postgres parses and plans it once per
 * connection: a write answered from the read model, or checked against it, reads one of these.
 */
export async function documentById<D>(db: Db, table: string, id: string): Promise<D | null> {
  let statement = statements.get(table);
  if (!statement) statements.set(table, (statement = { name: `doc_by_id_${table}`, text: documentByIdSql(table) }));
  const [row] = await pooledQuery<{ doc: D }>(db, statement, [id]);
  return row?.doc ?? null;
}
