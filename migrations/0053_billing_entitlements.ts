// Read models of entitlements, overrides and subscriptions (owned by projections/billing/entitlements.ts, entitlement-overrides.ts and subscriptions.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_entitlements (
      id text primary key,
      doc jsonb not null
    );
    --;
    create table billing_entitlement_overrides (
      id uuid primary key,
      organization_id uuid not null,
      entitlement_key text not null,
      doc jsonb not null
    );
    --;
    create index billing_entitlement_overrides_org on billing_entitlement_overrides (organization_id, entitlement_key);
    --;
    create table billing_subscriptions (
      id uuid primary key,
      organization_id uuid not null,
      status text not null,
      created_at timestamptz not null,
      doc jsonb not null
    );
    --;
    create index billing_subscriptions_org on billing_subscriptions (organization_id, status);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists billing_subscriptions;
    --;
    drop table if exists billing_entitlement_overrides;
    --;
    drop table if exists billing_entitlements;
    --;`);
}
