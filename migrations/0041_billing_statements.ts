// Read models of statements, receivables and access suspension (owned by projections/billing/statements.ts and access.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_ledger_entries (
      id text primary key,
      customer_id uuid not null,
      organization_id uuid not null,
      invoice_id uuid,
      currency text not null,
      entry_date text not null,
      seq text not null,
      debit bigint not null,
      credit bigint not null,
      item_effect bigint not null,
      balance_credit bigint not null,
      doc jsonb not null
    );
    --;
    create index billing_ledger_entries_customer on billing_ledger_entries (customer_id, currency, entry_date, seq);
    --;
    create table billing_receivables (
      id uuid primary key,
      organization_id uuid not null,
      customer_id uuid not null,
      currency text not null,
      status text not null,
      due_date text not null,
      amount_remaining bigint not null,
      doc jsonb not null
    );
    --;
    create index billing_receivables_org on billing_receivables (organization_id, status, due_date);
    --;
    create index billing_receivables_due on billing_receivables (status, due_date);
    --;
    create index billing_receivables_customer on billing_receivables (customer_id);
    --;
    create table billing_access (
      id uuid primary key,
      organization_id uuid not null,
      suspended boolean not null,
      doc jsonb not null
    );
    --;
    create index billing_access_org on billing_access (organization_id);
    --;
    create index billing_access_suspended on billing_access (suspended) where suspended;
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_access;
    --;
    drop table if exists billing_receivables;
    --;
    drop table if exists billing_ledger_entries;
    --;`);
}
