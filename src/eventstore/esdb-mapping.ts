// Pure translations between the port and @eventstore/db-client: positions, revisions, errors, filters, events.
import {
  ANY, NO_STREAM, STREAM_EXISTS, type AppendExpectedRevision, type EventData as EsdbEventData, type Filter, type JSONType, type Position,
  StreamNotFoundError, WrongExpectedVersionError as EsdbWrongExpectedVersionError, excludeSystemEvents, jsonEvent,
} from '@eventstore/db-client';
import {
  type EventData, type EventMetadata, type ExpectedRevision, InvalidPositionError, type LogPosition, type RecordedEvent, WrongExpectedVersionError,
} from './port.ts';

const MAX_U64 = 2n ** 64n - 1n;

/** Formats an EventStoreDB `$all` position as a token: `esdb1:<commit, 20 digits>:<prepare, 20 digits>`, ordered as a string. */
export function formatEsdbPosition(p: Position): LogPosition {
  if (p.commit < 0n || p.prepare < 0n || p.commit > MAX_U64 || p.prepare > MAX_U64) throw new InvalidPositionError(`esdb1:${p.commit}:${p.prepare}`);
  return `esdb1:${p.commit.toString().padStart(20, '0')}:${p.prepare.toString().padStart(20, '0')}`;
}

/** Parses an `esdb1:` token back to a `$all` position; anything else (a `pg1:` token too) is an InvalidPositionError. */
export function parseEsdbPosition(token: LogPosition): Position {
  const m = /^esdb1:(\d{20}):(\d{20})$/.exec(token);
  if (!m) throw new InvalidPositionError(token);
  const [, commit = '0', prepare = '0'] = m;
  const p = { commit: BigInt(commit), prepare: BigInt(prepare) };
  if (p.commit > MAX_U64 || p.prepare > MAX_U64) throw new InvalidPositionError(token);
  return p;
}

/** Orders two raw `$all` positions the way EventStoreDB does: by commit, then prepare. */
export function compareEsdbPositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** Our expected revision as the client's `expectedRevision` option. */
export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (expected < 0n) throw new RangeError(`expected revision must be 0 or more, got ${expected}`);
  return expected;
}

/** The client's expected revision back in our terms (what a WrongExpectedVersionError reports). */
export function fromEsdbExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  return typeof expected === 'bigint' && expected < 0n ? 'no_stream' : expected;
}

/** The client's "current revision" in our terms: a missing stream (sent as `no_stream` or -1) is `no_stream`. */
export function fromEsdbCurrentRevision(current: bigint | 'no_stream'): bigint | 'no_stream' {
  return current === 'no_stream' || current < 0n ? 'no_stream' : current;
}

/** Maps an append failure: the client's WrongExpectedVersionError becomes ours (with what we asked for); anything else passes through. */
export function mapAppendError(err: unknown, stream: string, expected: ExpectedRevision): unknown {
  if (err instanceof EsdbWrongExpectedVersionError) return new WrongExpectedVersionError(stream, expected, fromEsdbCurrentRevision(err.actualVersion));
  return err;
}

/** True for the client's "stream not found", which the port reports as an empty stream. */
export function isStreamNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError;
}

/** True for records the port never shows: system events (`$` types, such as `$metadata` and links `$>`) and system streams (`$` names). */
export function isSystemRecord(type: string, streamId: string): boolean {
  return type.startsWith('$') || streamId.startsWith('$');
}

/** The server-side filter for live subscriptions to `$all`: system events excluded by event type (`^[^$]`). */
export function userEventFilter(): Filter {
  return excludeSystemEvents({ checkpointInterval: 1 });
}

// Keys added to the stored metadata: `$correlationId` / `$causationId` are EventStoreDB's own names (its
// system projections such as $by_correlation_id read them); `created_at` keeps the command's clock, as the
// Postgres log's created_at column does. fromStoredMetadata removes them again.

/** Our event as the client's JSON event: same id (so a retry stays a no-op), metadata with EventStoreDB's correlation keys and the time. */
export function toEsdbEvent(e: EventData, now: Date): EsdbEventData {
  const metadata: Record<string, unknown> = { ...e.metadata, created_at: now.toISOString() };
  if (e.metadata.correlation_id) metadata.$correlationId = e.metadata.correlation_id;
  if (e.metadata.causation_id) metadata.$causationId = e.metadata.causation_id;
  return jsonEvent({ id: e.id, type: e.type, data: toJson(e.data), metadata });
}

function toJson(data: unknown): JSONType {
  if (typeof data === 'string' || Array.isArray(data)) return data;
  if (data !== null && typeof data === 'object') return { ...data };
  throw new TypeError(`event data must be a JSON object, array or string, got ${data === null ? 'null' : typeof data}`);
}

/** What the conversion needs of a client record (a RecordedEvent of readStream, readAll or a subscription). */
export interface EsdbRecord {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  isJson: boolean;
  data: unknown;
  metadata: unknown;
  created: Date;
  position?: Position;
}

/** Thrown when the server does not report event positions (EventStoreDB before 22.6). */
export class EsdbVersionError extends Error {}

/** A client record as the port's RecordedEvent; null for what the port never shows (system events and streams, nothing resolved). */
export function fromEsdbRecord(r: EsdbRecord | undefined): RecordedEvent | null {
  if (!r || isSystemRecord(r.type, r.streamId)) return null;
  if (!r.position) throw new EsdbVersionError(`EventStoreDB sent ${r.streamId}@${r.revision} without a log position: core-server needs EventStoreDB 22.6 or later (24+ recommended)`);
  const { metadata, createdAt } = fromStoredMetadata(r.metadata, r.created);
  return {
    streamId: r.streamId,
    revision: r.revision,
    position: formatEsdbPosition(r.position),
    id: r.id,
    type: r.type,
    data: r.isJson ? r.data : fromBinary(r.data),
    metadata,
    createdAt,
  };
}

function fromBinary(data: unknown): unknown {
  return data instanceof Uint8Array ? { binary: Buffer.from(data).toString('base64') } : data;
}

const ACTOR_TYPES = ['user', 'staff', 'integration', 'system'] as const;

/**
 * Stored metadata back to ours: the keys toEsdbEvent added are removed, `created_at` becomes createdAt.
 * An event another writer put in the log (no actor, or EventStoreDB's own correlation keys only) still
 * gets a full EventMetadata: actor `system:unknown`, missing ids null.
 */
export function fromStoredMetadata(stored: unknown, created: Date): { metadata: EventMetadata; createdAt: Date } {
  const m: Record<string, unknown> = stored !== null && typeof stored === 'object' && !(stored instanceof Uint8Array) && !Array.isArray(stored) ? { ...stored } : {};
  const at = typeof m.created_at === 'string' ? new Date(m.created_at) : null;
  const createdAt = at && !Number.isNaN(at.getTime()) ? at : created;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const actor: object = m.actor !== null && typeof m.actor === 'object' ? m.actor : {};
  const actorType = ACTOR_TYPES.find((t) => 'type' in actor && t === actor.type);
  const actorId = 'id' in actor && typeof actor.id === 'string' ? actor.id : null;
  const { $correlationId, $causationId, created_at: _createdAt, reason, ...rest } = m;
  const metadata: EventMetadata = {
    ...rest,
    org_id: text(m.org_id),
    actor: actorType && actorId !== null ? { type: actorType, id: actorId } : { type: 'system', id: 'unknown' },
    request_id: text(m.request_id),
    correlation_id: text(m.correlation_id) ?? text($correlationId),
    causation_id: text(m.causation_id) ?? text($causationId),
  };
  if (typeof reason === 'string') metadata.reason = reason;
  return { metadata, createdAt };
}

/**
 * One page of a forward `$all` read, made exclusive of `after`: EventStoreDB starts a forward read AT the
 * given position (inclusive), the port reads strictly after it. Returns the events to show (system records
 * dropped) and the last position scanned, from which the next page continues.
 */
export function pageAfter(records: { position: Position; event: RecordedEvent | null }[], after: Position | null): { events: RecordedEvent[]; scanned: Position | null } {
  const events: RecordedEvent[] = [];
  let scanned: Position | null = after;
  for (const r of records) {
    if (scanned !== null && compareEsdbPositions(r.position, scanned) <= 0) continue;
    scanned = r.position;
    if (r.event) events.push(r.event);
  }
  return { events, scanned };
}

/**
 * Whether an append that succeeded wrote nothing (EventStoreDB's idempotent retry answers like a write):
 * a fresh write lands after every record that existed before the call, a repeat of an earlier one does not.
 */
export function isDuplicateAppend(headBefore: Position | null, lastAppended: Position): boolean {
  return headBefore !== null && compareEsdbPositions(lastAppended, headBefore) <= 0;
}
