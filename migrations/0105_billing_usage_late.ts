// Late usage, corrections and held orders (issue 26): an order's correction state in billing_usage, the orders' invoices
// found by order id, and billing_usage_months (held orders and the usage invoice worker's refusals per subscription month).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table billing_usage add column if not exists voided boolean not null default false;
    --;
    alter table billing_usage add column if not exists revision int not null default 0;
    --;
    create index if not exists billing_invoice_orders_order on billing_invoice_orders (order_id);
    --;
    create table if not exists billing_usage_months (
      id uuid primary key,
      subscription_id uuid not null,
      period text not null,
      refused boolean not null,
      refused_since timestamptz,
      doc jsonb not null
    );
    --;
    create index if not exists billing_usage_months_month on billing_usage_months (subscription_id, period);
    --;
    create index if not exists billing_usage_months_refused on billing_usage_months (refused_since) where refused;
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop table if exists billing_usage_months;
    --;
    drop index if exists billing_invoice_orders_order;
    --;
    alter table billing_usage drop column if exists revision;
    --;
    alter table billing_usage drop column if exists voided;
    --;
  `);
}
