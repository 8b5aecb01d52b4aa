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
import * as m0050 from './0050_security.ts';
import * as m0051 from './0051_es_append_claim.ts';
import * as m0052 from './0052_billing_catalogue.ts';
import * as m0053 from './0053_billing_entitlements.ts';
import * as m0054 from './0054_billing_exchange_rates.ts';
import * as m0055 from './0055_billing_payment_methods.ts';
import * as m0056 from './0056_billing_attachments.ts';
import * as m0057 from './0057_billing_attachment_retention.ts';
import * as m0058 from './0058_sandbox_provider_payments.ts';
import * as m0070 from './0070_assemblies.ts';
import * as m0075 from './0075_ingest.ts';
import * as m0076 from './0076_analytics.ts';
import * as m0060 from './0060_billing_configuration.ts';
import * as m0065 from './0065_billing_usage.ts';
import * as m0095 from './0095_es_append_events.ts';
import * as m0096 from './0096_projection_health.ts';
import * as m0097 from './0097_idempotency_key_expiry.ts';
import * as m0100 from './0100_billing_charges.ts';
import * as m0101 from './0101_sandbox_provider_refunds.ts';
import * as m0105 from './0105_billing_usage_late.ts';
import * as m0110 from './0110_billing_invoice_corrections.ts';
import * as m0111 from './0111_billing_usage_corrected.ts';
import * as m0115 from './0115_billing_collections.ts';
import * as m0125 from './0125_billing_messages.ts';
import * as m0120 from './0120_billing_events_actor.ts';
import * as m0123 from './0123_billing_search.ts';
import * as m0130 from './0130_billing_webhooks.ts';
import * as m0145 from './0145_data_subject_keys.ts';
import * as m0146 from './0146_billing_personal_subjects.ts';
import * as m0155 from './0155_log_rewrites.ts';
import * as m0160 from './0160_demo_seed_steps.ts';
import * as m0161 from './0161_es_append_one_live.ts';
import * as m0164 from './0164_billing_ledger_totals.ts';
import * as m0165 from './0165_data_subject_tombstones.ts';
import * as m0166 from './0166_es_append_one_keyed.ts';
import * as m0167 from './0167_reserved_subject_keys.ts';

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
  '0050_security': m0050,
  '0051_es_append_claim': m0051,
  '0052_billing_catalogue': m0052,
  '0053_billing_entitlements': m0053,
  '0054_billing_exchange_rates': m0054,
  '0055_billing_payment_methods': m0055,
  '0056_billing_attachments': m0056,
  '0057_billing_attachment_retention': m0057,
  '0058_sandbox_provider_payments': m0058,
  '0070_assemblies': m0070,
  '0075_ingest': m0075,
  '0076_analytics': m0076,
  '0060_billing_configuration': m0060,
  '0065_billing_usage': m0065,
  '0095_es_append_events': m0095,
  '0096_projection_health': m0096,
  '0097_idempotency_key_expiry': m0097,
  '0100_billing_charges': m0100,
  '0101_sandbox_provider_refunds': m0101,
  '0105_billing_usage_late': m0105,
  '0110_billing_invoice_corrections': m0110,
  '0111_billing_usage_corrected': m0111,
  '0115_billing_collections': m0115,
  '0125_billing_messages': m0125,
  '0120_billing_events_actor': m0120,
  '0123_billing_search': m0123,
  '0130_billing_webhooks': m0130,
  '0145_data_subject_keys': m0145,
  '0146_billing_personal_subjects': m0146,
  '0155_log_rewrites': m0155,
  '0160_demo_seed_steps': m0160,
  '0161_es_append_one_live': m0161,
  '0164_billing_ledger_totals': m0164,
  '0165_data_subject_tombstones': m0165,
  '0166_es_append_one_keyed': m0166,
  '0167_reserved_subject_keys': m0167,
};

/** Which log the schema serves: every migration on Postgres; with EventStoreDB the event-store tables are left out. */
export type EventLogKind = 'postgres' | 'esdb';

/** Migrations only the Postgres event log needs (its tables and append function). */
export const LOG_ONLY_MIGRATIONS = ['0001_eventstore', '0051_es_append_claim', '0095_es_append_events', '0155_log_rewrites', '0161_es_append_one_live'];

/** A knex migration source over the list above (no file-system loading, so it works under tsx and bundlers alike). */
export function migrationSourceFor(eventLog: EventLogKind): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => Object.keys(migrations).filter((m) => eventLog === 'postgres' || !LOG_ONLY_MIGRATIONS.includes(m)).sort(),
    getMigrationName: (name) => name,
    getMigration: async (name) => {
      const migration = migrations[name];
      if (!migration) throw new Error(`no migration named ${name}`);
      return migration;
    },
  };
}

/** The migration source of the Postgres event log (every migration). */
export const migrationSource: Knex.MigrationSource<string> = migrationSourceFor('postgres');

/**
 * Brings the schema up to date. With EventStoreDB (`esdb`) only read models, checkpoints and
 * infrastructure are created; a database that once held the Postgres log is accepted as it is, and
 * switching back to `postgres` later creates the log's tables then.
 */
export async function migrateLatest(knex: Knex, eventLog: EventLogKind = 'postgres'): Promise<string[]> {
  // Most starts have nothing to apply: two small queries say so, where knex's migrator sends thirteen (catalog views,
  // its lock row, a transaction), which took 1.7 s of a restart on PGlite with its catalog still cold (issue 31).
  if (await upToDate(knex, await migrationSourceFor(eventLog).getMigrations([]))) return [];
  const [, applied] = (await knex.migrate.latest({ migrationSource: migrationSourceFor(eventLog), disableMigrationsListValidation: eventLog !== 'postgres' })) as [number, string[]];
  return applied;
}

// Whether exactly these migrations are recorded as applied (committed): then knex would find nothing to do either.
async function upToDate(knex: Knex, names: string[]): Promise<boolean> {
  const present = await knex.raw("select to_regclass('knex_migrations') is not null as present");
  if (!(present.rows[0] as { present: boolean }).present) return false;
  const applied = new Set(((await knex('knex_migrations').select('name')) as { name: string }[]).map((r) => r.name));
  return applied.size === names.length && names.every((n) => applied.has(n));
}
