// es_append_one_keyed: es_append_one_live (migration 0161) that also stores the keys of the append's new data subjects,
// in the same statement and commit, and inserts nothing when one of them already has a row (a key or a tombstone).
// A new customer's keys used to be a commit of their own before its first event (issue 31: customers.insert). A
// function for PGlite, whose bare statements are planned on every call; Postgres runs the same as one statement.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create function es_append_one_keyed(p_stream text, p_expected bigint, p_id uuid, p_type text, p_data jsonb, p_metadata jsonb, p_created_at timestamptz, p_require text, p_live text[], p_new text[], p_keys text[])
    returns table (out_xid text, out_position bigint)
    language plpgsql as $fn$
    begin
      perform es_assert_first_write();
      return query insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, p_expected + 1, p_id, p_type, p_data, p_metadata, p_created_at
        where (p_expected < 0 or exists (select from es_events e where e.stream_id = p_stream and e.revision = p_expected))
          and (p_require is null or exists (select from es_events r where r.stream_id = p_require and r.revision = 0))
          and (p_live is null or not exists (select from data_subject_keys k where k.subject = any(p_live) and k.key is null))
          and not exists (select from data_subject_keys k where k.subject = any(p_new))
        returning transaction_id::text, global_position;
      -- A writer that created one of these keys after the check above commits first: the insert then fails (unique
      -- violation) and takes the event with it.
      if found then
        insert into data_subject_keys (subject, key, created_at) select n.s, decode(n.h, 'hex'), p_created_at from unnest(p_new, p_keys) as n(s, h);
      end if;
    end
    $fn$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop function if exists es_append_one_keyed;`);
}
