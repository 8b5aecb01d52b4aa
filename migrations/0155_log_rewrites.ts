// The one log rewrite (issue 32, `core-server log encrypt-personal-data`): the backups `core-server log backup` made
// (checksum, how much of the log they hold), which the rewrite verifies before it changes anything, and the rewrite's
// checkpoint, so a killed run continues after the last batch it committed.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table es_log_backups (
      sha256 text primary key,
      file text not null,
      events bigint not null,
      last_xid text,
      last_position bigint,
      made_at timestamptz not null
    );
    --;
    create table es_log_rewrites (
      name text primary key,
      backup_sha256 text not null,
      after_xid text,
      after_position bigint,
      report jsonb not null,
      started_at timestamptz not null,
      updated_at timestamptz not null,
      finished_at timestamptz
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists es_log_rewrites; drop table if exists es_log_backups;`);
}
