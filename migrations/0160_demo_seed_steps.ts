// demo_seed_steps: the demo seed's journal (issue 30). Each step `start` seeds is recorded with what it made, once it
// is done, so a start killed mid-seed completes the seed on its next start; the `anchor` row fixes when the story
// happens, the `complete` row is written last.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table demo_seed_steps (
      step text primary key,
      result text not null,
      done_at timestamptz not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists demo_seed_steps;`);
}
