// Removed attachments stay in billing_attachments until their retention ends (owned by projections/billing/attachments.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table billing_attachments add column removed_at timestamptz;
    --;
    create index billing_attachments_removed on billing_attachments (removed_at) where status = 'removed';
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop index if exists billing_attachments_removed;
    --;
    alter table billing_attachments drop column if exists removed_at;
    --;
  `);
}
