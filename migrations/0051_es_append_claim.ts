// es_append with fewer statements per append: the expected-revision check and the revision claim are one
// statement on es_streams, and the duplicate (retry) check runs only when that check fails. See issue 9.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    -- Appends events to one stream in one statement (one round trip).
    -- p_expected: 'any' | 'no_stream' | 'stream_exists' | a 0-based revision.
    -- A retry whose first event id is already in the stream is a no-op that returns the stored position:
    -- found here when the expected revision no longer holds; with 'any' or 'stream_exists' the insert
    -- fails on the unique event id and the adapter looks the events up (PostgresEventStore).
    create or replace function es_append(p_stream text, p_expected text, p_events jsonb, p_created_at timestamptz)
    returns table (out_xid text, out_position bigint, out_revision bigint, out_duplicate boolean)
    language plpgsql as $fn$
    declare
      v_count int := jsonb_array_length(p_events);
      v_last bigint;
      v_current bigint;
    begin
      -- First statement, before the transaction has an xid: appends to one stream get xids in revision order.
      perform pg_advisory_xact_lock(hashtextextended(p_stream, 0));
      if p_expected = 'no_stream' then
        insert into es_streams (stream_id, revision) values (p_stream, v_count - 1)
          on conflict (stream_id) do nothing returning revision into v_last;
      elsif p_expected = 'any' then
        insert into es_streams (stream_id, revision) values (p_stream, v_count - 1)
          on conflict (stream_id) do update set revision = es_streams.revision + v_count returning revision into v_last;
      elsif p_expected = 'stream_exists' then
        update es_streams set revision = revision + v_count where stream_id = p_stream returning revision into v_last;
      else
        update es_streams set revision = revision + v_count where stream_id = p_stream and revision = p_expected::bigint
          returning revision into v_last;
      end if;
      if v_last is null then
        return query select e.transaction_id::text, e.global_position, e.revision, true
          from es_events e where e.stream_id = p_stream and e.event_id = (p_events->(v_count-1)->>'id')::uuid
            and exists (select 1 from es_events f where f.stream_id = p_stream and f.event_id = (p_events->0->>'id')::uuid);
        if found then
          return;
        end if;
        select revision into v_current from es_streams where stream_id = p_stream;
        raise exception 'wrong expected version for %', p_stream
          using errcode = 'ES409', detail = coalesce(v_current::text, 'no_stream');
      end if;
      insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, v_last - v_count + t.i, (t.e->>'id')::uuid, t.e->>'type', t.e->'data', t.e->'metadata', p_created_at
        from jsonb_array_elements(p_events) with ordinality as t(e, i)
        order by t.i;
      return query select pg_current_xact_id()::text, currval('es_global_position'), v_last, false;
    end
    $fn$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create or replace function es_append(p_stream text, p_expected text, p_events jsonb, p_created_at timestamptz)
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
