// The event store port. It speaks EventStoreDB's language so every adapter is faithful to it.

/** `any`, `no_stream`, `stream_exists`, or the exact 0-based revision of the stream's last event. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** Opaque, totally ordered token of a place in the global log: `pg1:<xid>:<position>` (Postgres) or `esdb1:<commit>:<prepare>` (EventStoreDB), 20 digits each. */
export type LogPosition = string;

/** Who did a thing. */
export interface Actor {
  type: 'user' | 'staff' | 'integration' | 'system';
  id: string;
}

/** Metadata every event carries: the audit trail. */
export interface EventMetadata {
  org_id: string | null;
  actor: Actor;
  request_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  reason?: string;
}

/** An event to append. */
export interface EventData<T extends string = string, D = unknown> {
  id: string;
  type: T;
  data: D;
  metadata: EventMetadata;
}

/** An event as stored. */
export interface RecordedEvent<T extends string = string, D = unknown> {
  streamId: string;
  revision: bigint;
  position: LogPosition;
  id: string;
  type: T;
  data: D;
  metadata: EventMetadata;
  createdAt: Date;
}

/** Marks the end of catch-up in a subscription: everything before `position` has been delivered. */
export interface CaughtUp {
  kind: 'caughtUp';
  position: LogPosition | null;
}

/** Result of an append. */
export interface AppendResult {
  nextExpectedRevision: bigint;
  position: LogPosition;
  /** True when every event was already stored by an earlier attempt (idempotent retry). */
  duplicate: boolean;
}

/** Where a global read starts. `after` is exclusive. */
export type ReadAllFrom = 'start' | 'end' | { after: LogPosition };

/** How an append is checked. */
export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  now?: Date;
  /**
   * Append only if this other stream exists, else RequiredStreamMissingError and nothing written: a command
   * that needs another aggregate to exist checks the log itself, in the append's round trip. Streams are
   * never deleted here, so a stream that exists when it is checked still exists when the append commits.
   */
  requireStream?: string;
  /**
   * Data subjects whose keys sealed these events' personal values (the crypto-shredding decorator's): append only if
   * none of them was erased, else SubjectErasedError and nothing written. Checked in the append's statement against
   * data_subject_keys, which is in the log's database on Postgres and PGlite; the EventStoreDB adapter cannot check it.
   */
  liveKeys?: readonly string[];
  /**
   * Keys the append creates (subject -> 32-byte key), in the append's own statement, for subjects new to the key
   * table: only an adapter with `createsKeys` takes them. Nothing is written, SubjectKeyTakenError, when one of these
   * subjects already has a key or a tombstone (another writer's, or an erasure's): look its key up and seal again.
   */
  newKeys?: ReadonlyMap<string, Buffer>;
}

/** How readStream reads. */
export interface ReadStreamOptions {
  fromRevision?: bigint;
  maxCount?: number;
  direction?: 'forwards' | 'backwards';
  /**
   * Personal values are opened with their subjects' keys as the key store holds them now, not as this process has
   * them cached: for what is shown to a person (a history, an export), so an erasure another process made shows at
   * once. A process learns of other processes' erasures from their events as it reads the log, which a process that
   * only serves requests may not do. Ignored by a store that seals nothing.
   */
  currentKeys?: boolean;
}

/** The event log. */
export interface EventStore {
  appendToStream(stream: string, events: EventData[], opts: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, opts?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  readAll(opts: { from: ReadAllFrom; maxCount: number }): Promise<RecordedEvent[]>;
  subscribeToAll(opts: { from: ReadAllFrom; signal: AbortSignal; filter?: (e: RecordedEvent) => boolean }): AsyncIterable<RecordedEvent | CaughtUp>;
  /** The position of the newest committed event, or null when the log is empty. */
  headPosition(): Promise<LogPosition | null>;
  /**
   * The position of the newest event committed so far, even if an older transaction still holds it back
   * from ordered reads. Waiting for projections to reach it gives read-your-writes to a reader that did
   * not make the write (headPosition may be behind it while any older transaction is open).
   */
  lastCommittedPosition(): Promise<LogPosition | null>;
  /** A counter that grows whenever this process learns of an append; take it before reading, pass it to waitForChange. */
  changeToken(): number;
  /** Resolves when events after `cursor` may be readable: at once if the token moved, soon if a commit is pending visibility, else on the next append or poll. */
  waitForChange(cursor: LogPosition | null, token: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
  /**
   * True when appends take `newKeys` (the key table is in the log's database: Postgres, PGlite): a new data subject's
   * key is stored in its first append's commit rather than a commit of its own before it.
   */
  readonly createsKeys?: boolean;
}

/** Thrown when the stream's revision is not the expected one. */
export class WrongExpectedVersionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected version for ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
  }
}

/** An append's `requireStream` does not exist: nothing was appended. */
export class RequiredStreamMissingError extends Error {
  constructor(
    readonly stream: string,
    readonly required: string,
  ) {
    super(`not appended to ${stream}: ${required} does not exist`);
  }
}

/** An append's `liveKeys` named an erased subject: nothing was appended (seal again: its values are "[erased]" now). */
export class SubjectErasedError extends Error {
  constructor(
    readonly stream: string,
    readonly subjects: readonly string[],
  ) {
    super(`not appended to ${stream}: a key its values were sealed with was erased`);
  }
}

/** An append's `newKeys` named a subject that already has a key or a tombstone: nothing was appended. */
export class SubjectKeyTakenError extends Error {
  constructor(
    readonly stream: string,
    readonly subjects: readonly string[],
  ) {
    super(`not appended to ${stream}: a key it meant to create exists already`);
  }
}

/** A position token that this store did not issue (malformed, or of another kind of log). */
export class InvalidPositionError extends Error {
  constructor(readonly token: string) {
    super(`not a log position of this store: ${token}`);
  }
}

const TOKEN = /^(pg1|esdb1):\d{20}:\d{20}$/;

/** The kind of log a position token comes from (`pg1` or `esdb1`); throws InvalidPositionError on anything else. */
export function positionKind(token: LogPosition): 'pg1' | 'esdb1' {
  const m = TOKEN.exec(token);
  if (!m) throw new InvalidPositionError(token);
  return m[1] === 'pg1' ? 'pg1' : 'esdb1';
}

/**
 * Compares two log positions; null sorts first. Tokens of one kind are fixed width, so they order as
 * strings; tokens of two kinds of log (a checkpoint written by the Postgres log compared with an
 * EventStoreDB position) have no order: that throws InvalidPositionError instead of guessing.
 */
export function comparePositions(a: LogPosition | null, b: LogPosition | null): number {
  const ka = a === null ? null : positionKind(a);
  const kb = b === null ? null : positionKind(b);
  if (ka !== null && kb !== null && ka !== kb) throw new InvalidPositionError(`${a} compared with ${b}`);
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The later of two log positions (null when neither command appended). */
export function laterPosition(a: LogPosition | null, b: LogPosition | null): LogPosition | null {
  return comparePositions(a, b) >= 0 ? a : b;
}
