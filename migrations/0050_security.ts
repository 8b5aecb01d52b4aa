// Attempt counters for rate limits (rate-limiter-flexible's Postgres layout), and password credentials kept out of the event log.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(
    knex,
    `
create table rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
--;
create index rate_limits_expire on rate_limits (expire);
--;
create table user_credentials (
  user_id uuid primary key,
  password_hash text not null,
  updated_at timestamptz not null
);
--;
insert into user_credentials (user_id, password_hash, updated_at)
select id::uuid, doc->>'password_hash', now() from identity_users where jsonb_exists(doc, 'password_hash')
`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists user_credentials');
  await knex.raw('drop table if exists rate_limits');
}
