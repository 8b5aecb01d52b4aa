// billing_collections: where automatic collection of each invoice stands (its last attempt), so failed collections
// are listed for billing staff (Needs attention, issue 26) instead of living only in the collection streams.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_collections (
      id uuid primary key,
      failing boolean not null,
      doc jsonb not null
    );
    --;
    create index billing_collections_failing on billing_collections (id) where failing;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_collections;`);
}
