// The billing feed's rows name who made each change and why (the console's activity page filters by person): read from
// the recorded event's metadata by projections/billing/events.ts (version 2 rebuilds the rows that predate the columns).
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    alter table billing_events add column actor_type text;
    --;
    alter table billing_events add column actor_id text;
    --;
    alter table billing_events add column reason text;
    --;
    create index billing_events_actor on billing_events (actor_id, position);
    --;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop index if exists billing_events_actor;
    --;
    alter table billing_events drop column if exists reason;
    --;
    alter table billing_events drop column if exists actor_id;
    --;
    alter table billing_events drop column if exists actor_type;
    --;
  `);
}
