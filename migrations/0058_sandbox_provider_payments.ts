// The sandbox payment provider's own records of payments (its "servers"; not a read model, not domain history).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table sandbox_provider_payments (
      id text primary key,
      idempotency_key text not null unique,
      doc jsonb not null
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists sandbox_provider_payments;
    --;`);
}
