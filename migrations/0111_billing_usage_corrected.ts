// Corrected usage (issue 26 section 4): the orders staff voided or replaced, found without reading every order, so
// Needs attention can show the invoices whose orders changed after they were invoiced (usage_correction_due).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create index if not exists billing_usage_corrected on billing_usage (order_id) where voided or revision > 0;
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop index if exists billing_usage_corrected;
    --;
  `);
}
