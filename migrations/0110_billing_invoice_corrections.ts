// Read model of re-rating corrections of usage invoices and the orders behind their lines
// (owned by projections/billing/invoice-corrections.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_invoice_corrections (
      id uuid primary key,
      invoice_id uuid not null,
      basis int not null,
      recorded_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_invoice_corrections_invoice on billing_invoice_corrections (invoice_id, basis);
    --;
    create table billing_invoice_correction_orders (
      id text primary key,
      correction_id uuid not null,
      invoice_id uuid not null,
      line_index int not null,
      seq int not null,
      order_id text not null,
      doc jsonb not null
    );
    --;
    create index billing_invoice_correction_orders_line on billing_invoice_correction_orders (correction_id, line_index, seq);
    --;
    create index billing_invoice_correction_orders_order on billing_invoice_correction_orders (invoice_id, order_id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_invoice_correction_orders;
    --;
    drop table if exists billing_invoice_corrections;
    --;`);
}
