// Postgres event store adapter (runs unchanged on PGlite). See DESIGN.md section 5 for the xid8 reading rule.
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import type { Db } from '../db.ts';
import { DbChannel } from '../db-channel.ts';
import {
  type AppendOptions, type AppendResult, type CaughtUp, type EventData, type EventStore, type ExpectedRevision, type LogPosition,
  type ReadAllFrom, type ReadStreamOptions, type RecordedEvent, InvalidPositionError, RequiredStreamMissingError, SubjectErasedError, SubjectKeyTakenError, WrongExpectedVersionError, comparePositions,
} from './port.ts';
import { pooledQuery } from '../pooled-query.ts';
import { AppendGroup, ERASED_KEY_IN, type NewKeys, newKeysOf, singleAppend } from './append-group.ts';
import { wakeOrTimeout } from './wake.ts';
import { STORED_EVENT_COLUMNS as COLUMNS, StoredEvent, TEXT_ROWS, formatPosition } from './stored-event.ts';

export { formatPosition };

const CHANNEL = 'es_appended';
const POLL_MS = 1000;

interface Row {
  global_position: string | number;
  xid: string;
  stream_id: string;
  revision: string | number | bigint;
  event_id: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  created_at: Date | string;
}

/**
 * The xid8 reading rule's horizon: events of transactions below it are all committed or gone. It is
 * the oldest transaction still in progress in THIS database (a transaction in another database of the
 * server cannot write our log, so it must not hold our readers back), or the snapshot's xmax when there
 * is none. An in-progress transaction we cannot place (it just ended, or its row is hidden from us)
 * counts as ours: the safe side. Evaluated in the reading statement's own snapshot.
 */
const HORIZON = `coalesce(
  (select min(x) from pg_snapshot_xip(pg_current_snapshot()) as x
    where not exists (select 1 from pg_stat_activity a where a.backend_xid = xid(x) and a.datname is distinct from current_database())),
  pg_snapshot_xmax(pg_current_snapshot()))`;

/** The one-event append (migration 0095); named, so Postgres parses and plans it once per connection. */
const APPEND_ONE = { name: 'es_append_one', text: 'select out_xid, out_position from es_append_one($1, $2, $3, $4, $5, $6, $7, $8)' };

/** The log after a position, up to the reading horizon (DESIGN.md section 5), in log order: the tails' read. */
const READ_ALL = {
  name: 'es_read_all',
  text: `select ${COLUMNS} from es_events
    where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
      and transaction_id < ${HORIZON}
    order by transaction_id, global_position
    limit $3`,
};

/** The newest event the statement's snapshot sees, horizon or not: what a query must wait for to reflect every earlier commit. */
const LAST_COMMITTED = { name: 'es_last_committed', text: 'select transaction_id::text as xid, global_position from es_events order by transaction_id desc, global_position desc limit 1' };

/** A stream's events from a revision on, one page (every command's aggregate load: named, planned once per connection). */
const READ_STREAM = { name: 'es_read_stream', text: `select ${COLUMNS} from es_events where stream_id = $1 and revision >= $2::bigint order by revision limit $3` };
const READ_STREAM_BACKWARDS = { name: 'es_read_stream_back', text: `select ${COLUMNS} from es_events where stream_id = $1 and revision <= $2::bigint order by revision desc limit $3` };
/** No stream reaches it: a backwards read from the end. */
const MAX_REVISION = 2n ** 63n - 1n;

/** Appends of several events, or with 'any' / 'stream_exists' (migration 0095's es_append). */
const APPEND_MANY = { name: 'es_append', text: 'select * from es_append($1, $2, $3::jsonb, $4)' };
/** The same, only when stream $5 exists (a row of its first event feeds es_append; none: nothing runs). */
const APPEND_MANY_REQUIRING = {
  name: 'es_append_requiring',
  text: 'select r.* from es_events g, lateral es_append(case when g.stream_id is null then null else $1::text end, $2, $3::jsonb, $4) r where g.stream_id = $5 and g.revision = 0',
};

// The same three, only while none of the live keys ($9, $5, $6) is erased (see ERASED_KEY_IN): es_append_one_live
// (migration 0161) checks them itself; es_append runs for the row of `g`, which exists only then.
const APPEND_ONE_LIVE = { name: 'es_append_one_live', text: 'select out_xid, out_position from es_append_one_live($1, $2, $3, $4, $5, $6, $7, $8, $9)' };
const APPEND_MANY_LIVE = {
  name: 'es_append_live',
  text: `select r.* from (select $1::text as s where not ${ERASED_KEY_IN('$5::text[]')}) g, lateral es_append(g.s, $2, $3::jsonb, $4) r`,
};
const APPEND_MANY_REQUIRING_LIVE = {
  name: 'es_append_requiring_live',
  text: `select r.* from es_events g, lateral es_append(case when g.stream_id is null then null else $1::text end, $2, $3::jsonb, $4) r
    where g.stream_id = $5 and g.revision = 0 and not ${ERASED_KEY_IN('$6::text[]')}`,
};

/** A unique violation of data_subject_keys: a key the append was to create exists. */
function isKeyTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === 'data_subject_keys_pkey';
}

/** es_append_one inserted nothing: the expected revision is not (yet) the stream's. */
class AheadOfStream extends Error {}

/** COLUMNS as one JSON array per event, in StoredEvent.fromJson's order (PGlite's batched read). */
const JSON_ROW = `json_build_array(e.global_position::text, e.xid, e.stream_id, e.revision::text, e.event_id, e.type, e.data, e.metadata, e.created_at)`;


/** Parses a position token; throws InvalidPositionError on anything else. */
export function parsePosition(token: LogPosition): { xid: string; globalPosition: string } {
  const [, xid, globalPosition] = /^pg1:(\d{20}):(\d{20})$/.exec(token) ?? [];
  if (xid === undefined || globalPosition === undefined) throw new InvalidPositionError(token);
  return { xid: String(BigInt(xid)), globalPosition: String(BigInt(globalPosition)) };
}

function toRecorded(r: Row): RecordedEvent {
  return {
    streamId: r.stream_id,
    revision: BigInt(r.revision),
    position: formatPosition(r.xid, r.global_position),
    id: r.event_id,
    type: r.type,
    data: r.data,
    metadata: r.metadata,
    createdAt: new Date(r.created_at),
  };
}

/** Event store on Postgres or PGlite tables created by migrations/0001_eventstore.ts. */
export class PostgresEventStore implements EventStore {
  private readonly knex: Knex;
  private readonly emitter = new EventEmitter();
  /** Highest position this process knows was committed (own appends and NOTIFY payloads). */
  private knownHead: LogPosition | null = null;
  /** Other processes' appends (their newest head as payload) and ours to them. */
  private readonly channel: DbChannel;
  private readonly group: AppendGroup;

  constructor(private readonly db: Db) {
    this.knex = db.knex;
    this.emitter.setMaxListeners(0);
    this.group = new AppendGroup(db);
    this.channel = new DbChannel(db, CHANNEL, 'log');
    this.channel.onMessage((payload) => {
      if (/^pg1:/.test(payload)) this.announce(payload, true);
    });
  }

  /** The key table is in this database: appends create new subjects' keys (AppendOptions.newKeys). */
  readonly createsKeys = true;

  async appendToStream(stream: string, events: EventData[], opts: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const expected = opts.expectedRevision;
    const createdAt = opts.now ?? new Date();
    const [one] = events;
    const single = one && events.length === 1 && expected !== 'any' && expected !== 'stream_exists' ? one : null;
    const live = opts.liveKeys?.length ? opts.liveKeys : null;
    let created = newKeysOf(opts.newKeys);
    if (created && !single) {
      // Rare (several events, or 'any'): the keys go first, in a commit of their own. An append that then fails leaves
      // keys that sealed nothing, which the caller finds and uses when it tries again (SubjectKeyTakenError).
      await this.createKeys(stream, created, createdAt);
      created = null;
    }
    for (let attempt = 1; ; attempt++) {
      let result: AppendResult;
      try {
        result = single
          ? await this.appendOne(stream, single, expected === 'no_stream' ? -1n : (expected as bigint), createdAt, opts.requireStream, live, created)
          : await this.appendMany(stream, events, expected, createdAt, opts.requireStream, live);
      } catch (err) {
        if (created && isKeyTaken(err)) throw new SubjectKeyTakenError(stream, created.subjects);
        const settled = await this.refused(stream, events, expected, err);
        if (settled) return settled;
        // 'any' and 'stream_exists' lost their revision to a concurrent exact append: take the next one.
        if (attempt < 100) continue;
        throw err;
      }
      this.announce(result.position);
      return result;
    }
  }

  /**
   * The commands' append: one event, exact expected revision (-1 for no_stream). Sent straight to the
   * pooled connection, past knex's query building; on Postgres as a prepared statement, parsed once per
   * connection. The function inserts nothing when the expected revision is ahead of the stream.
   */
  private async appendOne(stream: string, event: EventData, expected: bigint, createdAt: Date, requireStream: string | undefined, live: readonly string[] | null, created: NewKeys | null): Promise<AppendResult> {
    // In a group with whatever else arrives meanwhile; one left out is tried alone, which tells why.
    const append = { stream, expected, event, createdAt, requireStream: requireStream ?? null, liveKeys: live, newKeys: created };
    const grouped = await this.group.append(append).catch(() => null);
    if (grouped) return { nextExpectedRevision: expected + 1n, position: formatPosition(grouped.xid, grouped.position), duplicate: false };
    let row: { xid: string; position: string | number } | undefined;
    if (created) {
      const { statement, values } = singleAppend(this.db, append);
      [row] = await pooledQuery<{ xid: string; position: string }>(this.db, statement, values);
    } else {
      const values = [stream, expected.toString(), event.id, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), createdAt, requireStream ?? null];
      const [one] = await pooledQuery<{ out_xid: string; out_position: string | number }>(this.db, live ? APPEND_ONE_LIVE : APPEND_ONE, live ? [...values, live] : values);
      row = one && { xid: one.out_xid, position: one.out_position };
    }
    if (!row) {
      if (requireStream !== undefined && (await this.lastRevision(requireStream)) === 'no_stream') throw new RequiredStreamMissingError(stream, requireStream);
      await this.refuseKeys(stream, live, created);
      throw new AheadOfStream();
    }
    return { nextExpectedRevision: expected + 1n, position: formatPosition(row.xid, row.position), duplicate: false };
  }

  private async appendMany(stream: string, events: EventData[], expected: ExpectedRevision, createdAt: Date, requireStream: string | undefined, live: readonly string[] | null): Promise<AppendResult> {
    const args = [stream, typeof expected === 'bigint' ? expected.toString() : expected, JSON.stringify(events.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }))), createdAt];
    // With a required stream, es_append runs once per row of that stream's first event (its first argument
    // depends on the row): not at all when it is missing. Live keys gate it the same way.
    type Out = { out_xid: string; out_position: string | number; out_revision: string | number; out_duplicate: boolean };
    const rows = requireStream === undefined
      ? await pooledQuery<Out>(this.db, live ? APPEND_MANY_LIVE : APPEND_MANY, live ? [...args, live] : args)
      : await pooledQuery<Out>(this.db, live ? APPEND_MANY_REQUIRING_LIVE : APPEND_MANY_REQUIRING, live ? [...args, requireStream, live] : [...args, requireStream]);
    const [row] = rows;
    if (!row && requireStream !== undefined && (await this.lastRevision(requireStream)) === 'no_stream') throw new RequiredStreamMissingError(stream, requireStream);
    if (!row) await this.refuseKeys(stream, live, null);
    if (!row) throw new Error('es_append returned no row');
    return { nextExpectedRevision: BigInt(row.out_revision), position: formatPosition(row.out_xid, row.out_position), duplicate: row.out_duplicate };
  }

  /**
   * After a refused append: the stored result when these very events are already in the stream (a
   * retry), WrongExpectedVersionError for a conflict, null when an 'any' or 'stream_exists' append should
   * simply run again, else the error itself.
   */
  private async refused(stream: string, events: EventData[], expected: ExpectedRevision, err: unknown): Promise<AppendResult | null> {
    const e = err as { code?: string; detail?: string; constraint?: string };
    const taken = e.code === '23505' && e.constraint === 'es_events_pkey';
    if (!(err instanceof AheadOfStream) && e.code !== 'ES409' && !taken && !(e.code === '23505' && e.constraint === 'es_events_event_id_key')) throw err;
    const stored = await this.storedAppend(stream, events);
    if (stored) return stored;
    if (e.code === '23505' && !taken) throw err; // these event ids belong to another stream
    if (taken && (expected === 'any' || expected === 'stream_exists')) return null;
    const actual = e.code === 'ES409' ? e.detail : await this.lastRevision(stream);
    throw new WrongExpectedVersionError(stream, expected, actual === undefined || actual === 'no_stream' ? 'no_stream' : BigInt(actual));
  }

  /** The result of an earlier append of exactly these events to `stream`, or null. */
  private async storedAppend(stream: string, events: EventData[]): Promise<AppendResult | null> {
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last) return null;
    const res = await this.knex.raw(
      `select transaction_id::text as xid, global_position, revision from es_events e
       where stream_id = ? and event_id = ? and exists (select 1 from es_events f where f.stream_id = ? and f.event_id = ?)`,
      [stream, last.id, stream, first.id],
    );
    const row = res.rows[0] as { xid: string; global_position: string; revision: string } | undefined;
    return row ? { nextExpectedRevision: BigInt(row.revision), position: formatPosition(row.xid, row.global_position), duplicate: true } : null;
  }

  /**
   * Why an append with keys inserted nothing, in one lookup: SubjectErasedError when one of its live keys is erased,
   * SubjectKeyTakenError when one of the keys it was to create exists (or was erased) already.
   */
  private async refuseKeys(stream: string, live: readonly string[] | null, created: NewKeys | null): Promise<void> {
    const asked = [...(live ?? []), ...(created?.subjects ?? [])];
    if (asked.length === 0) return;
    const rows = (await this.knex.raw('select subject, key is null as erased from data_subject_keys where subject = any(?)', [asked])).rows as { subject: string; erased: boolean }[];
    const erased = rows.filter((r) => r.erased && live?.includes(r.subject)).map((r) => r.subject);
    if (erased.length > 0) throw new SubjectErasedError(stream, erased);
    const taken = rows.filter((r) => created?.subjects.includes(r.subject)).map((r) => r.subject);
    if (taken.length > 0) throw new SubjectKeyTakenError(stream, taken);
  }

  /** Stores new subjects' keys; SubjectKeyTakenError (nothing stored) when one has a row already. */
  private async createKeys(stream: string, created: NewKeys, now: Date): Promise<void> {
    try {
      await this.knex.raw(
        `insert into data_subject_keys (subject, key, created_at) select n.s, decode(n.h, 'hex'), ? from unnest(?::text[], ?::text[]) as n(s, h)`,
        [now, created.subjects, created.keys],
      );
    } catch (err) {
      if (isKeyTaken(err)) throw new SubjectKeyTakenError(stream, created.subjects);
      throw err;
    }
  }

  /** A stream's last revision, 'no_stream' when it has no events. */
  private async lastRevision(stream: string): Promise<string> {
    const res = await this.knex.raw('select max(revision)::text as revision from es_events where stream_id = ?', [stream]);
    return (res.rows[0] as { revision: string | null } | undefined)?.revision ?? 'no_stream';
  }

  async *readStream(stream: string, opts: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    const backwards = opts.direction === 'backwards';
    const statement = backwards ? READ_STREAM_BACKWARDS : READ_STREAM;
    let cursor = opts.fromRevision ?? (backwards ? MAX_REVISION : 0n);
    let remaining = opts.maxCount ?? Number.POSITIVE_INFINITY;
    const page = 1000;
    while (remaining > 0) {
      const rows = await pooledQuery<Row>(this.db, statement, [stream, cursor.toString(), Math.min(page, remaining)]);
      for (const r of rows) yield toRecorded(r);
      remaining -= rows.length;
      if (rows.length < page) return;
      const tail = rows.at(-1);
      if (!tail) return;
      const last = BigInt(tail.revision);
      cursor = backwards ? last - 1n : last + 1n;
      if (cursor < 0n) return;
    }
  }

  async readAll(opts: { from: ReadAllFrom; maxCount: number }): Promise<RecordedEvent[]> {
    if (opts.from === 'end') return [];
    const after = opts.from === 'start' ? { xid: '0', globalPosition: '0' } : parsePosition(opts.from.after);
    const bindings = [after.xid, after.globalPosition, opts.maxCount];
    if (this.db.kind === 'pglite') {
      const select = READ_ALL.text.replace(/\$\d/g, '?');
      // PGlite decodes every row and column in JavaScript: one JSON text per batch, parsed natively, reads
      // a replay's 5,000-event batches 2-3x faster. Same values: positions and revisions as text, data and
      // metadata as stored, created_at as an ISO timestamp. Arrays, not objects: no key names to build and parse.
      const res = await this.knex.raw(`select coalesce(json_agg(${JSON_ROW} order by e.xid::xid8, e.global_position)::text, '[]') as batch from (${select}) e`, bindings);
      return (JSON.parse((res.rows[0] as { batch: string }).batch) as unknown[][]).map(StoredEvent.fromJson);
    }
    return (await pooledQuery<string[]>(this.db, READ_ALL, bindings, TEXT_ROWS)).map(StoredEvent.fromText);
  }

  async headPosition(): Promise<LogPosition | null> {
    const res = await this.knex.raw(
      `select transaction_id::text as xid, global_position from es_events
       where transaction_id < ${HORIZON}
       order by transaction_id desc, global_position desc limit 1`,
    );
    const r = res.rows[0] as { xid: string; global_position: string } | undefined;
    return r ? formatPosition(r.xid, r.global_position) : null;
  }

  async lastCommittedPosition(): Promise<LogPosition | null> {
    const [r] = await pooledQuery<{ xid: string; global_position: string }>(this.db, LAST_COMMITTED, []);
    return r ? formatPosition(r.xid, r.global_position) : null;
  }

  async *subscribeToAll(opts: { from: ReadAllFrom; signal: AbortSignal; filter?: (e: RecordedEvent) => boolean }): AsyncIterable<RecordedEvent | CaughtUp> {
    await this.listen();
    let cursor: LogPosition | null;
    if (opts.from === 'end') cursor = await this.headPosition();
    else if (opts.from === 'start') cursor = null;
    else {
      parsePosition(opts.from.after); // reject a foreign token before streaming
      cursor = opts.from.after;
    }
    let caughtUp = false;
    const batchSize = 500;
    while (!opts.signal.aborted) {
      const since = this.changeToken();
      const batch = await this.readAll({ from: cursor === null ? 'start' : { after: cursor }, maxCount: batchSize });
      for (const e of batch) {
        cursor = e.position;
        if (opts.signal.aborted) return;
        if (!opts.filter || opts.filter(e)) yield e;
      }
      if (batch.length === batchSize) continue;
      if (!caughtUp) {
        caughtUp = true;
        yield { kind: 'caughtUp', position: cursor };
      }
      await this.waitForChange(cursor, since, opts.signal);
    }
  }

  changeToken(): number {
    return this.appendCount;
  }

  async waitForChange(cursor: LogPosition | null, token: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    if (!this.channel.started) void this.listen(); // projection runners wait here without subscribing: wake them across processes too
    // A known commit not yet readable (an older transaction is still open): poll again shortly.
    const behind = comparePositions(cursor, this.knownHead) < 0;
    const ms = token !== this.appendCount ? 0 : behind ? 2 : POLL_MS;
    if (ms === 0) return;
    await wakeOrTimeout(this.emitter, 'append', signal, ms);
  }

  private appendCount = 0;

  private announce(position: LogPosition, fromOtherProcess = false): void {
    if (comparePositions(position, this.knownHead) > 0) this.knownHead = position;
    this.appendCount++;
    this.emitter.emit('append');
    // NOTIFY outside the append transaction, coalesced: pg_notify inside it would serialize every commit.
    if (!fromOtherProcess) this.channel.notify(() => this.knownHead);
  }

  /** Starts the cross-process wake-up (LISTEN) once; polling still guarantees progress without it. */
  listen(): Promise<void> {
    return this.channel.listen();
  }

  async close(): Promise<void> {
    this.emitter.emit('append');
    await this.channel.close();
  }
}
