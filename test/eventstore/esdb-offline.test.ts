// Choosing and opening the event log, and the EventStoreDB adapter's behaviour with no server reachable (none can run here).
import { expect } from 'chai';
import { AccessDeniedError, DeadlineExceededError, NotLeaderError, UnavailableError } from '@eventstore/db-client';
import { isDatabaseUnavailable } from '../../src/db-errors.ts';
import { toErrorResponse } from '../../src/http/errors.ts';
import { ConfigError, parseEventStore } from '../../src/config.ts';
import { openPglite, type Db } from '../../src/db.ts';
import { EventLogUnreachableError, describeEventLog, openEventStore } from '../../src/eventstore/index.ts';
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { PostgresEventStore, formatPosition } from '../../src/eventstore/postgres.ts';
import { InvalidPositionError, type RecordedEvent, type CaughtUp } from '../../src/eventstore/port.ts';
import { freePort, rejection } from '../support/process.ts';

const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };



async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('opening the event log', () => {
  let db: Db;
  before(async () => {
    db = await openPglite();
  });
  after(async () => {
    await db.close();
  });

  it('is the Postgres adapter on the read-model database when EVENT_STORE=postgres', async () => {
    const store = await openEventStore({ eventLog: { kind: 'postgres' } }, db);
    expect(store).to.be.instanceOf(PostgresEventStore);
    await store.close();
  });

  it('stops with one clear line naming EVENT_STORE (password hidden) when EventStoreDB does not answer', async () => {
    const port = await freePort();
    const err = await rejection(openEventStore({ eventLog: parseEventStore(`kurrentdb://admin:s3cret@127.0.0.1:${port}?tls=false`) }, db));
    expect(err).to.be.instanceOf(EventLogUnreachableError);
    expect(err).to.be.instanceOf(ConfigError); // the CLI prints ConfigErrors as one line, without a stack trace
    const message = (err as Error).message;
    expect(message).to.contain(`EVENT_STORE=kurrentdb://admin:***@127.0.0.1:${port}?tls=false`);
    expect(message).to.contain('UNAVAILABLE');
    expect(message).to.contain('docs/eventstoredb.md');
    expect(message).to.not.contain('s3cret');
    expect(message).to.not.contain('\n');
  });

  it('reports what the client refuses in a connection string as a configuration error naming EVENT_STORE', async () => {
    const err = await rejection(openEventStore({ eventLog: parseEventStore('esdb://127.0.0.1:2113?tls=true&tlsCAFile=/nonexistent/ca.crt') }, db));
    expect(err).to.be.instanceOf(ConfigError);
    expect((err as Error).message).to.contain('EVENT_STORE');
    expect((err as Error).message).to.contain('certificate');
  });

  it('says in the start-up line which log is in use and where the read models are', () => {
    expect(describeEventLog({ eventLog: { kind: 'postgres' }, dataDir: '/srv/data' })).to.equal('event log: embedded PGlite in /srv/data/pglite (with the read models)');
    expect(describeEventLog({ eventLog: { kind: 'postgres' }, databaseUrl: 'postgres://app:pw@db:5432/core', dataDir: '/srv/data' })).to.equal(
      'event log: PostgreSQL postgres://app:***@db:5432/core (with the read models)',
    );
    expect(describeEventLog({ eventLog: parseEventStore('esdb://es:2113?tls=false'), databaseUrl: 'postgres://db/core', dataDir: '/srv/data' })).to.equal(
      'event log: EventStoreDB esdb://es:2113?tls=false; read models and projection checkpoints: PostgreSQL postgres://db/core',
    );
    expect(describeEventLog({ eventLog: parseEventStore('kurrentdb://admin:pw@es:2113'), dataDir: '/srv/data' })).to.equal(
      'event log: EventStoreDB kurrentdb://admin:***@es:2113; read models and projection checkpoints: embedded PGlite in /srv/data/pglite',
    );
  });
});

describe('EventStoreDB adapter with no server reachable', () => {
  let store: EsdbEventStore;
  before(async () => {
    store = EsdbEventStore.fromConnectionString(`esdb://127.0.0.1:${await freePort()}?tls=false`);
  });
  after(async () => {
    await store.close();
  });

  it('fails every read and append with the client error: nothing is passed off as an empty log or stream', async () => {
    expect(await rejection(store.appendToStream('test-1', [{ id: '0190c6a0-0000-7000-8000-000000000001', type: 'T', data: {}, metadata: meta }], { expectedRevision: 'no_stream' }))).to.be.instanceOf(UnavailableError);
    expect(await rejection(drain(store.readStream('test-1')))).to.be.instanceOf(UnavailableError);
    expect(await rejection(store.readAll({ from: 'start', maxCount: 10 }))).to.be.instanceOf(UnavailableError);
    expect(await rejection(store.headPosition())).to.be.instanceOf(UnavailableError);
    expect(await rejection(store.lastCommittedPosition())).to.be.instanceOf(UnavailableError);
    expect(await rejection(store.probe(2000))).to.be.instanceOf(UnavailableError);
    const ac = new AbortController();
    expect(await rejection(drain(store.subscribeToAll({ from: 'start', signal: ac.signal })))).to.be.instanceOf(UnavailableError);
  });

  it('an unreachable log is the database unavailable: a request answers 503 database_unavailable with Retry-After, not 500', async () => {
    const err = await rejection(store.appendToStream('test-2', [{ id: '0190c6a0-0000-7000-8000-000000000002', type: 'T', data: {}, metadata: meta }], { expectedRevision: 'no_stream' }));
    expect(err).to.be.instanceOf(UnavailableError);
    expect(isDatabaseUnavailable(err)).to.equal(true);
    const out = toErrorResponse(err, 'billing.NoteInsertError', 'req-1');
    expect([out.status, out.body.code, out.headers['Retry-After']]).to.deep.equal([503, 'database_unavailable', '1']);
    // Past its deadline, or a follower where the leader is needed: the same, a retry may succeed.
    expect(isDatabaseUnavailable(new DeadlineExceededError(undefined, 'deadline exceeded'))).to.equal(true);
    expect(isDatabaseUnavailable(new NotLeaderError({ message: 'not leader', metadata: { getMap: () => ({ 'leader-endpoint-host': 'es2', 'leader-endpoint-port': '2113' }) } } as never))).to.equal(true);
    // What the log refuses is not an outage.
    expect(isDatabaseUnavailable(new AccessDeniedError(undefined, 'access denied'))).to.equal(false);
  });

  it('answers what needs no server without one: reads of nothing, and refusals of bad input', async () => {
    expect(await store.readAll({ from: 'end', maxCount: 10 })).to.deep.equal([]);
    expect(await store.readAll({ from: 'start', maxCount: 0 })).to.deep.equal([]);
    expect(await drain(store.readStream('test-1', { maxCount: 0 }))).to.deep.equal([]);
    const pg = formatPosition('1', '2');
    expect(await rejection(store.readAll({ from: { after: pg }, maxCount: 10 }))).to.be.instanceOf(InvalidPositionError);
    const ac = new AbortController();
    expect(await rejection(drain<RecordedEvent | CaughtUp>(store.subscribeToAll({ from: { after: pg }, signal: ac.signal })))).to.be.instanceOf(InvalidPositionError);
    expect(await rejection(store.appendToStream('test-1', [], { expectedRevision: 'any' }))).to.be.instanceOf(Error);
    expect(await rejection(store.appendToStream('test-1', [{ id: 'x', type: 'T', data: {}, metadata: meta }], { expectedRevision: -1n }))).to.be.instanceOf(RangeError);
  });

  it('waitForChange returns at once when the change token moved or the wait is aborted, and after close', async () => {
    const token = store.changeToken();
    expect(token).to.be.a('number');
    const moved = new AbortController();
    await store.waitForChange(null, token - 1, moved.signal);
    const ac = new AbortController();
    const waiting = store.waitForChange(null, token, ac.signal); // its wake-up subscription fails here: polling remains
    ac.abort();
    await waiting;
    const other = EsdbEventStore.fromConnectionString('esdb://127.0.0.1:1?tls=false');
    await other.close();
    await other.close();
    await other.waitForChange(null, other.changeToken(), new AbortController().signal);
  });
});
