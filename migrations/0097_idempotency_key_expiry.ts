// The idempotency-key purge (src/api/idempotency.ts) deletes keys older than 24 h: by creation time, through this index.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create index if not exists idempotency_keys_created_at on idempotency_keys (created_at);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop index if exists idempotency_keys_created_at;
    --;
  `);
}
