// Issue 31/32: a new data subject's key is stored by its first append, in the same statement and commit (no commit
// of its own before it). Processes (crypto-shredding stores, each its own key cache) racing for the same new subject
// still agree on one key, and an append the log refuses leaves no key behind, on both backends.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { backends, suiteStore } from '../support/db.ts';
import { shreddingStore } from '../../src/eventstore/shredding.ts';
import { TableKeyStore } from '../../src/eventstore/key-table.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { customerSubjects } from '../../src/domain/personal.ts';
import { type EventData, type EventStore, WrongExpectedVersionError } from '../../src/eventstore/port.ts';

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };
const customerUpdated = (email: string): EventData => ({ id: crypto.randomUUID(), type: 'CustomerUpdated', data: { changes: { name: 'Erin Ltd', email }, updated_at: '2026-01-02T00:00:00.000Z' }, metadata });
const emailClaimed = (email: string, userId: string): EventData => ({ id: crypto.randomUUID(), type: 'EmailClaimed', data: { email, user_id: userId }, metadata });

async function readAllData(store: EventStore, stream: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of store.readStream(stream)) out.push(e.data);
  return out;
}

for (const backend of backends()) {
  describe(`a new subject's key comes with its first append (${backend})`, () => {
    const opened = suiteStore(backend);
    const processes = (n: number) => Array.from({ length: n }, () => shreddingStore(opened.store, new TableKeyStore(opened.db.knex), PERSONAL_FIELDS, () => new Date()));
    const keyRows = async (subjects: string[]) => (await opened.db.knex('data_subject_keys').whereIn('subject', subjects).select('subject', 'key')) as { subject: string; key: Buffer | null }[];

    it('stores the keys of a new stream\'s subjects with its event, and another process reads the values', async () => {
      const [a, b] = processes(2);
      const id = crypto.randomUUID();
      await a!.appendToStream(`customer-${id}`, [customerUpdated('erin@new.example')], { expectedRevision: 'no_stream' });
      const { erasable, retained } = customerSubjects(id);
      const rows = await keyRows([erasable, retained]);
      expect(rows.map((r) => r.subject).sort()).to.deep.equal([erasable, retained].sort());
      for (const r of rows) expect(r.key).to.have.length(32);
      const stored = JSON.stringify(await opened.db.knex('es_events').where({ stream_id: `customer-${id}` }).select('data'));
      expect(stored).not.to.include('erin@new.example');
      expect(await readAllData(b!, `customer-${id}`)).to.deep.equal([{ changes: { name: 'Erin Ltd', email: 'erin@new.example' }, updated_at: '2026-01-02T00:00:00.000Z' }]);
    });

    it('leaves no key behind when the log refuses the append', async () => {
      const [a] = processes(1);
      const id = crypto.randomUUID();
      // The stream exists already, without the customer's subjects (a plain event, written past the decorator).
      await opened.store.appendToStream(`customer-${id}`, [{ id: crypto.randomUUID(), type: 'CustomerRemoved', data: { removed_at: '2026-01-01T00:00:00.000Z' }, metadata }], { expectedRevision: 'no_stream' });
      const refused = await a!.appendToStream(`customer-${id}`, [customerUpdated('erin@refused.example')], { expectedRevision: 'no_stream' }).catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(WrongExpectedVersionError);
      expect(await keyRows(Object.values(customerSubjects(id)))).to.deep.equal([]);
      // Nor does the refusal leave a key in the process's cache that the table never got: the next append makes one.
      await a!.appendToStream(`customer-${id}`, [customerUpdated('erin@second.example')], { expectedRevision: 0n });
      expect(await keyRows(Object.values(customerSubjects(id)))).to.have.length(2);
      const [, second] = await readAllData(processes(1)[0]!, `customer-${id}`);
      expect(second).to.deep.equal({ changes: { name: 'Erin Ltd', email: 'erin@second.example' }, updated_at: '2026-01-02T00:00:00.000Z' });
    });

    for (const mode of ['together', 'one after another'] as const) {
      it(`processes creating the same new subject in new streams (${mode}) agree on one key, and every value reads`, async () => {
        const stores = processes(8);
        const userId = crypto.randomUUID();
        const streams = stores.map(() => `useremail-${crypto.randomUUID()}`);
        const append = (i: number) => stores[i]!.appendToStream(streams[i]!, [emailClaimed(`user${i}@race.example`, userId)], { expectedRevision: 'no_stream' });
        if (mode === 'together') await Promise.all(stores.map((_, i) => append(i)));
        else for (let i = 0; i < stores.length; i++) await append(i);
        const rows = await keyRows([`user:${userId}`]);
        expect(rows).to.have.length(1);
        const reader = processes(1)[0]!;
        for (let i = 0; i < streams.length; i++) expect(await readAllData(reader, streams[i]!), streams[i]).to.deep.equal([{ email: `user${i}@race.example`, user_id: userId }]);
      });
    }

    it('processes racing to start the same stream: one event, one key per subject, the losers told of the conflict', async () => {
      const stores = processes(8);
      const id = crypto.randomUUID();
      const outcomes = await Promise.allSettled(stores.map((s, i) => s.appendToStream(`customer-${id}`, [customerUpdated(`erin${i}@race.example`)], { expectedRevision: 'no_stream' })));
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).to.have.length(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).to.be.instanceOf(WrongExpectedVersionError);
      expect(await keyRows(Object.values(customerSubjects(id)))).to.have.length(2);
      const [data] = await readAllData(processes(1)[0]!, `customer-${id}`);
      expect((data as { changes: { email: string } }).changes.email).to.match(/^erin\d@race\.example$/);
    });
  });
}
