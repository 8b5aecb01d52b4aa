// Read models of the billing catalogue (owned by projections/billing/products.ts, prices.ts and currencies.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_products (
      id uuid primary key,
      active boolean not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_products_page on billing_products (created_at, id);
    --;
    create table billing_prices (
      id uuid primary key,
      product_id uuid not null,
      currency text not null,
      active boolean not null,
      type text not null,
      lookup_key text,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_prices_page on billing_prices (created_at, id);
    --;
    create index billing_prices_product on billing_prices (product_id, created_at, id);
    --;
    create index billing_prices_lookup_key on billing_prices (lookup_key) where lookup_key is not null;
    --;
    create table billing_currency_settings (
      id text primary key,
      enabled_for_billing boolean not null,
      doc jsonb not null
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_currency_settings;
    --;
    drop table if exists billing_prices;
    --;
    drop table if exists billing_products;
    --;`);
}
