// The EventStoreDB adapter's translations, which need no server: positions, revisions, errors, filters, events.
import { expect } from 'chai';
import { WrongExpectedVersionError as EsdbWrongExpectedVersionError, StreamNotFoundError, StreamDeletedError, UnavailableError } from '@eventstore/db-client';
import {
  compareEsdbPositions, formatEsdbPosition, fromEsdbCurrentRevision, fromEsdbExpectedRevision, fromEsdbRecord, fromStoredMetadata, isDuplicateAppend,
  isStreamNotFound, isSystemRecord, mapAppendError, pageAfter, parseEsdbPosition, toEsdbEvent, toEsdbExpectedRevision, userEventFilter, EsdbVersionError,
  type EsdbRecord,
} from '../../src/eventstore/esdb-mapping.ts';
import { InvalidPositionError, WrongExpectedVersionError, comparePositions, positionKind, type EventMetadata } from '../../src/eventstore/port.ts';
import { formatPosition } from '../../src/eventstore/postgres.ts';

const meta: EventMetadata = { org_id: 'org-1', actor: { type: 'user', id: 'u-1' }, request_id: 'req-1', correlation_id: 'corr-1', causation_id: 'cause-1' };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

function record(over: Partial<EsdbRecord> = {}): EsdbRecord {
  return {
    streamId: 'invoice-1',
    id: '0190c6a0-0000-7000-8000-000000000001',
    revision: 3n,
    type: 'InvoiceDrafted',
    isJson: true,
    data: { total: 5 },
    metadata: { ...meta, created_at: '2026-01-02T03:04:05.678Z', $correlationId: 'corr-1', $causationId: 'cause-1' },
    created: new Date('2030-01-01T00:00:00Z'),
    position: { commit: 1234n, prepare: 1234n },
    ...over,
  };
}

describe('EventStoreDB adapter: positions', () => {
  it('encodes $all positions as esdb1:<commit 20 digits>:<prepare 20 digits> and reads them back', () => {
    const token = formatEsdbPosition({ commit: 1234n, prepare: 1200n });
    expect(token).to.equal('esdb1:00000000000000001234:00000000000000001200');
    expect(parseEsdbPosition(token)).to.deep.equal({ commit: 1234n, prepare: 1200n });
    const max = { commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n };
    expect(parseEsdbPosition(formatEsdbPosition(max))).to.deep.equal(max);
    expect(positionKind(token)).to.equal('esdb1');
  });

  it('refuses positions it cannot encode and tokens it did not issue, a pg1 token included', () => {
    for (const p of [{ commit: -1n, prepare: 0n }, { commit: 0n, prepare: -1n }, { commit: 2n ** 64n, prepare: 0n }]) {
      expect(thrown(() => formatEsdbPosition(p))).to.be.instanceOf(InvalidPositionError);
    }
    for (const t of [formatPosition('5', '7'), 'esdb1:1:2', 'esdb1:00000000000000001234', 'esdb1:99999999999999999999:00000000000000000000', '', 'start']) {
      expect(thrown(() => parseEsdbPosition(t)), t).to.be.instanceOf(InvalidPositionError);
    }
  });

  it('orders tokens exactly as EventStoreDB orders positions: by commit, then prepare', () => {
    const raw = [
      { commit: 0n, prepare: 0n },
      { commit: 9n, prepare: 9n },
      { commit: 10n, prepare: 3n },
      { commit: 10n, prepare: 10n },
      { commit: 100n, prepare: 99n },
      { commit: 2n ** 63n, prepare: 1n },
    ];
    for (const a of raw) {
      for (const b of raw) {
        expect(comparePositions(formatEsdbPosition(a), formatEsdbPosition(b)), `${a.commit}/${a.prepare} vs ${b.commit}/${b.prepare}`).to.equal(compareEsdbPositions(a, b));
      }
    }
    const zero = formatEsdbPosition({ commit: 0n, prepare: 0n });
    expect(comparePositions(null, zero)).to.equal(-1);
    expect(comparePositions(zero, null)).to.equal(1);
    expect(comparePositions(null, null)).to.equal(0);
  });

  it('will not order a pg1 token against an esdb1 token, nor a malformed one: InvalidPositionError', () => {
    const pg = formatPosition('100', '5');
    const es = formatEsdbPosition({ commit: 1n, prepare: 1n });
    expect(comparePositions(pg, formatPosition('100', '6'))).to.equal(-1);
    expect(thrown(() => comparePositions(pg, es))).to.be.instanceOf(InvalidPositionError);
    expect(thrown(() => comparePositions(es, pg))).to.be.instanceOf(InvalidPositionError);
    expect(thrown(() => comparePositions(es, 'esdb1:x'))).to.be.instanceOf(InvalidPositionError);
    expect(thrown(() => comparePositions(null, 'kafka:1'))).to.be.instanceOf(InvalidPositionError);
  });

  it('makes a forward $all page exclusive of the position it started at, dropping system records but scanning past them', () => {
    const user = (c: bigint) => fromEsdbRecord(record({ position: { commit: c, prepare: c }, revision: c }));
    const rows = [
      { position: { commit: 10n, prepare: 10n }, event: user(10n) },
      { position: { commit: 20n, prepare: 20n }, event: null },
      { position: { commit: 30n, prepare: 30n }, event: user(30n) },
      { position: { commit: 40n, prepare: 40n }, event: null },
    ];
    const fromStart = pageAfter(rows, null);
    expect(fromStart.events.map((e) => e.revision)).to.deep.equal([10n, 30n]);
    expect(fromStart.scanned).to.deep.equal({ commit: 40n, prepare: 40n });
    const after10 = pageAfter(rows, { commit: 10n, prepare: 10n });
    expect(after10.events.map((e) => e.revision)).to.deep.equal([30n]);
    const atEnd = pageAfter(rows.slice(3), { commit: 40n, prepare: 40n });
    expect(atEnd).to.deep.equal({ events: [], scanned: { commit: 40n, prepare: 40n } });
  });
});

describe('EventStoreDB adapter: expected revisions and errors', () => {
  it('passes any, no_stream, stream_exists and exact revisions to the client and refuses a negative one', () => {
    expect(toEsdbExpectedRevision('any')).to.equal('any');
    expect(toEsdbExpectedRevision('no_stream')).to.equal('no_stream');
    expect(toEsdbExpectedRevision('stream_exists')).to.equal('stream_exists');
    expect(toEsdbExpectedRevision(0n)).to.equal(0n);
    expect(toEsdbExpectedRevision(41n)).to.equal(41n);
    expect(thrown(() => toEsdbExpectedRevision(-1n))).to.be.instanceOf(RangeError);
  });

  it('reads the client revisions back: -1 and no_stream are a missing stream', () => {
    expect(fromEsdbExpectedRevision('stream_exists')).to.equal('stream_exists');
    expect(fromEsdbExpectedRevision(7n)).to.equal(7n);
    expect(fromEsdbExpectedRevision(-1n)).to.equal('no_stream');
    expect(fromEsdbCurrentRevision('no_stream')).to.equal('no_stream');
    expect(fromEsdbCurrentRevision(-1n)).to.equal('no_stream');
    expect(fromEsdbCurrentRevision(0n)).to.equal(0n);
    expect(fromEsdbCurrentRevision(12n)).to.equal(12n);
  });

  it("maps the client's WrongExpectedVersionError to ours with the stream, what we expected and the actual revision", () => {
    const cases: [ConstructorParameters<typeof EsdbWrongExpectedVersionError>[1], WrongExpectedVersionError['expected'], bigint | 'no_stream'][] = [
      [{ streamName: 's-1', expected: 'stream_exists', current: 'no_stream' }, 'stream_exists', 'no_stream'],
      [{ streamName: 's-1', expected: 0n, current: -1n }, 0n, 'no_stream'],
      [{ streamName: 's-1', expected: 'no_stream', current: 0n }, 'no_stream', 0n],
      [{ streamName: 's-1', expected: 1n, current: 2n }, 1n, 2n],
    ];
    for (const [details, expected, actual] of cases) {
      const mapped = mapAppendError(new EsdbWrongExpectedVersionError(undefined, details), 's-1', expected);
      expect(mapped).to.be.instanceOf(WrongExpectedVersionError);
      expect(mapped).to.include({ stream: 's-1', expected, actual });
    }
  });

  it('lets every other client error through unchanged, and knows only StreamNotFoundError as an empty stream', () => {
    const unavailable = new UnavailableError();
    expect(mapAppendError(unavailable, 's', 'any')).to.equal(unavailable);
    const deleted = StreamDeletedError.fromStreamName('s');
    expect(mapAppendError(deleted, 's', 'any')).to.equal(deleted);
    expect(isStreamNotFound(new StreamNotFoundError(undefined, 's'))).to.equal(true);
    expect(isStreamNotFound(deleted)).to.equal(false);
    expect(isStreamNotFound(unavailable)).to.equal(false);
    expect(isStreamNotFound(new Error('stream not found'))).to.equal(false);
  });

  it('calls an append a duplicate only when its last event is not after the log head seen before it', () => {
    const head = { commit: 500n, prepare: 500n };
    expect(isDuplicateAppend(head, { commit: 400n, prepare: 400n })).to.equal(true);
    expect(isDuplicateAppend(head, head)).to.equal(true);
    expect(isDuplicateAppend(head, { commit: 501n, prepare: 501n })).to.equal(false);
    expect(isDuplicateAppend(null, { commit: 1n, prepare: 1n })).to.equal(false);
  });
});

describe('EventStoreDB adapter: filters and events', () => {
  it('subscribes with a server-side event-type filter that excludes system events', () => {
    const f = userEventFilter();
    expect(f.filterOn).to.equal('eventType');
    expect(f.checkpointInterval).to.be.greaterThan(0);
    expect('regex' in f).to.equal(true);
    const regex = new RegExp('regex' in f ? f.regex : '');
    for (const t of ['InvoiceDrafted', 'PaymentRecorded', 'a']) expect(regex.test(t), t).to.equal(true);
    for (const t of ['$metadata', '$>', '$statsCollected', '$user-created']) expect(regex.test(t), t).to.equal(false);
  });

  it('knows system records by a $ event type or a $ stream', () => {
    expect(isSystemRecord('$metadata', '$$invoice-1')).to.equal(true);
    expect(isSystemRecord('$>', '$et-InvoiceDrafted')).to.equal(true);
    expect(isSystemRecord('Anything', '$stats-127.0.0.1:2113')).to.equal(true);
    expect(isSystemRecord('InvoiceDrafted', 'invoice-1')).to.equal(false);
  });

  it('writes our event as a JSON event with the same id, the data, and metadata carrying EventStoreDB correlation keys and the time', () => {
    const now = new Date('2026-05-06T07:08:09.010Z');
    const e = toEsdbEvent({ id: '0190c6a0-0000-7000-8000-0000000000aa', type: 'CustomerCreated', data: { name: 'Acme' }, metadata: { ...meta, reason: 'asked' } }, now);
    expect(e).to.deep.equal({
      id: '0190c6a0-0000-7000-8000-0000000000aa',
      contentType: 'application/json',
      type: 'CustomerCreated',
      data: { name: 'Acme' },
      metadata: { ...meta, reason: 'asked', created_at: '2026-05-06T07:08:09.010Z', $correlationId: 'corr-1', $causationId: 'cause-1' },
    });
    const bare = toEsdbEvent({ id: 'x', type: 'T', data: [1, 2], metadata: { ...meta, correlation_id: null, causation_id: null } }, now);
    expect(bare.metadata).to.not.have.any.keys('$correlationId', '$causationId');
    expect(bare.data).to.deep.equal([1, 2]);
    expect(thrown(() => toEsdbEvent({ id: 'x', type: 'T', data: 5, metadata: meta }, now))).to.be.instanceOf(TypeError);
  });

  it('reads a record back as the event we wrote: position token, revision, metadata without the added keys, the command time', () => {
    const e = fromEsdbRecord(record());
    expect(e).to.deep.equal({
      streamId: 'invoice-1',
      revision: 3n,
      position: 'esdb1:00000000000000001234:00000000000000001234',
      id: '0190c6a0-0000-7000-8000-000000000001',
      type: 'InvoiceDrafted',
      data: { total: 5 },
      metadata: meta,
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    });
    const now = new Date('2026-05-06T07:08:09.010Z');
    const written = toEsdbEvent({ id: 'i', type: 'T', data: { a: 1 }, metadata: { ...meta, reason: 'why' } }, now);
    const back = fromEsdbRecord(record({ id: 'i', type: 'T', data: written.data, metadata: written.metadata }));
    expect(back?.metadata).to.deep.equal({ ...meta, reason: 'why' });
    expect(back?.createdAt).to.deep.equal(now);
  });

  it('skips system records and unresolved links, and says which server version is needed when a record has no position', () => {
    expect(fromEsdbRecord(record({ type: '$metadata', streamId: '$$invoice-1' }))).to.equal(null);
    expect(fromEsdbRecord(record({ type: '$>', streamId: '$ce-invoice' }))).to.equal(null);
    expect(fromEsdbRecord(undefined)).to.equal(null);
    const err = thrown(() => fromEsdbRecord(record({ position: undefined })));
    expect(err).to.be.instanceOf(EsdbVersionError);
    expect((err as Error).message).to.contain('22.6');
  });

  it("gives another writer's event full metadata: its correlation keys, a system:unknown actor, the server's time", () => {
    const created = new Date('2025-12-31T23:59:59Z');
    expect(fromStoredMetadata({ $correlationId: 'c', $causationId: 'k', source: 'legacy' }, created)).to.deep.equal({
      metadata: { source: 'legacy', org_id: null, actor: { type: 'system', id: 'unknown' }, request_id: null, correlation_id: 'c', causation_id: 'k' },
      createdAt: created,
    });
    for (const stored of [undefined, new Uint8Array([1, 2]), ['x'], 'text', { actor: { type: 'robot', id: 'r' }, created_at: 'not a date' }]) {
      const { metadata, createdAt } = fromStoredMetadata(stored, created);
      expect(metadata.actor).to.deep.equal({ type: 'system', id: 'unknown' });
      expect(createdAt).to.equal(created);
    }
    const binary = fromEsdbRecord(record({ isJson: false, data: new Uint8Array([104, 105]), metadata: undefined }));
    expect(binary?.data).to.deep.equal({ binary: 'aGk=' });
    expect(binary?.createdAt).to.deep.equal(new Date('2030-01-01T00:00:00Z'));
  });
});
