// Group commit of the commands' one-event appends: appends that arrive while a group is in flight go
// together in the next one, one statement and one commit for all of them. Each keeps its own checks
// (exact expected revision, required stream); one that fails them is left out of the group's insert,
// not the others, and its caller retries it alone to learn why (conflict, retry of a stored request,
// missing stream). Why it pays and why it keeps the log's order: docs/decisions.md, issue 9, fifth pass.
import type { Db } from '../db.ts';
import type { EventData } from './port.ts';
import { type NamedStatement, pooledQuery } from '../pooled-query.ts';
import { InFlightBatch } from '../in-flight-batch.ts';

/** One event with an exact expected revision (-1: no_stream), as es_append_one takes it. */
export interface OneAppend {
  stream: string;
  expected: bigint;
  event: EventData;
  createdAt: Date;
  requireStream: string | null;
  /** Subjects whose keys must not be erased (AppendOptions.liveKeys), or null. */
  liveKeys: readonly string[] | null;
  /** Keys to create with the event (AppendOptions.newKeys, keys as hex), or null. */
  newKeys: NewKeys | null;
}

/** AppendOptions.newKeys as the statements take them: subjects and their keys in hex, in the same order. */
export interface NewKeys {
  subjects: string[];
  keys: string[];
}

/** The subjects and hex keys of `newKeys`, or null when there are none. */
export function newKeysOf(newKeys: ReadonlyMap<string, Buffer> | undefined): NewKeys | null {
  if (!newKeys?.size) return null;
  return { subjects: [...newKeys.keys()], keys: [...newKeys.values()].map((k) => k.toString('hex')) };
}

/** Where the group stored an append, or null when its checks or a unique key left it out. */
export type Grouped = { xid: string; position: string } | null;

/**
 * Whether any of the subjects in `param` (a text[]) was erased. An append sealed under these subjects' keys runs only
 * when none was: the erasure takes a SHARE lock on es_events before it deletes keys (key-table.ts), so an append either
 * committed before the keys went or starts its statement (and snapshot) after, and then sees the tombstone here. No
 * value is stored under a key after its erasure committed, whatever a process still holds in its cache.
 */
export const ERASED_KEY_IN = (param: string) => `exists (select from data_subject_keys dk where dk.subject = any(${param}) and dk.key is null)`;

/** Most appends in one statement. */
const MAX_GROUP = 200;

// The checks of es_append_one (migration 0095), row by row. The statement runs alone in its transaction,
// so the insert is its first write and every row's xid is taken after the snapshot its checks read.
// `on conflict do nothing`: a revision or event id already taken leaves out that row only.
const GROUP_APPEND: NamedStatement = {
  name: 'es_append_group',
  text: `insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
    select b.s, b.x + 1, b.id, b.t, b.d, b.m, b.c
    from unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7::timestamptz[], $8::text[], $9::text[])
      with ordinality as b(s, x, id, t, d, m, c, r, k, i)
    where (b.x < 0 or exists (select from es_events e where e.stream_id = b.s and e.revision = b.x))
      and (b.r is null or exists (select from es_events q where q.stream_id = b.r and q.revision = 0))
      and (b.k is null or not exists (select from data_subject_keys dk where dk.subject = any(string_to_array(b.k, chr(31))) and dk.key is null))
    order by b.i
    on conflict do nothing
    returning event_id::text as id, transaction_id::text as xid, global_position::text as position`,
};

// GROUP_APPEND for a group in which some appends create their subjects' keys (a new customer's first event): a row
// whose subjects have a row in data_subject_keys already is left out, and the keys of the rows stored are inserted by
// the same statement. Two rows of the group with the same new subject, or a writer that created one meanwhile, fail
// the statement (unique violation): each caller then tries alone (ONE_APPEND_KEYED) and learns which.
const GROUP_APPEND_KEYED: NamedStatement = {
  name: 'es_append_group_keyed',
  text: `with b as (
      select * from unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[])
        with ordinality as b(s, x, id, t, d, m, c, r, k, n, h, i)),
    ev as (
      insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
      select b.s, b.x + 1, b.id, b.t, b.d, b.m, b.c from b
      where (b.x < 0 or exists (select from es_events e where e.stream_id = b.s and e.revision = b.x))
        and (b.r is null or exists (select from es_events q where q.stream_id = b.r and q.revision = 0))
        and (b.k is null or not exists (select from data_subject_keys dk where dk.subject = any(string_to_array(b.k, chr(31))) and dk.key is null))
        and (b.n is null or not exists (select from data_subject_keys dk where dk.subject = any(string_to_array(b.n, chr(31)))))
      order by b.i
      on conflict do nothing
      returning event_id, transaction_id::text as xid, global_position::text as position),
    keys as (
      insert into data_subject_keys (subject, key, created_at)
      select nk.s, decode(nk.h, 'hex'), b.c from b join ev on ev.event_id = b.id,
        lateral unnest(string_to_array(b.n, chr(31)), string_to_array(b.h, chr(31))) as nk(s, h)
      where b.n is not null)
    select event_id::text as id, xid, position from ev`,
};

// A group of one (every append at concurrency 1) on Postgres: the same checks as a plain prepared INSERT with scalar
// parameters, planned once per connection. Unpacking eight one-element arrays, `on conflict do nothing` (a
// speculative insertion into each of the three unique indexes) and the sort made the group statement cost twice a
// plain insert (0.56 against 0.29 ms median, synchronous_commit off, issue 31). A taken revision or event id fails
// it (unique violation): the caller then tries alone, as for a row a group left out. Same first-write rule as the
// group: the statement runs alone in its transaction. `checks`: conditions added to the exact-revision one.
const insertOne = (checks = '') => `insert into es_events (stream_id, revision, event_id, type, data, metadata, created_at)
    select $1, $2::bigint + 1, $3, $4, $5, $6, $7
    where ($2::bigint < 0 or exists (select from es_events e where e.stream_id = $1 and e.revision = $2::bigint))${checks}
    returning transaction_id::text as xid, global_position::text as position`;

/** The required stream ($8) has its first event, and none of the live keys ($9) is erased; null skips either. */
const REQUIRED_AND_LIVE = `
      and ($8::text is null or exists (select from es_events q where q.stream_id = $8 and q.revision = 0))
      and ($9::text[] is null or not ${ERASED_KEY_IN('$9::text[]')})`;

const ONE_APPEND_CHECKED: NamedStatement = { name: 'es_append_single_checked', text: insertOne(REQUIRED_AND_LIVE) };

// ONE_APPEND_CHECKED without a required stream or live keys: most appends (an event without personal fields). A
// statement of its own because Postgres re-plans a prepared statement on every call while a plan for the call's values
// looks cheaper than the generic one: with nulls folding away two of the three checks it did, and planning cost an
// append 35 to 50 us (EXPLAIN EXECUTE's planning time). Here the generic plan is as cheap, so it is planned once.
const ONE_APPEND: NamedStatement = { name: 'es_append_single', text: insertOne() };

// ONE_APPEND that creates its subjects' keys in the same statement (see GROUP_APPEND_KEYED; es_append_one_keyed,
// migration 0166, is the same on PGlite). The keys' insert runs only when the event's did.
const ONE_APPEND_KEYED: NamedStatement = {
  name: 'es_append_single_keyed',
  text: `with ev as (
      ${insertOne(`${REQUIRED_AND_LIVE}
        and not exists (select from data_subject_keys dk where dk.subject = any($10::text[]))`)}),
    keys as (
      insert into data_subject_keys (subject, key, created_at)
      select n.s, decode(n.h, 'hex'), $7 from unnest($10::text[], $11::text[]) as n(s, h) where exists (select from ev))
    select xid, position from ev`,
};

// The same on PGlite: es_append_one (migration 0095), whose plpgsql plans its insert once per session; PGlite's
// query cannot name a statement, so a bare statement (and the group's) is parsed and planned on every call.
const ONE_APPEND_PGLITE: NamedStatement = { name: 'es_append_one', text: 'select out_xid as xid, out_position::text as position from es_append_one($1, $2, $3, $4, $5, $6, $7, $8)' };
/** The same with live keys ($9): nothing inserted when one is erased (migration 0161). */
const ONE_APPEND_PGLITE_LIVE: NamedStatement = { name: 'es_append_one_live_pglite', text: 'select out_xid as xid, out_position::text as position from es_append_one_live($1, $2, $3, $4, $5, $6, $7, $8, $9)' };
/** The same creating keys ($10 subjects, $11 hex keys; migration 0166). */
const ONE_APPEND_PGLITE_KEYED: NamedStatement = { name: 'es_append_one_keyed_pglite', text: 'select out_xid as xid, out_position::text as position from es_append_one_keyed($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)' };

/** The single append's statement and parameters for this backend (also the alone path of a left-out append: postgres.ts). */
export function singleAppend(db: Db, a: OneAppend): { statement: NamedStatement; values: unknown[] } {
  const row = [a.stream, a.expected.toString(), a.event.id, a.event.type, JSON.stringify(a.event.data), JSON.stringify(a.event.metadata), a.createdAt];
  const values = [...row, a.requireStream];
  if (a.newKeys) return { statement: db.kind === 'pglite' ? ONE_APPEND_PGLITE_KEYED : ONE_APPEND_KEYED, values: [...values, a.liveKeys, a.newKeys.subjects, a.newKeys.keys] };
  if (db.kind === 'pglite') return a.liveKeys ? { statement: ONE_APPEND_PGLITE_LIVE, values: [...values, a.liveKeys] } : { statement: ONE_APPEND_PGLITE, values };
  if (a.requireStream === null && a.liveKeys === null) return { statement: ONE_APPEND, values: row };
  return { statement: ONE_APPEND_CHECKED, values: [...values, a.liveKeys] };
}

/**
 * Appends one-event appends in groups, one group in flight at a time: measured at 32 clients, one in
 * flight made the largest groups and the best throughput (two or four in flight did worse).
 */
export class AppendGroup {
  private readonly batch: InFlightBatch<OneAppend, Grouped>;

  constructor(db: Db) {
    // A statement that fails (connection lost, say) fails the group: each caller then tries alone and gets its own answer.
    this.batch = new InFlightBatch(async (group) => {
      const [only] = group;
      if (only && group.length === 1) {
        const { statement, values } = singleAppend(db, only.item);
        const [row] = await pooledQuery<{ xid: string; position: string }>(db, statement, values);
        only.resolve(row ? { xid: row.xid, position: row.position } : null);
        return;
      }
      const items = group.map((p) => p.item);
      const keyed = items.some((a) => a.newKeys);
      const rows = await pooledQuery<{ id: string; xid: string; position: string }>(db, keyed ? GROUP_APPEND_KEYED : GROUP_APPEND, keyed ? [...columns(items), ...keyColumns(items)] : columns(items));
      const stored = new Map(rows.map((r) => [r.id, r]));
      for (const p of group) {
        const row = stored.get(p.item.event.id);
        p.resolve(row ? { xid: row.xid, position: row.position } : null);
      }
    }, MAX_GROUP);
  }

  /** Stores `append` with whatever else is waiting; null when it was left out (the caller finds out why alone). */
  append(append: OneAppend): Promise<Grouped> {
    return this.batch.add(append);
  }
}

/** The group as the statement's nine arrays. */
function columns(rows: OneAppend[]): unknown[][] {
  return [
    rows.map((a) => a.stream),
    rows.map((a) => a.expected.toString()),
    rows.map((a) => a.event.id),
    rows.map((a) => a.event.type),
    rows.map((a) => JSON.stringify(a.event.data)),
    rows.map((a) => JSON.stringify(a.event.metadata)),
    rows.map((a) => a.createdAt.toISOString()),
    rows.map((a) => a.requireStream),
    rows.map((a) => (a.liveKeys ? a.liveKeys.join(UNIT) : null)),
  ];
}

/** The keyed group's two more arrays: each append's new subjects and their hex keys, joined by the unit separator. */
function keyColumns(rows: OneAppend[]): unknown[][] {
  return [rows.map((a) => (a.newKeys ? a.newKeys.subjects.join(UNIT) : null)), rows.map((a) => (a.newKeys ? a.newKeys.keys.join(UNIT) : null))];
}

/** What joins a row's subjects into one text (no subject holds it). */
const UNIT = String.fromCharCode(31);
