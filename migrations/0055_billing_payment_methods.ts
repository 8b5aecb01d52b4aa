// Read models of payment-method setups and collection profiles (projections/billing/payment-methods.ts) and the sandbox provider's own records.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_payment_method_setups (
      id uuid primary key,
      customer_id uuid not null,
      status text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_payment_method_setups_customer on billing_payment_method_setups (customer_id, created_at);
    --;
    create table billing_payment_profiles (
      id uuid primary key,
      auto_collection boolean not null,
      doc jsonb not null
    );
    --;
    create table sandbox_provider_setups (
      id text primary key,
      doc jsonb not null
    );
    --;
    create table sandbox_provider_charges (
      idempotency_key text primary key,
      doc jsonb not null
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists sandbox_provider_charges;
    --;
    drop table if exists sandbox_provider_setups;
    --;
    drop table if exists billing_payment_profiles;
    --;
    drop table if exists billing_payment_method_setups;
    --;`);
}
