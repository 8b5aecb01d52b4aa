// Identity read models (owned by projections/identity/identity.ts).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table identity_users (id uuid primary key, email text not null unique, doc jsonb not null);
    --;
    create table identity_organizations (id uuid primary key, name text not null, kind text not null, doc jsonb not null);
    --;
    create table identity_memberships (id text primary key, organization_id uuid not null, user_id uuid not null, role text not null, doc jsonb not null);
    --;
    create index identity_memberships_user on identity_memberships (user_id, organization_id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists identity_memberships; drop table if exists identity_organizations; drop table if exists identity_users;
    --;`);
}
