// Read models of usage facts and of the orders behind generated invoices' metered lines
// (owned by projections/billing/usage.ts and projections/billing/invoice-orders.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_usage (
      id uuid primary key,
      order_id text not null unique,
      subscription_id uuid not null,
      seller_id uuid not null,
      buyer_id uuid not null,
      amount bigint not null,
      currency text not null,
      occurred_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_usage_rating on billing_usage (subscription_id, occurred_at, order_id);
    --;
    create table billing_invoice_orders (
      id text primary key,
      invoice_id uuid not null,
      line_index int not null,
      seq int not null,
      order_id text not null,
      fee bigint not null,
      doc jsonb not null
    );
    --;
    create index billing_invoice_orders_line on billing_invoice_orders (invoice_id, line_index, seq);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_invoice_orders;
    --;
    drop table if exists billing_usage;
    --;`);
}
