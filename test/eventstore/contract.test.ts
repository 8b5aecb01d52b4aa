// Event store contract: every adapter must pass it. PGlite always; Postgres when TEST_DATABASE_URL is set;
// EventStoreDB when TEST_EVENTSTORE_URL is set (docs/eventstoredb.md), else one line says it did not run.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { parseEventStore } from '../../src/config.ts';
import type { Db } from '../../src/db.ts';
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { type EventData, type EventStore, type RecordedEvent, RequiredStreamMissingError, WrongExpectedVersionError, comparePositions } from '../../src/eventstore/port.ts';
import { backends, openTestDb } from '../support/db.ts';

const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };

function ev(type: string, data: unknown = {}): EventData {
  return { id: crypto.randomUUID(), type, data, metadata: meta };
}

async function collect(it: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

async function wrongVersion(p: Promise<unknown>): Promise<WrongExpectedVersionError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(WrongExpectedVersionError);
    return err as WrongExpectedVersionError;
  }
  throw new Error('expected WrongExpectedVersionError');
}

/** Waits until `position` is readable. On a shared Postgres server a transaction open in any database delays it (the xid8 rule). */
async function visible(store: EventStore, position: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await store.headPosition()) !== position && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const stream = (cat = 'test') => `${cat}-${crypto.randomUUID()}`;

/** An adapter under contract: the store, and the Postgres database behind it for the Postgres-only cases. */
interface Target {
  backend: 'pglite' | 'postgres' | 'eventstoredb';
  open(): Promise<{ store: EventStore; db?: Db }>;
}

function targets(): Target[] {
  const list: Target[] = backends().map((backend) => ({
    backend,
    async open() {
      const db = await openTestDb(backend);
      return { store: new PostgresEventStore(db), db };
    },
  }));
  const url = process.env.TEST_EVENTSTORE_URL;
  if (!url) {
    console.log('event store contract (eventstoredb): not run: TEST_EVENTSTORE_URL is not set (with a server: TEST_EVENTSTORE_URL=esdb://127.0.0.1:2113?tls=false npm test; see docs/eventstoredb.md)');
    return list;
  }
  const log = parseEventStore(url);
  if (log.kind !== 'esdb') throw new Error(`TEST_EVENTSTORE_URL must be an esdb:// or kurrentdb:// connection string, got ${url}`);
  list.push({
    backend: 'eventstoredb',
    async open() {
      const store = EsdbEventStore.fromConnectionString(log.connectionString);
      await store.probe();
      return { store };
    },
  });
  return list;
}

for (const { backend, open } of targets()) {
  describe(`event store contract (${backend})`, function () {
    this.timeout(120_000);
    let db: Db | undefined;
    let store: EventStore;
    before(async () => {
      ({ store, db } = await open());
    });
    after(async () => {
      await store?.close();
      await db?.close();
    });
    /** The Postgres database behind the store, for the cases that only the Postgres log has. */
    const pgDb = (): Db => {
      if (!db) throw new Error(`${backend} has no Postgres database`);
      return db;
    };

    it('appends several events atomically with consecutive revisions', async () => {
      const s = stream();
      const res = await store.appendToStream(s, [ev('A'), ev('B'), ev('C')], { expectedRevision: 'no_stream' });
      expect(res.nextExpectedRevision).to.equal(2n);
      expect(res.duplicate).to.equal(false);
      const read = await collect(store.readStream(s));
      expect(read.map((e) => [e.type, e.revision])).to.deep.equal([['A', 0n], ['B', 1n], ['C', 2n]]);
      expect(read[2]!.position).to.equal(res.position);
      // A batch refused for its expected revision stores none of its events.
      const refused = stream();
      await wrongVersion(store.appendToStream(refused, [ev('X'), ev('Y')], { expectedRevision: 'stream_exists' }));
      expect(await collect(store.readStream(refused))).to.have.length(0);
      // The Postgres log keeps event ids unique across streams, so a batch with a clashing id fails as a whole.
      // (EventStoreDB scopes ids to a stream: the same id in another stream is a new event. Ours are derived per stream.)
      if (backend !== 'eventstoredb') {
        const taken = read[0]!.id;
        const other = stream();
        let failed = false;
        try {
          await store.appendToStream(other, [ev('X'), { ...ev('Y'), id: taken }], { expectedRevision: 'any' });
        } catch {
          failed = true;
        }
        expect(failed).to.equal(true);
        expect(await collect(store.readStream(other))).to.have.length(0);
      }
    });

    it('keeps the metadata (actor, request, correlation and causation ids, reason) and the command time', async () => {
      const s = stream();
      const full = { org_id: crypto.randomUUID(), actor: { type: 'user' as const, id: crypto.randomUUID() }, request_id: 'req-1', correlation_id: 'corr-1', causation_id: 'cause-1', reason: 'customer asked' };
      const now = new Date('2026-03-04T05:06:07.089Z');
      const res = await store.appendToStream(s, [{ id: crypto.randomUUID(), type: 'Noted', data: { text: 'hi', n: 1 }, metadata: full }], { expectedRevision: 'no_stream', now });
      const [e] = await collect(store.readStream(s));
      expect(e?.metadata).to.deep.equal(full);
      expect(e?.data).to.deep.equal({ text: 'hi', n: 1 });
      expect(e?.createdAt.toISOString()).to.equal(now.toISOString());
      await visible(store, res.position);
      const [fromAll] = (await store.readAll({ from: 'start', maxCount: 100_000 })).filter((x) => x.streamId === s);
      expect(fromAll).to.deep.equal(e);
      expect(await store.lastCommittedPosition()).to.equal(res.position);
    });

    it('checks expected revision any, no_stream, stream_exists and exact, reporting the actual revision', async () => {
      const s = stream();
      // stream_exists on a missing stream
      const e1 = await wrongVersion(store.appendToStream(s, [ev('A')], { expectedRevision: 'stream_exists' }));
      expect(e1.actual).to.equal('no_stream');
      expect(e1.stream).to.equal(s);
      // exact on a missing stream
      const e2 = await wrongVersion(store.appendToStream(s, [ev('A')], { expectedRevision: 0n }));
      expect(e2.actual).to.equal('no_stream');
      await store.appendToStream(s, [ev('A')], { expectedRevision: 'no_stream' });
      const e3 = await wrongVersion(store.appendToStream(s, [ev('B')], { expectedRevision: 'no_stream' }));
      expect(e3.actual).to.equal(0n);
      await store.appendToStream(s, [ev('B')], { expectedRevision: 'stream_exists' });
      await store.appendToStream(s, [ev('C')], { expectedRevision: 1n });
      const e4 = await wrongVersion(store.appendToStream(s, [ev('D')], { expectedRevision: 1n }));
      expect(e4.actual).to.equal(2n);
      expect(e4.expected).to.equal(1n);
      const e5 = await wrongVersion(store.appendToStream(s, [ev('D')], { expectedRevision: 5n }));
      expect(e5.actual).to.equal(2n);
      const r = await store.appendToStream(s, [ev('D')], { expectedRevision: 'any' });
      expect(r.nextExpectedRevision).to.equal(3n);
      const fresh = await store.appendToStream(stream(), [ev('A')], { expectedRevision: 'any' });
      expect(fresh.nextExpectedRevision).to.equal(0n);
      expect((await collect(store.readStream(s))).map((e) => e.type)).to.deep.equal(['A', 'B', 'C', 'D']);
    });

    it('reads a stream forwards, backwards, from a revision and up to maxCount; a missing stream is empty', async () => {
      const s = stream();
      await store.appendToStream(s, Array.from({ length: 10 }, (_, i) => ev(`E${i}`)), { expectedRevision: 'no_stream' });
      const types = (xs: RecordedEvent[]) => xs.map((e) => e.type);
      expect(types(await collect(store.readStream(s)))).to.deep.equal(['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9']);
      expect(types(await collect(store.readStream(s, { direction: 'backwards' })))).to.deep.equal(['E9', 'E8', 'E7', 'E6', 'E5', 'E4', 'E3', 'E2', 'E1', 'E0']);
      expect(types(await collect(store.readStream(s, { fromRevision: 7n })))).to.deep.equal(['E7', 'E8', 'E9']);
      expect(types(await collect(store.readStream(s, { fromRevision: 2n, direction: 'backwards' })))).to.deep.equal(['E2', 'E1', 'E0']);
      expect(types(await collect(store.readStream(s, { maxCount: 3 })))).to.deep.equal(['E0', 'E1', 'E2']);
      expect(types(await collect(store.readStream(s, { fromRevision: 5n, maxCount: 2 })))).to.deep.equal(['E5', 'E6']);
      expect(types(await collect(store.readStream(s, { direction: 'backwards', maxCount: 2 })))).to.deep.equal(['E9', 'E8']);
      expect(types(await collect(store.readStream(s, { fromRevision: 20n })))).to.deep.equal([]);
      expect(await collect(store.readStream(stream()))).to.deep.equal([]);
      const [first] = await collect(store.readStream(s, { maxCount: 1 }));
      expect(first).to.include({ streamId: s, type: 'E0', revision: 0n });
      expect(first!.metadata).to.deep.equal(meta);
      expect(first!.createdAt).to.be.instanceOf(Date);
    });

    it('reads $all from the start, after a position, and from the end', async () => {
      const s = stream();
      const before = await store.headPosition();
      await store.appendToStream(s, [ev('A'), ev('B')], { expectedRevision: 'no_stream' });
      const r2 = await store.appendToStream(s, [ev('C')], { expectedRevision: 1n });
      await visible(store, r2.position);
      const all = await store.readAll({ from: 'start', maxCount: 100_000 });
      expect(all.length).to.be.greaterThan(2);
      for (let i = 1; i < all.length; i++) expect(all[i - 1]!.position < all[i]!.position).to.equal(true);
      const mine = (before === null ? all : await store.readAll({ from: { after: before }, maxCount: 100_000 })).filter((e) => e.streamId === s);
      expect(mine.map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
      const afterA = await store.readAll({ from: { after: mine[0]!.position }, maxCount: 100_000 });
      expect(afterA.filter((e) => e.streamId === s).map((e) => e.type)).to.deep.equal(['B', 'C']);
      expect(afterA.at(-1)!.position).to.equal(r2.position);
      expect(await store.readAll({ from: { after: r2.position }, maxCount: 100 })).to.deep.equal([]);
      expect(await store.readAll({ from: 'end', maxCount: 100 })).to.deep.equal([]);
      expect((await store.readAll({ from: 'start', maxCount: 2 })).length).to.equal(2);
      expect(await store.headPosition()).to.equal(r2.position);
    });

    it('treats a retry with the same event ids as a no-op that returns the first position', async () => {
      const s = stream();
      const events = [ev('A'), ev('B')];
      const first = await store.appendToStream(s, events, { expectedRevision: 'no_stream' });
      // The retry carries the same expected revision as the first attempt (which is now stale).
      const again = await store.appendToStream(s, events, { expectedRevision: 'no_stream' });
      expect(again).to.deep.equal({ ...first, duplicate: true });
      expect(await collect(store.readStream(s))).to.have.length(2);
      // With 'any' and 'stream_exists' the expected revision still holds on a retry: the stored ids tell.
      for (const expectedRevision of ['any', 'stream_exists'] as const) {
        expect(await store.appendToStream(s, events, { expectedRevision })).to.deep.equal({ ...first, duplicate: true });
      }
      expect(await collect(store.readStream(s))).to.have.length(2);
    });

    it('appends with requireStream only while that other stream exists; otherwise writes nothing', async () => {
      const owner = stream('owner');
      const s = stream();
      const refused = await store.appendToStream(s, [ev('A')], { expectedRevision: 'no_stream', requireStream: owner }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(RequiredStreamMissingError);
      expect(await collect(store.readStream(s))).to.have.length(0);
      await store.appendToStream(owner, [ev('Owner')], { expectedRevision: 'no_stream' });
      const events = [ev('A'), ev('B')];
      const res = await store.appendToStream(s, events, { expectedRevision: 'no_stream', requireStream: owner });
      expect(res.nextExpectedRevision).to.equal(1n);
      expect((await collect(store.readStream(s))).map((e) => e.type)).to.deep.equal(['A', 'B']);
      // The required stream is only read: it is unchanged, and a retry is the same no-op as without the option.
      expect(await collect(store.readStream(owner))).to.have.length(1);
      expect(await store.appendToStream(s, events, { expectedRevision: 'no_stream', requireStream: owner })).to.deep.equal({ ...res, duplicate: true });
      await wrongVersion(store.appendToStream(s, [ev('C')], { expectedRevision: 'no_stream', requireStream: owner }));
    });

    it('lets exactly one of several concurrent appends with the same expected revision win', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('Start')], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.appendToStream(s, [ev(`W${i}`)], { expectedRevision: 0n })));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).to.have.length(1);
      expect(lost).to.have.length(9);
      for (const l of lost) {
        expect(l.reason).to.be.instanceOf(WrongExpectedVersionError);
        expect((l.reason as WrongExpectedVersionError).actual).to.equal(1n);
      }
      expect(await collect(store.readStream(s))).to.have.length(2);
      // Same for no_stream on a new stream.
      const n = stream();
      const created = await Promise.allSettled(Array.from({ length: 10 }, () => store.appendToStream(n, [ev('Created')], { expectedRevision: 'no_stream' })));
      expect(created.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    });

    it('answers each of a burst of one-event appends as if it were alone: new, next, conflicting, retried, ahead, missing owner', async () => {
      const owner = stream('owner');
      const existing = stream();
      const stored = ev('Stored');
      await store.appendToStream(existing, [ev('Start')], { expectedRevision: 'no_stream' });
      const retried = await store.appendToStream(existing, [stored], { expectedRevision: 0n });
      const fresh = Array.from({ length: 12 }, () => stream());
      const racing = stream();
      await store.appendToStream(racing, [ev('Start')], { expectedRevision: 'no_stream' });
      const withOwner = stream();
      const orphan = stream();
      await store.appendToStream(owner, [ev('Owner')], { expectedRevision: 'no_stream' });
      const poisoned = stream();
      // All sent in the same turn of the loop: a log that appends them together must still answer each alone.
      const [news, retry, race, ahead, owned, missing, poison] = await Promise.all([
        Promise.all(fresh.map((s) => store.appendToStream(s, [ev('New')], { expectedRevision: 'no_stream' }))),
        store.appendToStream(existing, [stored], { expectedRevision: 0n }),
        Promise.allSettled([0, 1, 2].map((i) => store.appendToStream(racing, [ev(`Racer${i}`)], { expectedRevision: 0n }))),
        store.appendToStream(existing, [ev('Ahead')], { expectedRevision: 5n }).then(() => null, (err: unknown) => err),
        store.appendToStream(withOwner, [ev('Owned')], { expectedRevision: 'no_stream', requireStream: owner }),
        store.appendToStream(orphan, [ev('Orphan')], { expectedRevision: 'no_stream', requireStream: stream('owner') }).then(() => null, (err: unknown) => err),
        // Data the database refuses (jsonb has no NUL character): that append fails, the others of its burst do not.
        store.appendToStream(poisoned, [ev('Poison', { text: 'a\u0000b' })], { expectedRevision: 'no_stream' }).then(() => null, (err: unknown) => err),
      ]);
      expect(news.map((r) => r.nextExpectedRevision)).to.deep.equal(fresh.map(() => 0n));
      expect(new Set(news.map((r) => r.position)).size).to.equal(fresh.length);
      expect(retry).to.deep.equal({ ...retried, duplicate: true });
      expect(race.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of race.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) expect((r.reason as WrongExpectedVersionError).actual).to.equal(1n);
      expect(ahead).to.be.instanceOf(WrongExpectedVersionError);
      expect((ahead as WrongExpectedVersionError).actual).to.equal(1n);
      expect(owned.nextExpectedRevision).to.equal(0n);
      expect(missing).to.be.instanceOf(RequiredStreamMissingError);
      expect(poison).to.be.instanceOf(Error);
      expect(await collect(store.readStream(poisoned))).to.have.length(0);
      // What the log holds: each stream exactly what its answers said, nothing of the refused ones.
      expect((await collect(store.readStream(existing))).map((e) => e.type)).to.deep.equal(['Start', 'Stored']);
      expect(await collect(store.readStream(racing))).to.have.length(2);
      expect(await collect(store.readStream(orphan))).to.have.length(0);
      for (const s of [...fresh, withOwner]) expect(await collect(store.readStream(s))).to.have.length(1);
      // Every answered position is in $all exactly once, in the order of the positions.
      const last = news.map((r) => r.position).sort(comparePositions).at(-1)!;
      await visible(store, [last, owned.position].sort(comparePositions).at(-1)!);
      const all = await store.readAll({ from: 'start', maxCount: 100_000 });
      const answered = [...news.map((r) => r.position), owned.position];
      for (const p of answered) expect(all.filter((e) => e.position === p)).to.have.length(1);
    });

    it('20 writers on 200 streams while a reader follows $all: every event exactly once, each stream in order', async () => {
      const start = await store.headPosition();
      const streams = Array.from({ length: 200 }, () => stream('load'));
      const perStream = 10;
      const total = streams.length * perStream;
      const seen = new Map<string, bigint[]>();
      const ids = new Set<string>();
      let count = 0;
      const abort = new AbortController();
      const reader = (async () => {
        for await (const e of store.subscribeToAll({ from: start === null ? 'start' : { after: start }, signal: abort.signal, filter: (x) => x.streamId.startsWith('load-') })) {
          if ('kind' in e) continue;
          expect(ids.has(e.id), `event ${e.id} delivered twice`).to.equal(false);
          ids.add(e.id);
          seen.set(e.streamId, [...(seen.get(e.streamId) ?? []), e.revision]);
          if (++count === total) return;
        }
      })();
      // Each writer owns 10 streams and appends one event at a time round-robin (some batched 2 at once).
      await Promise.all(
        Array.from({ length: 20 }, async (_, w) => {
          const mine = streams.slice(w * 10, w * 10 + 10);
          const next = new Map(mine.map((s) => [s, 0]));
          for (let round = 0; round < perStream; ) {
            const batch = round % 3 === 1 && round + 1 < perStream ? 2 : 1;
            for (const s of mine) {
              const rev = next.get(s)!;
              await store.appendToStream(s, Array.from({ length: batch }, (_, i) => ev('Loaded', { n: rev + i })), { expectedRevision: rev === 0 ? 'no_stream' : BigInt(rev - 1) });
              next.set(s, rev + batch);
            }
            round += batch;
          }
        }),
      );
      const timeout = setTimeout(() => abort.abort(), 60_000);
      await reader;
      clearTimeout(timeout);
      abort.abort();
      expect(count).to.equal(total);
      expect(seen.size).to.equal(200);
      for (const [, revs] of seen) expect(revs).to.deep.equal(Array.from({ length: perStream }, (_, i) => BigInt(i)));
    });

    it('subscribeToAll signals caughtUp, then delivers live appends; from end skips history', async () => {
      const abort = new AbortController();
      const s = stream();
      const old = await store.appendToStream(s, [ev('Old')], { expectedRevision: 'no_stream' });
      await visible(store, old.position);
      const got: string[] = [];
      let caughtUp = false;
      const sub = (async () => {
        for await (const e of store.subscribeToAll({ from: 'end', signal: abort.signal, filter: (x) => x.streamId === s })) {
          if ('kind' in e) {
            caughtUp = true;
            await store.appendToStream(s, [ev('New')], { expectedRevision: 0n });
            continue;
          }
          got.push(e.type);
          if (e.type === 'New') return;
        }
      })();
      const t = setTimeout(() => abort.abort(), 20_000);
      await sub;
      clearTimeout(t);
      abort.abort();
      expect(caughtUp).to.equal(true);
      expect(got).to.deep.equal(['New']);
    });

    if (backend === 'postgres') {
      // Postgres only: PGlite has one connection, so no transaction can commit late; EventStoreDB has no reader-visible transactions.
      it('never skips a late-committing transaction (Postgres only: PGlite has one connection, so no transaction can commit late)', async () => {
        const db = pgDb();
        const start = await store.headPosition();
        const abort = new AbortController();
        const seen: string[] = [];
        const reader = (async () => {
          const mine = new Set(['Late', 'Early0', 'Early1', 'Early2']);
          for await (const e of store.subscribeToAll({ from: start === null ? 'start' : { after: start }, signal: abort.signal, filter: (x) => mine.has(x.type) })) {
            if ('kind' in e) continue;
            seen.push(e.type);
            if (seen.length === 4) return;
          }
        })();
        const late = stream();
        // Open a transaction that appends (it takes its xid first), keep it open while later appends commit.
        const trx = await db.knex.transaction();
        await trx.raw('select * from es_append(?, ?, ?::jsonb, ?)', [late, 'no_stream', JSON.stringify([{ id: crypto.randomUUID(), type: 'Late', data: {}, metadata: meta }]), new Date()]);
        for (let i = 0; i < 3; i++) await store.appendToStream(stream(), [ev(`Early${i}`)], { expectedRevision: 'no_stream' });
        // The later commits have higher global positions; the reader must wait for the open transaction.
        await new Promise((r) => setTimeout(r, 300));
        expect(seen).to.deep.equal([]);
        await trx.commit();
        const t = setTimeout(() => abort.abort(), 20_000);
        await reader;
        clearTimeout(t);
        abort.abort();
        expect(seen).to.have.members(['Late', 'Early0', 'Early1', 'Early2']);
        expect(seen[0]).to.equal('Late');
        const late2 = await collect(store.readStream(late));
        expect(late2.map((e) => e.type)).to.deep.equal(['Late']);
      });

      it('refuses an append that is not the first write of its transaction, writing nothing (revision order relies on it)', async () => {
        const db = pgDb();
        const s = stream();
        const trx = await db.knex.transaction();
        try {
          await trx.raw('create temporary table earlier_write (n int) on commit drop');
          await trx.raw('insert into earlier_write values (1)');
          const refused = await trx.raw('select * from es_append_one(?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, null)', [s, '-1', crypto.randomUUID(), 'A', '{}', JSON.stringify(meta), new Date()]).then(
            () => null,
            (err: { code?: string }) => err.code,
          );
          expect(refused).to.equal('ES400');
        } finally {
          await trx.rollback();
        }
        expect(await collect(store.readStream(s))).to.have.length(0);
      });

      it('appends racing an open append to one stream: the same revision conflicts, any takes the next, xids follow revisions (Postgres only)', async () => {
        const db = pgDb();
        const s = stream();
        await store.appendToStream(s, [ev('A')], { expectedRevision: 'no_stream' });
        const trx = await db.knex.transaction();
        let exact: Promise<unknown> = Promise.resolve();
        let any: Promise<unknown> = Promise.resolve();
        try {
          await trx.raw('select * from es_append_one(?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, null)', [s, '0', crypto.randomUUID(), 'B', '{}', JSON.stringify(meta), new Date()]);
          exact = store.appendToStream(s, [ev('C')], { expectedRevision: 0n }).catch((err: unknown) => err);
          any = store.appendToStream(s, [ev('D')], { expectedRevision: 'any' }).catch((err: unknown) => err);
          // Both insert revision 1 too and wait for the open transaction's row.
          const deadline = Date.now() + 20_000;
          const waiting = async () => Number((await db.knex.raw(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0].n);
          while ((await waiting()) < 2 && Date.now() < deadline);
          await trx.commit();
        } catch (err) {
          await trx.rollback();
          throw err;
        }
        const lost = await exact;
        expect(lost).to.be.instanceOf(WrongExpectedVersionError);
        // The actual revision is read after the conflict: the racing 'any' append may have landed by then.
        expect([1n, 2n]).to.include((lost as WrongExpectedVersionError).actual);
        expect(await any).to.include({ nextExpectedRevision: 2n, duplicate: false });
        const read = await collect(store.readStream(s));
        expect(read.map((e) => e.type)).to.deep.equal(['A', 'B', 'D']);
        const positions = read.map((e) => e.position);
        expect([...positions].sort()).to.deep.equal(positions);
      });

      it('is not held back by a transaction open in another database of the same server (Postgres only)', async () => {
        const other = await openTestDb('postgres');
        const trx = await other.knex.transaction();
        try {
          await trx.raw('select pg_current_xact_id()'); // takes an xid and keeps it while open
          const before = await store.headPosition();
          const res = await store.appendToStream(stream(), [ev('WhileOtherDbBusy')], { expectedRevision: 'no_stream' });
          const read = await store.readAll({ from: before === null ? 'start' : { after: before }, maxCount: 100 });
          expect(read.map((e) => e.position)).to.include(res.position);
          expect(await store.headPosition()).to.equal(res.position);
        } finally {
          await trx.rollback();
          await other.close();
        }
      });
    }
  });
}
