// Read model of exchange rates (owned by projections/billing/exchange-rates.ts). Rates stay text: they are decimal strings.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_exchange_rates (
      id text primary key,
      base text not null,
      target text not null,
      as_of timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_exchange_rates_latest on billing_exchange_rates (target, base, as_of desc);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_exchange_rates;
    --;`);
}
