// The live fan-out over a real event store: one shared reader for many clients, catch-up handed over to
// live without gap or duplicate, and a client that stops reading is ended at its queue cap (it resumes).
import { expect } from 'chai';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { backends, suiteStore } from '../support/db.ts';
import { FANOUT_SLICE, LogFanout, catchUpThenLive } from '../../src/streams/fanout.ts';
import type { SseMessage } from '../../src/api/operation.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';

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

    it('hands each event to a large audience a slice at a time, in log order, letting other work run between slices', async () => {
      const fanout = new LogFanout(opened.store);
      const stream = `wide-${crypto.randomUUID()}`;
      const clients = 3 * FANOUT_SLICE + 1;
      const seen: number[][] = Array.from({ length: clients }, () => []);
      const order: string[] = [];
      let turned = false;
      const all = new Promise<void>((resolve) => {
        const detachers = Array.from({ length: clients }, (_, k) =>
          fanout.attach({
            event: (e) => {
              if (e.streamId !== stream) return;
              seen[k]!.push((e.data as { n: number }).n);
              // Work queued when the first client hears of an event runs before the last client does.
              if (k === 0) setImmediate(() => (turned = true));
              if (k === clients - 1) {
                order.push(turned ? 'other work, then last client' : 'last client first');
                turned = false;
                if (seen[k]!.length === 3) {
                  for (const d of detachers) d();
                  resolve();
                }
              }
            },
            end: () => {},
          }),
        );
      });
      await fanout.position();
      const first = n;
      await append(stream, 3);
      await all;
      for (const got of seen) expect(got).to.deep.equal([first, first + 1, first + 2]);
      expect(order).to.deep.equal(Array(3).fill('other work, then last client'));
    });
  });
}
