// The event log: streams, events, and the one-statement append function.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table es_streams (
      stream_id text primary key,
      revision bigint not null
    );
    --;
    create sequence es_global_position as bigint;
    --;
    create table es_events (
      global_position bigint not null default nextval('es_global_position'),
      transaction_id xid8 not null default pg_current_xact_id(),
      stream_id text not null,
      revision bigint not null,
      event_id uuid not null unique,
      type text not null,
      data jsonb not null,
      metadata jsonb not null,
      created_at timestamptz not null default now(),
      primary key (stream_id, revision)
    );
    --;
    create unique index es_events_log on es_events (transaction_id, global_position);
    --;

    -- Appends events to one stream in one statement (one round trip).
    -- p_expected: 'any' | 'no_stream' | 'stream_exists' | a 0-based revision.
    -- A retry whose first event id is already in the stream is a no-op that returns the stored position.
    create function es_append(p_stream text, p_expected text, p_events jsonb, p_created_at timestamptz)
    returns table (out_xid text, out_position bigint, out_revision bigint, out_duplicate boolean)
    language plpgsql as $fn$
    declare
      v_current bigint;
      v_count int := jsonb_array_length(p_events);
      v_dup bigint;
      v_last bigint;
    begin
      perform pg_advisory_xact_lock(hashtextextended(p_stream, 0));
      select revision into v_current from es_streams where stream_id = p_stream;
      select e.revision into v_dup from es_events e
        where e.event_id = (p_events->0->>'id')::uuid and e.stream_id = p_stream;
      if v_dup is not null then
        return query select e.transaction_id::text, e.global_position, e.revision, true
          from es_events e where e.stream_id = p_stream and e.event_id = (p_events->(v_count-1)->>'id')::uuid;
        return;
      end if;
      if (p_expected = 'no_stream' and v_current is not null)
         or (p_expected = 'stream_exists' and v_current is null)
         or (p_expected not in ('any', 'no_stream', 'stream_exists') and v_current is distinct from p_expected::bigint) then
        raise exception 'wrong expected version for %', p_stream
          using errcode = 'ES409', detail = coalesce(v_current::text, 'no_stream');
      end if;
      insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, coalesce(v_current, -1) + t.i, (t.e->>'id')::uuid, t.e->>'type', t.e->'data', t.e->'metadata', p_created_at
        from jsonb_array_elements(p_events) with ordinality as t(e, i)
        order by t.i;
      v_last := coalesce(v_current, -1) + v_count;
      insert into es_streams (stream_id, revision) values (p_stream, v_last)
        on conflict (stream_id) do update set revision = excluded.revision;
      return query select pg_current_xact_id()::text, currval('es_global_position'), v_last, false;
    end
    $fn$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `drop function if exists es_append; drop table if exists es_events; drop sequence if exists es_global_position; drop table if exists es_streams;
    --;`);
}
