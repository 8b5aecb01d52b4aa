// The live fan-out over a real event store: one shared reader for many clients, catch-up handed over to
// live without gap or duplicate, and a client that stops reading is ended at its queue cap (it resumes).
import { expect } from 'chai';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { backends, suiteStore } from '../support/db.ts';
import { FANOUT_SLICE, LogFanout, catchUpThenLive } from '../../src/streams/fanout.ts';
import { Foreground } from '../../src/foreground.ts';
import type { SseMessage } from '../../src/contract/operation.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import net from 'node:net';
import { openPostgres } from '../../src/db.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { isDatabaseUnavailable } from '../../src/db-errors.ts';

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };

for (const backend of backends()) {
  describe(`log fan-out (${backend})`, function () {
    this.timeout(60_000);
    const opened = suiteStore(backend);
    let n = 0;
    const append = async (stream: string, count: number) => {
      for (let i = 0; i < count; i++) await opened.store.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'Tick', data: { n: n++ }, metadata }], { expectedRevision: 'any' });
    };
    const toMessage = (e: RecordedEvent): SseMessage => ({ id: e.position, event: 'tick', data: e.data });

    it('a client that stops reading is ended at its cap after the messages it had queued; a reading client misses nothing', async () => {
      const fanout = new LogFanout(opened.store);
      const abort = new AbortController();
      const stream = `slow-${crypto.randomUUID()}`;
      const select = (e: RecordedEvent) => e.streamId === stream;
      const slow = catchUpThenLive({ fanout, select, toMessage, catchUp: async function* () {}, signal: abort.signal, cap: 5 })[Symbol.asyncIterator]();
      const fast = catchUpThenLive({ fanout, select, toMessage, catchUp: async function* () {}, signal: abort.signal })[Symbol.asyncIterator]();
      const first = slow.next();
      const fastFirst = fast.next();
      // Both subscribed on their first next(); once the shared reader caught up, every append reaches both.
      await fanout.position();
      const all = firstValueFrom(fanout.events$.pipe(filter(select), take(21), toArray()));
      await append(stream, 21);
      await all;
      expect(((await first).value as SseMessage).data).to.deep.equal({ n: 0 });
      const rest: unknown[] = [];
      for (let r = await slow.next(); !r.done; r = await slow.next()) rest.push((r.value as SseMessage).data);
      expect(rest).to.deep.equal([1, 2, 3, 4, 5].map((k) => ({ n: k })));
      const fastSeen = [((await fastFirst).value as SseMessage).data];
      for (let k = 1; k < 21; k++) fastSeen.push(((await fast.next()).value as SseMessage).data);
      expect(fastSeen).to.deep.equal(Array.from({ length: 21 }, (_, k) => ({ n: k })));
      expect(fanout.clients).to.equal(1);
      abort.abort();
      expect((await fast.next()).done).to.equal(true);
      expect(fanout.clients).to.equal(0);
    });

    // `clients` sinks keeping the `n` of each event of `stream`, detached once every one has `count` of them;
    // `seen(k, got)` runs after each delivery to client k.
    function audience(fanout: LogFanout, stream: string, clients: number, count: number, seen: (k: number, got: number[]) => void = () => {}) {
      const got: number[][] = Array.from({ length: clients }, () => []);
      const done = new Promise<void>((resolve) => {
        let complete = 0;
        const detachers = Array.from({ length: clients }, (_, k) =>
          fanout.attach({
            event: (e) => {
              if (e.streamId !== stream) return;
              got[k]!.push((e.data as { n: number }).n);
              seen(k, got[k]!);
              if (got[k]!.length === count && ++complete === clients) {
                for (const d of detachers) d();
                resolve();
              }
            },
            end: () => {},
          }),
        );
      });
      return { got, done };
    }

    it('hands events read together to each client together, in log order (its stream writes them at once)', async () => {
      const fanout = new LogFanout(opened.store);
      const stream = `burst-${crypto.randomUUID()}`;
      // More clients than one slice: the last one is served after a turn of the loop, and still gets the burst whole.
      const clients = FANOUT_SLICE + 1;
      const turns = Array<number>(clients).fill(0);
      const turnsWithin = Array<number>(clients).fill(-1);
      // Counts the turns of the event loop that pass while each client receives the burst.
      const { got, done } = audience(fanout, stream, clients, 5, (k, g) => {
        if (g.length === 1) setImmediate(() => turns[k]!++);
        if (g.length === 5) turnsWithin[k] = turns[k]!;
      });
      await fanout.position();
      const first = n;
      await opened.store.appendToStream(stream, Array.from({ length: 5 }, () => ({ id: crypto.randomUUID(), type: 'Tick', data: { n: n++ }, metadata })), { expectedRevision: 'any' });
      await done;
      for (const g of got) expect(g).to.deep.equal([first, first + 1, first + 2, first + 3, first + 4]);
      expect(turnsWithin, 'turns of the loop between the first and the last event of the burst, per client').to.deep.equal(Array(clients).fill(0));
    });

    it('lets operation requests in flight go first: an event reaches the clients once the last request is done', async () => {
      const fg = new Foreground();
      const fanout = new LogFanout(opened.store, { foreground: fg, maxYieldMs: 60_000 });
      const stream = `yield-${crypto.randomUUID()}`;
      const clients = FANOUT_SLICE + 1;
      const { got, done } = audience(fanout, stream, clients, 1);
      const served = () => got.filter((g) => g.length > 0).length;
      await fanout.position();
      const first = fg.enter();
      const second = fg.enter();
      const read = firstValueFrom(fanout.events$.pipe(filter((e) => e.streamId === stream)));
      await append(stream, 1);
      await read;
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(served(), 'clients served while two requests are in flight').to.equal(0);
      first();
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(served(), 'clients served while one request is in flight').to.equal(0);
      second();
      await done;
      expect(served()).to.equal(clients);
    });

    it('hands each event to a large audience a slice at a time, in log order, letting other work run between slices', async () => {
      const fanout = new LogFanout(opened.store);
      const stream = `wide-${crypto.randomUUID()}`;
      const clients = 3 * FANOUT_SLICE + 1;
      // Events after whose delivery to the first client other work ran (before the last client had them).
      const turnedAfter = new Set<number>();
      const order: string[] = [];
      const { got: seen, done } = audience(fanout, stream, clients, 3, (k, g) => {
        const latest = g.at(-1)!;
        // Work queued when the first client hears of an event runs before the last client does.
        if (k === 0) setImmediate(() => turnedAfter.add(latest));
        if (k === clients - 1) order.push(turnedAfter.has(latest) ? 'other work, then last client' : 'last client first');
      });
      await fanout.position();
      const first = n;
      await append(stream, 3);
      await done;
      for (const got of seen) expect(got).to.deep.equal([first, first + 1, first + 2]);
      expect(order).to.deep.equal(Array(3).fill('other work, then last client'));
    });
  });
}

describe('log fan-out without its database', () => {
  it('a client waiting for the shared reader\'s first catch-up fails with the database\'s error (its stream ends; it resumes) instead of waiting for ever', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const db = openPostgres(`postgres://postgres@127.0.0.1:${port}/none`, 2);
    const store = new PostgresEventStore(db);
    try {
      const fanout = new LogFanout(store);
      const client = catchUpThenLive({ fanout, select: () => true, toMessage: (e) => ({ event: 'e', data: e.data }), catchUp: async function* () {}, signal: new AbortController().signal });
      const outcome = await Promise.race([
        client[Symbol.asyncIterator]().next().then(() => 'a message', (err: unknown) => err),
        new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5_000)),
      ]);
      expect(isDatabaseUnavailable(outcome), String(outcome)).to.equal(true);
      expect(fanout.clients).to.equal(0);
    } finally {
      await store.close();
      await db.close();
    }
  });
});
