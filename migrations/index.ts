// Every schema migration, in order. knex records which have run in knex_migrations.
import type { Knex } from 'knex';
import * as m0001 from './0001_eventstore.ts';
import * as m0002 from './0002_infrastructure.ts';
import * as m0003 from './0003_identity.ts';
import * as m0004 from './0004_billing_customers.ts';
import * as m0010 from './0010_integrations.ts';
import * as m0011 from './0011_access_code_pkce.ts';
import * as m0020 from './0020_jobs.ts';
import * as m0030 from './0030_billing_invoices.ts';
import * as m0040 from './0040_billing_events.ts';
import * as m0041 from './0041_billing_statements.ts';
import * as m0050 from './0050_es_append_claim.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Record<string, Migration> = {
  '0001_eventstore': m0001,
  '0002_infrastructure': m0002,
  '0003_identity': m0003,
  '0004_billing_customers': m0004,
  '0010_integrations': m0010,
  '0011_access_code_pkce': m0011,
  '0020_jobs': m0020,
  '0030_billing_invoices': m0030,
  '0040_billing_events': m0040,
  '0041_billing_statements': m0041,
  '0050_es_append_claim': m0050,
};

/** A knex migration source over the list above (no file-system loading, so it works under tsx and bundlers alike). */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

/** Brings the schema up to date. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

