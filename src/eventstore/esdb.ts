// EventStoreDB (KurrentDB) event store adapter through @eventstore/db-client. See docs/eventstoredb.md.
import { EventEmitter } from 'node:events';
import {
  BACKWARDS, END, EventStoreDBClient, FORWARDS, type Position, type ReadPosition, START, type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import {
  type AppendOptions, type AppendResult, type CaughtUp, type EventData, type EventStore, type LogPosition, type ReadAllFrom, type ReadStreamOptions,
  type RecordedEvent, RequiredStreamMissingError, comparePositions,
} from './port.ts';
import {
  fromEsdbRecord, isDuplicateAppend, isStreamNotFound, mapAppendError, pageAfter, parseEsdbPosition,
  toEsdbEvent, toEsdbExpectedRevision, userEventFilter,
} from './esdb-mapping.ts';
import { wakeOrTimeout } from './wake.ts';

const POLL_MS = 1000;
const PAGE = 512;

/** Event store on an EventStoreDB 22.6+ (24+ recommended) or KurrentDB server. Projections' checkpoints stay in Postgres. */
export class EsdbEventStore implements EventStore {
  private readonly emitter = new EventEmitter();
  private appendCount = 0;
  /** Live subscription that wakes waitForChange when any process appends; polling covers its absence. */
  private notifier?: { stop(): void };
  private closed = false;

  constructor(private readonly client: EventStoreDBClient) {
    this.emitter.setMaxListeners(0);
  }

  /** A store for a connection string of the client (`esdb://` or `esdb+discover://`); connects on first use. */
  static fromConnectionString(connectionString: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString));
  }

  async appendToStream(stream: string, events: EventData[], opts: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    // A read first (EventStoreDB has no condition on another stream): streams are never deleted, so it still holds at the append.
    if (opts.requireStream !== undefined && (await this.readRaw(opts.requireStream, { maxCount: 1 })).length === 0) throw new RequiredStreamMissingError(stream, opts.requireStream);
    const expectedRevision = toEsdbExpectedRevision(opts.expectedRevision);
    const now = opts.now ?? new Date();
    const head = await this.lastRecord();
    let next: bigint;
    try {
      next = (await this.client.appendToStream(stream, events.map((e) => toEsdbEvent(e, now)), { expectedRevision })).nextExpectedRevision;
    } catch (err) {
      throw mapAppendError(err, stream, opts.expectedRevision);
    }
    // The position of the last event as $all reports it (the append's own answer need not equal it).
    const [last] = await this.readRaw(stream, { fromRevision: next, direction: 'backwards', maxCount: 1 });
    if (!last) throw new Error(`appended to ${stream} but cannot read revision ${next} back`);
    this.announce();
    return { nextExpectedRevision: next, position: last.position, duplicate: isDuplicateAppend(head, parseEsdbPosition(last.position)) };
  }

  async *readStream(stream: string, opts: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    if (opts.maxCount !== undefined && opts.maxCount <= 0) return;
    const backwards = opts.direction === 'backwards';
    const read = this.client.readStream(stream, {
      fromRevision: opts.fromRevision ?? (backwards ? END : START),
      direction: backwards ? BACKWARDS : FORWARDS,
      ...(opts.maxCount === undefined ? {} : { maxCount: opts.maxCount }),
    });
    try {
      for await (const resolved of read) {
        const e = fromEsdbRecord(resolved.event);
        if (e) yield e;
      }
    } catch (err) {
      if (isStreamNotFound(err)) return; // a missing stream is empty
      throw err;
    }
  }

  private async readRaw(stream: string, opts: { fromRevision?: bigint; maxCount?: number; direction?: 'forwards' | 'backwards' }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for await (const e of this.readStream(stream, opts)) out.push(e);
    return out;
  }

  async readAll(opts: { from: ReadAllFrom; maxCount: number }): Promise<RecordedEvent[]> {
    if (opts.from === 'end' || opts.maxCount <= 0) return [];
    let after: Position | null = opts.from === 'start' ? null : parseEsdbPosition(opts.from.after);
    const out: RecordedEvent[] = [];
    // System records are dropped here (the client reads $all without a server-side filter), so read on
    // until maxCount events are found or the log ends.
    for (;;) {
      const want = Math.max(16, Math.min(PAGE, opts.maxCount - out.length + 1));
      const records = await this.readAllRecords(after ?? START, FORWARDS, want);
      const page = pageAfter(records, after);
      out.push(...page.events);
      if (out.length >= opts.maxCount) return out.slice(0, opts.maxCount);
      if (records.length < want || page.scanned === after) return out;
      after = page.scanned;
    }
  }

  private async readAllRecords(from: ReadPosition, direction: typeof FORWARDS | typeof BACKWARDS, maxCount: number): Promise<{ position: Position; event: RecordedEvent | null }[]> {
    const out: { position: Position; event: RecordedEvent | null }[] = [];
    for await (const resolved of this.client.readAll({ fromPosition: from, direction, maxCount })) {
      const position = recordPosition(resolved);
      if (position) out.push({ position, event: fromEsdbRecord(resolved.event) });
    }
    return out;
  }

  // The last record of $all, system records included: every fresh append lands after it.
  private async lastRecord(): Promise<Position | null> {
    const [last] = await this.readAllRecords(END, BACKWARDS, 1);
    return last?.position ?? null;
  }

  async headPosition(): Promise<LogPosition | null> {
    let from: ReadPosition = END;
    for (;;) {
      const records = await this.readAllRecords(from, BACKWARDS, PAGE);
      const found = records.find((r) => r.event !== null);
      if (found?.event) return found.event.position;
      const oldest = records.at(-1);
      if (records.length < PAGE || !oldest) return null;
      from = oldest.position; // a backward read starts before the given position
    }
  }

  /** Same as headPosition: EventStoreDB has no commit that is readable later than a newer one. */
  async lastCommittedPosition(): Promise<LogPosition | null> {
    return this.headPosition();
  }

  async *subscribeToAll(opts: { from: ReadAllFrom; signal: AbortSignal; filter?: (e: RecordedEvent) => boolean }): AsyncIterable<RecordedEvent | CaughtUp> {
    let last: LogPosition | null = opts.from === 'end' ? await this.headPosition() : opts.from === 'start' ? null : opts.from.after;
    if (last !== null) parseEsdbPosition(last); // reject a foreign token before streaming
    // Catch-up by pages, so `caughtUp` marks the end of history exactly; then a live subscription from there.
    for (;;) {
      const batch = await this.readAll({ from: last === null ? 'start' : { after: last }, maxCount: PAGE });
      for (const e of batch) {
        if (opts.signal.aborted) return;
        last = e.position;
        if (!opts.filter || opts.filter(e)) yield e;
      }
      if (batch.length < PAGE) break;
    }
    if (opts.signal.aborted) return;
    yield { kind: 'caughtUp', position: last };
    const sub = this.client.subscribeToAll({ fromPosition: last === null ? START : parseEsdbPosition(last), filter: userEventFilter() });
    const stop = () => {
      sub.destroy();
      void sub.unsubscribe().catch(() => {});
    };
    opts.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const resolved of sub) {
        if (opts.signal.aborted) return;
        const e = fromEsdbRecord(resolved.event);
        // The subscription may repeat the position it started from: deliver each event once.
        if (!e || (last !== null && comparePositions(e.position, last) <= 0)) continue;
        last = e.position;
        if (!opts.filter || opts.filter(e)) yield e;
      }
    } catch (err) {
      if (!opts.signal.aborted) throw err;
    } finally {
      opts.signal.removeEventListener('abort', stop);
      stop();
    }
  }

  changeToken(): number {
    return this.appendCount;
  }

  async waitForChange(_cursor: LogPosition | null, token: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed || token !== this.appendCount) return;
    this.startNotifier();
    await wakeOrTimeout(this.emitter, 'append', signal, POLL_MS);
  }

  private announce(): void {
    this.appendCount++;
    this.emitter.emit('append');
  }

  // One live subscription per store from the end of $all, server-filtered: every event another process
  // appends wakes the waiters. On error it is dropped and restarted by the next wait; polling carries on.
  private startNotifier(): void {
    if (this.notifier || this.closed) return;
    const sub = this.client.subscribeToAll({ fromPosition: END, filter: userEventFilter() });
    const notifier = {
      stop: () => {
        sub.destroy();
        void sub.unsubscribe().catch(() => {});
      },
    };
    const drop = () => {
      if (this.notifier === notifier) this.notifier = undefined;
    };
    sub.on('data', () => this.announce());
    sub.on('error', drop);
    sub.on('close', drop);
    this.notifier = notifier;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.notifier?.stop();
    this.notifier = undefined;
    this.emitter.emit('append');
    await this.client.dispose();
  }

  /** Checks that the server answers and lets us read $all (start-up fails early with a clear message otherwise). */
  async probe(deadlineMs = 5000): Promise<void> {
    for await (const _ of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, deadline: deadlineMs })) break;
  }
}

function recordPosition(resolved: AllStreamResolvedEvent): Position | null {
  return resolved.event?.position ?? resolved.link?.position ?? null;
}
