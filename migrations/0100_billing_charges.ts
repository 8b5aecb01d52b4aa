// billing.charges (issue 26, refunds due): every provider charge the service knows, what of it was applied and how staff resolved
// the rest (read by queries/billing/charges.ts), and the few facts its builder keeps to attribute a charge (billing_charge_sources).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_charges (
      id text primary key,
      organization_id text,
      customer_id text,
      status text not null,
      since timestamptz,
      doc jsonb not null
    );
    --;
    create index billing_charges_due on billing_charges (status, since, id);
    --;
    create index billing_charges_customer on billing_charges (customer_id, status, since, id);
    --;
    create table billing_charge_sources (
      id text primary key,
      doc jsonb not null
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop table if exists billing_charge_sources;
    --;
    drop table if exists billing_charges;
    --;
  `);
}
