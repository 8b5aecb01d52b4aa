// Read model of repair jobs (owned by projections/jobs/jobs.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table jobs (
      id uuid primary key,
      organization_id uuid not null,
      client_id uuid,
      external_id text,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index jobs_external on jobs (organization_id, client_id, external_id);
    --;
    create index jobs_org on jobs (organization_id, created_at, id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists jobs;
    --;`);
}
