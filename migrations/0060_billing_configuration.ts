// Read models of billing configuration (owned by projections/billing/configuration/configuration.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_config_relationships (
      id uuid primary key,
      subscription_id uuid not null,
      seller uuid not null,
      buyer uuid not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create unique index billing_config_relationships_pair on billing_config_relationships (subscription_id, seller, buyer);
    --;
    create index billing_config_relationships_list on billing_config_relationships (subscription_id, created_at, id);
    --;
    create table billing_config_revisions (
      id uuid primary key,
      subscription_id uuid not null,
      kind text not null,
      sequence integer not null,
      effective_from timestamptz not null,
      effective_to timestamptz,
      recorded_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_config_revisions_latest on billing_config_revisions (subscription_id, kind, sequence desc);
    --;
    create table billing_config_history (
      id uuid primary key,
      subscription_id uuid not null,
      recorded_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_config_history_recent on billing_config_history (subscription_id, recorded_at desc, id desc);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_config_history;
    --;
    drop table if exists billing_config_revisions;
    --;
    drop table if exists billing_config_relationships;
    --;`);
}
