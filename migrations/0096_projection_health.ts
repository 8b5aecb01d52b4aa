// What an operator must see and act on when the log cannot be read as it should: a projection stopped at an
// event (its failure), the events an operator chose to skip for a projection (who, when, why), and streams
// that a command or the audit trail met with an event that does not read. Plain tables: operations state, not
// domain history (see docs/decisions.md, issue 25).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table projection_checkpoints add column failure jsonb;
    --;
    create table projection_skips (
      projection text not null,
      event_id uuid not null,
      stream_id text not null,
      position text not null,
      type text not null,
      reason text not null,
      actor text not null,
      skipped_at timestamptz not null,
      primary key (projection, event_id)
    );
    --;
    create index projection_skips_stream on projection_skips (stream_id);
    --;
    create table unreadable_streams (
      stream_id text primary key,
      event_id uuid not null,
      revision bigint not null,
      type text not null,
      error text not null,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists unreadable_streams; drop table if exists projection_skips;
    --;
    alter table projection_checkpoints drop column if exists failure;
    --;`);
}
