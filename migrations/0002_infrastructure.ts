// Plain tables that are not domain history: projection checkpoints, idempotency records, sessions.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table projection_checkpoints (
      name text primary key,
      version int not null,
      position text,
      updated_at timestamptz not null default now()
    );
    --;
    create table idempotency_keys (
      scope text not null,
      key text not null,
      operation text not null,
      request_hash text not null,
      seed uuid not null,
      status_code int,
      response jsonb,
      locked_until timestamptz,
      created_at timestamptz not null,
      primary key (scope, key)
    );
    --;
    create table sessions (
      token_hash text primary key,
      user_id uuid not null,
      organization_id uuid not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz
    );
    --;
    create index sessions_user on sessions (user_id);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop table if exists sessions; drop table if exists idempotency_keys; drop table if exists projection_checkpoints;
    --;`);
}
