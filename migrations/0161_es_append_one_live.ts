// es_append_one_live: es_append_one (migration 0095) that inserts nothing when one of the data subjects in p_live was
// erased (its data_subject_keys row tombstoned). A sealed append names the keys it sealed with, so a key another
// process erased since this one cached it never stores a value (issue 32; docs/decisions.md). A function, like
// es_append_one, because PGlite plans a bare statement on every call and plpgsql plans it once per session.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create function es_append_one_live(p_stream text, p_expected bigint, p_id uuid, p_type text, p_data jsonb, p_metadata jsonb, p_created_at timestamptz, p_require text, p_live text[])
    returns table (out_xid text, out_position bigint)
    language plpgsql as $fn$
    begin
      perform es_assert_first_write();
      return query insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, p_expected + 1, p_id, p_type, p_data, p_metadata, p_created_at
        where (p_expected < 0 or exists (select from es_events e where e.stream_id = p_stream and e.revision = p_expected))
          and (p_require is null or exists (select from es_events r where r.stream_id = p_require and r.revision = 0))
          and not exists (select from data_subject_keys k where k.subject = any(p_live) and k.key is null)
        returning transaction_id::text, global_position;
    end
    $fn$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop function if exists es_append_one_live;`);
}
