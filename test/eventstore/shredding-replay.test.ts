// Issue 32's replay path: a replay meets more subjects than the decorator's key cache holds (keys are evicted and their
// slots reused while batches are opened) and still reads every value as written, "[erased]" for an erased subject; the
// key table's packed lookup returns exactly the keys and tombstones asked for, whatever characters a subject holds.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { backends, suiteStore } from '../support/db.ts';
import { shreddingStore } from '../../src/eventstore/shredding.ts';
import { TableKeyStore } from '../../src/eventstore/key-table.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { ERASED, customerSubjects } from '../../src/domain/personal.ts';
import type { EventData, EventStore, LogPosition } from '../../src/eventstore/port.ts';

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };
const updated = (name: string, email: string): EventData => ({ id: crypto.randomUUID(), type: 'CustomerUpdated', data: { changes: { name, email }, updated_at: '2026-01-02T00:00:00.000Z' }, metadata });

/** Every customer event's stream, name and email as read through `store`, in batches of `batch`. */
async function replay(store: EventStore, batch: number): Promise<string[]> {
  const out: string[] = [];
  let at: LogPosition | null = null;
  for (;;) {
    const events = await store.readAll({ from: at === null ? 'start' : { after: at }, maxCount: batch });
    for (const e of events) {
      const { name, email } = (e.data as { changes: { name: string; email: string } }).changes;
      out.push(`${e.streamId} ${name} ${email}`);
    }
    const last = events.at(-1);
    if (!last || events.length < batch) return out;
    at = last.position;
  }
}

for (const backend of backends()) {
  describe(`a replay through the crypto-shredding store (${backend})`, () => {
    const opened = suiteStore(backend);

    it('opens every value of more subjects than its key cache holds; an erased subject reads "[erased]"', async () => {
      const { db, store } = opened;
      const writer = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date(), { cacheLimit: 7 });
      const ids = Array.from({ length: 40 }, () => crypto.randomUUID());
      for (const [i, id] of ids.entries()) await writer.appendToStream(`customer-${id}`, [updated(`Name ${i}`, `c${i}@first.example`)], { expectedRevision: 'no_stream' });
      for (const [i, id] of ids.entries()) await writer.appendToStream(`customer-${id}`, [updated(`Renamed ${i}`, `c${i}@second.example`)], { expectedRevision: 0n });
      const gone = new Set([3, 17]);
      await writer.eraseSubjects([...gone].map((i) => customerSubjects(ids[i]!).erasable), new Date());
      expect(JSON.stringify(await db.knex('es_events').select('data'))).not.to.include('example');

      const expected = [
        ...ids.map((id, i) => `customer-${id} Name ${i} ${gone.has(i) ? ERASED : `c${i}@first.example`}`),
        ...ids.map((id, i) => `customer-${id} Renamed ${i} ${gone.has(i) ? ERASED : `c${i}@second.example`}`),
      ];
      // A small cache, batches of 9 events (18 subjects): keys are evicted within and between batches.
      const small = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date(), { cacheLimit: 7 });
      expect(await replay(small, 9)).to.deep.equal(expected);
      expect(await replay(small, 9), 'the same store again, its cache full of other keys').to.deep.equal(expected);
      const roomy = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      expect(await replay(roomy, 1000)).to.deep.equal(expected);
    });

    it('finds exactly the keys and tombstones asked for, whatever characters the subjects hold', async () => {
      const { db } = opened;
      const keys = new TableKeyStore(db.knex);
      const odd = [`customer:${crypto.randomUUID()}\u001fpart`, `customer:${crypto.randomUUID()} with space`];
      const plain = Array.from({ length: 3 }, () => `customer:${crypto.randomUUID()}`);
      const made = await keys.ensure([...plain, ...odd], new Date());
      const erased = plain[1]!;
      await keys.erase([erased], new Date());
      const absent = `customer:${crypto.randomUUID()}`;
      for (const asked of [plain, [...plain, ...odd, absent]]) {
        const found = await keys.find(asked);
        expect([...found.keys()].sort()).to.deep.equal(asked.filter((s) => s !== absent).sort());
        for (const s of asked.filter((x) => x !== absent)) {
          if (s === erased) expect(found.get(s), s).to.equal(null);
          else expect(found.get(s)?.toString('hex'), s).to.equal(made.get(s)?.toString('hex')).and.have.length(64);
        }
      }
    });
  });
}
