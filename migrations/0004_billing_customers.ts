// Read models of billing customers and notes (owned by projections/billing/customers.ts and notes.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_customers (
      id uuid primary key,
      organization_id uuid not null,
      status text not null,
      name text not null,
      email text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_customers_org on billing_customers (organization_id, created_at, id);
    --;
    create index billing_customers_page on billing_customers (created_at, id);
    --;
    create table billing_notes (
      id uuid primary key,
      subject_type text not null,
      subject_id uuid not null,
      organization_id uuid not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_notes_subject on billing_notes (subject_type, subject_id, created_at, id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_notes; drop table if exists billing_customers;
    --;`);
}
