// Read models of the analytics area (projection analytics.events): the events and their counts per name and day.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table analytics_events (
      id uuid primary key,
      organization_id uuid not null,
      name text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index analytics_events_by_time on analytics_events (organization_id, created_at, id);
    --;
    create index analytics_events_by_name on analytics_events (organization_id, name, created_at, id);
    --;
    create table analytics_daily_counts (
      id uuid primary key,
      organization_id uuid not null,
      day date not null,
      name text not null,
      count bigint not null,
      doc jsonb not null
    );
    --;
    create unique index analytics_daily_counts_key on analytics_daily_counts (organization_id, day, name);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists analytics_daily_counts;
    --;
    drop table if exists analytics_events;
    --;`);
}
