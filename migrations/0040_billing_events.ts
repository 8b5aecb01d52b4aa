// Read model of the public billing event feed (owned by projections/billing/events.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_events (
      id uuid primary key,
      position text not null unique,
      organization_id uuid,
      staff_only boolean not null,
      type text not null,
      occurred_at timestamptz not null,
      subject_type text not null,
      subject_id uuid not null,
      doc jsonb not null
    );
    --;
    create index billing_events_org on billing_events (organization_id, staff_only, position);
    --;
    create index billing_events_subject on billing_events (subject_type, subject_id, position);
    --;
    create index billing_events_type on billing_events (type, position);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_events;
    --;`);
}
