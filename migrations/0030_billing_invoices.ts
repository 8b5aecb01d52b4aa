// Read models of invoices, payments and credit note requests (owned by projections/billing/invoices.ts and credit-note-requests.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_invoices (
      id uuid primary key,
      organization_id uuid not null,
      customer_id uuid not null,
      status text not null,
      currency text not null,
      number text,
      issue_date date,
      due_date date,
      total bigint not null,
      amount_remaining bigint not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_invoices_page on billing_invoices (created_at, id);
    --;
    create index billing_invoices_org on billing_invoices (organization_id, created_at, id);
    --;
    create index billing_invoices_customer on billing_invoices (customer_id, created_at, id);
    --;
    create index billing_invoices_customer_status on billing_invoices (customer_id, status, created_at, id);
    --;
    create index billing_invoices_status on billing_invoices (status, created_at, id);
    --;
    create index billing_invoices_due on billing_invoices (status, due_date);
    --;
    create unique index billing_invoices_number on billing_invoices (number);
    --;
    create table billing_payments (
      id uuid primary key,
      invoice_id uuid not null,
      organization_id uuid not null,
      customer_id uuid not null,
      status text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_payments_invoice on billing_payments (invoice_id, created_at, id);
    --;
    create index billing_payments_customer on billing_payments (customer_id, created_at, id);
    --;
    create index billing_payments_page on billing_payments (organization_id, created_at, id);
    --;
    create table billing_credit_note_requests (
      id uuid primary key,
      invoice_id uuid not null,
      organization_id uuid not null,
      customer_id uuid not null,
      status text not null,
      reason text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_cnr_page on billing_credit_note_requests (created_at, id);
    --;
    create index billing_cnr_org on billing_credit_note_requests (organization_id, created_at, id);
    --;
    create index billing_cnr_invoice on billing_credit_note_requests (invoice_id, created_at, id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_credit_note_requests;
    --;
    drop table if exists billing_payments;
    --;
    drop table if exists billing_invoices;
    --;`);
}
