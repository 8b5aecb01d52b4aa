// data_subject_keys: a reserved subject's key (`system:...`, e.g. `system:email-claims`, the key that names email claim
// streams) is never tombstoned (issue 32). The code refuses such an erasure first, with a clear message; this check
// keeps the table itself from losing the key, which would make every keyed claim stream unfindable.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table data_subject_keys add constraint data_subject_keys_reserved_kept check (subject not like 'system:%' or key is not null);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `alter table data_subject_keys drop constraint if exists data_subject_keys_reserved_kept;`);
}
