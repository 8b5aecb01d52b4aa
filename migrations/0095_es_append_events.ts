// Appends check the expected revision against es_events itself (its primary key) instead of claiming a row
// of es_streams, which is dropped: one write per event instead of two, and no lock for an exact revision.
// Why this keeps one writer per revision and xids in revision order: docs/decisions.md, issue 9, third pass.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    -- One event with an exact expected revision (-1: no_stream): the commands' append, one statement.
    -- Inserts revision p_expected + 1 only if revision p_expected is committed (none for -1); the primary key
    -- (stream_id, revision) refuses a second writer of the same revision. No row: the expected revision is
    -- ahead of the stream, or the stream p_require (when not null) has no events; a unique violation: the
    -- expected revision is behind, or this is a retry (PostgresEventStore tells which).
    -- Revision order equals xid order only if an append takes its xid at its insert, after the check's
    -- snapshot: an append must be the first write of its transaction.
    create function es_assert_first_write() returns void
    language plpgsql as $fn$
    begin
      if pg_current_xact_id_if_assigned() is not null then
        raise exception 'an append must be the first write of its transaction' using errcode = 'ES400';
      end if;
    end
    $fn$;
    --;
    create function es_append_one(p_stream text, p_expected bigint, p_id uuid, p_type text, p_data jsonb, p_metadata jsonb, p_created_at timestamptz, p_require text)
    returns table (out_xid text, out_position bigint)
    language plpgsql as $fn$
    begin
      perform es_assert_first_write();
      return query insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, p_expected + 1, p_id, p_type, p_data, p_metadata, p_created_at
        where (p_expected < 0 or exists (select from es_events e where e.stream_id = p_stream and e.revision = p_expected))
          and (p_require is null or exists (select from es_events r where r.stream_id = p_require and r.revision = 0))
        returning transaction_id::text, global_position;
    end
    $fn$;
    --;
    -- Any number of events, any expected revision: 'any' | 'no_stream' | 'stream_exists' | a 0-based revision.
    -- Same checks as es_append_one. 'any' and 'stream_exists' read the stream's last revision, so they take
    -- the stream's advisory lock first (one at a time per stream); the primary key still refuses one that
    -- races an exact append (the adapter retries it).
    create or replace function es_append(p_stream text, p_expected text, p_events jsonb, p_created_at timestamptz)
    returns table (out_xid text, out_position bigint, out_revision bigint, out_duplicate boolean)
    language plpgsql as $fn$
    declare
      v_count int := jsonb_array_length(p_events);
      v_base bigint;
      v_current bigint;
    begin
      perform es_assert_first_write();
      if p_expected = 'any' or p_expected = 'stream_exists' then
        perform pg_advisory_xact_lock(hashtextextended(p_stream, 0));
        select max(revision) into v_current from es_events where stream_id = p_stream;
        if v_current is null and p_expected = 'stream_exists' then
          raise exception 'wrong expected version for %', p_stream using errcode = 'ES409', detail = 'no_stream';
        end if;
        v_base := coalesce(v_current, -1);
      elsif p_expected = 'no_stream' then
        v_base := -1;
      else
        v_base := p_expected::bigint;
        if not exists (select from es_events e where e.stream_id = p_stream and e.revision = v_base) then
          select max(revision) into v_current from es_events where stream_id = p_stream;
          raise exception 'wrong expected version for %', p_stream
            using errcode = 'ES409', detail = coalesce(v_current::text, 'no_stream');
        end if;
      end if;
      insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
        select p_stream, v_base + t.i, (t.e->>'id')::uuid, t.e->>'type', t.e->'data', t.e->'metadata', p_created_at
        from jsonb_array_elements(p_events) with ordinality as t(e, i)
        order by t.i;
      return query select pg_current_xact_id()::text, currval('es_global_position'), v_base + v_count, false;
    end
    $fn$;
    --;
    drop table es_streams;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table es_streams (
      stream_id text primary key,
      revision bigint not null
    );
    --;
    insert into es_streams (stream_id, revision) select stream_id, max(revision) from es_events group by stream_id;
    --;
    drop function es_append_one;
    --;
    drop function es_assert_first_write;
  `);
  // es_append as migration 0051 left it (it claims es_streams rows).
  const { up: claim } = await import('./0051_es_append_claim.ts');
  await claim(knex);
}
