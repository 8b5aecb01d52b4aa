// PKCE (RFC 7636, S256) on access codes: the challenge the authorize request carried, checked at the exchange.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `alter table integration_access_codes add column code_challenge text;
    --;`);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `alter table integration_access_codes drop column if exists code_challenge;
    --;`);
}
