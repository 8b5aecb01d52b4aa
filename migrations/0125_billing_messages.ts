// billing_messages: customer emails (issue 28), by customer for the customer page, by status and retry time for the worker.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_messages (
      id uuid primary key,
      organization_id uuid not null,
      customer_id uuid not null,
      status text not null,
      transport text,
      next_attempt_at timestamptz,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_messages_customer on billing_messages (customer_id, created_at, id);
    --;
    create index billing_messages_created on billing_messages (created_at, id);
    --;
    create index billing_messages_pending on billing_messages (next_attempt_at) where status = 'pending';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_messages;`);
}
