// The sandbox payment provider's own records (its "servers"): when each charge was made (so it can list charges since an instant,
// for reconciliation) and the refunds it made (one per idempotency key).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table sandbox_provider_charges add column created_at timestamptz;
    --;
    create index sandbox_provider_charges_created on sandbox_provider_charges (created_at);
    --;
    create table sandbox_provider_refunds (
      idempotency_key text primary key,
      charge_ref text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index sandbox_provider_refunds_charge on sandbox_provider_refunds (charge_ref);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop table if exists sandbox_provider_refunds;
    --;
    drop index if exists sandbox_provider_charges_created;
    --;
    alter table sandbox_provider_charges drop column if exists created_at;
    --;
  `);
}
