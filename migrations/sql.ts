// Helper for migrations written as SQL.
/** Runs SQL statements one by one (PGlite's extended protocol takes one statement per query). Separate them with a line `--;`. */
export async function runStatements(knex: { raw(sql: string): PromiseLike<unknown> }, sql: string): Promise<void> {
  for (const statement of sql.split(/^\s*--;\s*$/m)) {
    if (statement.trim()) await knex.raw(statement);
  }
}
