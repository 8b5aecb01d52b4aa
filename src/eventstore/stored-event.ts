// An es_events row as the port's RecordedEvent, decoded field by field when first read.
import pg from 'pg';
import type { EventMetadata, LogPosition, RecordedEvent } from './port.ts';

/** The driver's own decoders, so a field decoded late reads exactly as the driver would have returned it. */
const parseJson = pg.types.getTypeParser(pg.types.builtins.JSONB) as (text: string) => unknown;
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

/**
 * node-postgres query options that return every column as the server's text, in an array per row: with
 * STORED_EVENT_COLUMNS, the input of `StoredEvent.fromText`. Decoding every field of every row up front
 * (metadata, a Date, a BigInt, the position) was most of a replay's CPU and garbage on Postgres; a
 * projection handler usually reads the type, the stream and the data only.
 */
export const TEXT_ROWS = { rowMode: 'array', types: { getTypeParser: () => (text: string) => text } } as const;

/** The columns of es_events that `StoredEvent.fromText` takes, in this order. */
export const STORED_EVENT_COLUMNS = 'global_position, transaction_id::text as xid, stream_id, revision, event_id, type, data, metadata, created_at';

/** Formats the position token of an event: fixed width so tokens order as strings. */
export function formatPosition(xid: string, globalPosition: string | number): LogPosition {
  return `pg1:${String(xid).padStart(20, '0')}:${String(globalPosition).padStart(20, '0')}`;
}

/**
 * A recorded event whose data, metadata, creation time, revision and position are decoded on first
 * read, once. The accessors are enumerable (on the prototype) and `toJSON` gives the plain shape, so
 * deep comparisons and JSON see the same fields as a plain RecordedEvent.
 */
export class StoredEvent implements RecordedEvent {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  #xid: string;
  #globalPosition: string;
  #position: LogPosition | undefined;
  #revisionText: string;
  #revision: bigint | undefined;
  /** Data and metadata as JSON text until first read (null: `#data` / `#metadata` hold them). */
  #dataText: string | null;
  #data: unknown;
  #metadataText: string | null;
  #metadata: unknown;
  #createdAtText: string;
  /** Postgres's text output of a timestamptz, or (from JSON) an ISO 8601 string. */
  #createdAtIso: boolean;
  #createdAt: Date | undefined;

  private constructor(row: readonly unknown[], json: boolean) {
    this.#globalPosition = String(row[0]);
    this.#xid = String(row[1]);
    this.streamId = String(row[2]);
    this.#revisionText = String(row[3]);
    this.id = String(row[4]);
    this.type = String(row[5]);
    this.#dataText = json ? null : String(row[6]);
    this.#data = json ? row[6] : undefined;
    this.#metadataText = json ? null : String(row[7]);
    this.#metadata = json ? row[7] : undefined;
    this.#createdAtText = String(row[8]);
    this.#createdAtIso = json;
  }

  /** A row of STORED_EVENT_COLUMNS read with TEXT_ROWS (every column as the server's text). */
  static fromText(row: readonly string[]): StoredEvent {
    return new StoredEvent(row, false);
  }

  /** The same columns as a parsed JSON array: positions and revision as text, data and metadata as values, created_at as ISO text. */
  static fromJson(row: readonly unknown[]): StoredEvent {
    return new StoredEvent(row, true);
  }

  get revision(): bigint {
    return (this.#revision ??= BigInt(this.#revisionText));
  }

  get position(): LogPosition {
    return (this.#position ??= formatPosition(this.#xid, this.#globalPosition));
  }

  get data(): unknown {
    if (this.#dataText !== null) {
      this.#data = parseJson(this.#dataText);
      this.#dataText = null;
    }
    return this.#data;
  }

  get metadata(): EventMetadata {
    if (this.#metadataText !== null) {
      this.#metadata = parseJson(this.#metadataText);
      this.#metadataText = null;
    }
    return this.#metadata as EventMetadata;
  }

  get createdAt(): Date {
    return (this.#createdAt ??= this.#createdAtIso ? new Date(this.#createdAtText) : parseTimestamptz(this.#createdAtText));
  }

  toJSON(): RecordedEvent {
    const { streamId, revision, position, id, type, data, metadata, createdAt } = this;
    return { streamId, revision, position, id, type, data, metadata, createdAt };
  }
}

for (const name of ['revision', 'position', 'data', 'metadata', 'createdAt']) {
  const accessor = Object.getOwnPropertyDescriptor(StoredEvent.prototype, name);
  if (accessor) Object.defineProperty(StoredEvent.prototype, name, { ...accessor, enumerable: true });
}
