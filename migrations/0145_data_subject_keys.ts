// data_subject_keys: one AES-256-GCM key per data subject (issue 32), outside the log. Erasing a subject nulls its key
// and keeps the row as a tombstone, so a value written for an erased subject later is never encrypted with a new key.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table data_subject_keys (
      subject text primary key,
      key bytea,
      created_at timestamptz not null,
      erased_at timestamptz
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists data_subject_keys;`);
}
