// Indexes of the console's search (billing.search.list, issue 28): a case-insensitive prefix of a customer's name or
// email, an invoice number, a payment reference and an organization's name. lower()/upper() expression indexes with
// text_pattern_ops serve `like 'prefix%'` under any collation, on Postgres and PGlite alike (no extension needed).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create index billing_customers_name_prefix on billing_customers (lower(name) text_pattern_ops);
    --;
    create index billing_customers_email_prefix on billing_customers (lower(email) text_pattern_ops);
    --;
    create index billing_invoices_number_prefix on billing_invoices (upper(number) text_pattern_ops);
    --;
    create index billing_payments_reference_prefix on billing_payments (lower(doc->>'reference') text_pattern_ops);
    --;
    create index identity_organizations_name_prefix on identity_organizations (lower(name) text_pattern_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop index if exists identity_organizations_name_prefix;
    --;
    drop index if exists billing_payments_reference_prefix;
    --;
    drop index if exists billing_invoices_number_prefix;
    --;
    drop index if exists billing_customers_email_prefix;
    --;
    drop index if exists billing_customers_name_prefix;`);
}
