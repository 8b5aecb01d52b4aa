// billing_ledger_totals: a customer's ledger summed per (currency, entry date, due date of the invoice), kept by
// projections/billing/statements.ts beside billing_ledger_entries. A statement's opening balance, unapplied credit
// and ageing read these sums (one row per day and due date) instead of every entry of the customer's history (issue 31).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_ledger_totals (
      id text primary key,
      customer_id uuid not null,
      currency text not null,
      entry_date text not null,
      due_date text,
      net bigint not null,
      item_effect bigint not null,
      balance_credit bigint not null,
      doc jsonb not null
    );
    --;
    create index billing_ledger_totals_customer on billing_ledger_totals (customer_id, currency, entry_date);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_ledger_totals;`);
}
