// Integration clients and installations (read models of projections/integrations/integrations.ts) and access codes (a plain table).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table integration_clients (id uuid primary key, name text not null, doc jsonb not null);
    --;
    create table integration_installs (
      id uuid primary key,
      client_id uuid not null,
      organization_id uuid not null,
      status text not null,
      api_key_hash text not null,
      doc jsonb not null
    );
    --;
    create unique index integration_installs_key on integration_installs (api_key_hash);
    --;
    create index integration_installs_org on integration_installs (organization_id, id);
    --;
    create table integration_access_codes (
      code_hash text primary key,
      client_id uuid not null,
      redirect_url text not null,
      user_id uuid not null,
      organization_id uuid not null,
      scopes jsonb not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      integration_id uuid
    );
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists integration_access_codes; drop table if exists integration_installs; drop table if exists integration_clients;
    --;`);
}
