// Issue 32: a key cached by one process never seals a value after another process erased it. Two crypto-shredding
// stores over one database stand for two processes (each its own key cache): the first caches a customer's keys, the
// second erases them, then the first appends again: the log refuses the append sealed with the erased key, and the
// value is stored as "[erased]" (no envelope under a key that is gone), on both backends.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { backends, suiteStore } from '../support/db.ts';
import { shreddingStore } from '../../src/eventstore/shredding.ts';
import { TableKeyStore } from '../../src/eventstore/key-table.ts';
import type { KeyStore } from '../../src/eventstore/keys.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { customerSubjects } from '../../src/domain/personal.ts';
import type { EventData, EventStore } from '../../src/eventstore/port.ts';

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };
const updated = (email: string): EventData => ({ id: crypto.randomUUID(), type: 'CustomerUpdated', data: { changes: { name: 'Erin Ltd', email }, updated_at: '2026-01-02T00:00:00.000Z' }, metadata });

for (const backend of backends()) {
  describe(`a key erased by another process seals nothing more (${backend})`, () => {
    const opened = suiteStore(backend);

    async function storedEmails(stream: string): Promise<unknown[]> {
      const rows = (await opened.db.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('data')) as { data: { changes: { email: unknown } } }[];
      return rows.map((r) => r.data.changes.email);
    }
    async function readEmails(store: EventStore, stream: string): Promise<unknown[]> {
      const out: unknown[] = [];
      for await (const e of store.readStream(stream)) out.push((e.data as { changes: { email: unknown } }).changes.email);
      return out;
    }

    for (const expected of ['exact', 'any'] as const) {
      it(`stores "[erased]" instead of sealing with the stale cached key (expected revision ${expected})`, async () => {
        const { db, store } = opened;
        const a = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
        const b = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
        const id = crypto.randomUUID();
        const stream = `customer-${id}`;
        const first = await a.appendToStream(stream, [updated('erin@first.example')], { expectedRevision: 'no_stream' });
        expect(await readEmails(a, stream)).to.deep.equal(['erin@first.example']);
        const { erasable, retained } = customerSubjects(id);
        await b.eraseSubjects([erasable, retained], new Date());
        // `a` still caches both keys: the log refuses them, and the value goes in as the placeholder.
        await a.appendToStream(stream, [updated('erin@second.example')], { expectedRevision: expected === 'exact' ? first.nextExpectedRevision : 'any' });
        const stored = await storedEmails(stream);
        expect(stored).to.have.length(2);
        expect(stored[0]).to.have.property('$enc');
        expect(stored[1]).to.equal('[erased]');
        expect(JSON.stringify(await opened.db.knex('es_events').where({ stream_id: stream }).select('data'))).not.to.include('second.example');
        expect(await readEmails(a, stream)).to.deep.equal(['[erased]', '[erased]']);
        expect(await readEmails(b, stream)).to.deep.equal(['[erased]', '[erased]']);
      });
    }

    it('refuses only the erased subject\'s append among appends committed together', async () => {
      const { db, store } = opened;
      const a = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      const b = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      const ids = Array.from({ length: 6 }, () => crypto.randomUUID());
      await Promise.all(ids.map((id) => a.appendToStream(`customer-${id}`, [updated('erin@first.example')], { expectedRevision: 'no_stream' })));
      const gone = ids[2] ?? '';
      await b.eraseSubjects(Object.values(customerSubjects(gone)), new Date());
      await Promise.all(ids.map((id) => a.appendToStream(`customer-${id}`, [updated('erin@second.example')], { expectedRevision: 0n })));
      for (const id of ids) {
        const stored = await storedEmails(`customer-${id}`);
        if (id === gone) expect(stored[1], id).to.equal('[erased]');
        else expect(stored[1], id).to.have.property('$enc');
        expect(await readEmails(a, `customer-${id}`)).to.deep.equal(id === gone ? ['[erased]', '[erased]'] : ['erin@first.example', 'erin@second.example']);
      }
    });

    it('creators racing for the same new subjects agree on one key each; a kept key and a tombstone are read as they are', async () => {
      const { db } = opened;
      const kept = `customer:${crypto.randomUUID()}`;
      const erased = `customer:${crypto.randomUUID()}`;
      const first = await new TableKeyStore(db.knex).ensure([kept], new Date());
      await new TableKeyStore(db.knex).erase([erased], new Date());
      const fresh = Array.from({ length: 5 }, () => `customer:${crypto.randomUUID()}`);
      const asked = [...fresh, kept, erased, fresh[0]!];
      const answers = await Promise.all(Array.from({ length: 8 }, () => new TableKeyStore(db.knex).ensure(asked, new Date())));
      for (const got of answers) {
        expect([...got.keys()].sort()).to.deep.equal([...new Set(asked)].sort());
        expect(got.get(kept)?.equals(first.get(kept)!)).to.equal(true);
        expect(got.get(erased)).to.equal(null);
        for (const s of fresh) expect(got.get(s)?.toString('hex'), s).to.equal(answers[0]!.get(s)?.toString('hex')).and.have.length(64);
      }
      const stored = (await db.knex('data_subject_keys').whereIn('subject', fresh).select('subject')) as { subject: string }[];
      expect(stored).to.have.length(fresh.length);
    });

    it('a read with current keys opens nothing of a subject another process erased, though its stream holds no erasure event', async () => {
      const { db, store } = opened;
      const a = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      const b = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      const id = crypto.randomUUID();
      const stream = `customer-${id}`;
      await a.appendToStream(stream, [updated('erin@cached.example')], { expectedRevision: 'no_stream' });
      expect(await readEmails(a, stream)).to.deep.equal(['erin@cached.example']); // `a` has the key cached now
      const { erasable, retained } = customerSubjects(id);
      await b.eraseSubjects([erasable, retained], new Date());
      // Only the keys are gone (the erasure event would be in another stream): the read must ask the key store.
      const current: unknown[] = [];
      for await (const e of a.readStream(stream, { currentKeys: true })) current.push((e.data as { changes: { email: unknown } }).changes.email);
      expect(current).to.deep.equal(['[erased]']);
      // What it found is remembered: the process's cached reads stop opening the subject too.
      expect(await readEmails(a, stream)).to.deep.equal(['[erased]']);
    });

    it('a subject this process erases while its key is being looked up stays erased: the key found is not cached again', async () => {
      const { db, store } = opened;
      const writer = shreddingStore(store, new TableKeyStore(db.knex), PERSONAL_FIELDS, () => new Date());
      const id = crypto.randomUUID();
      const stream = `customer-${id}`;
      await writer.appendToStream(stream, [updated('erin@racing.example')], { expectedRevision: 'no_stream' });
      // The key table itself, with a pause after each lookup has read the keys: the erasure lands in that pause.
      const table = new TableKeyStore(db.knex);
      let looked!: () => void;
      const lookedUp = new Promise<void>((resolve) => (looked = resolve));
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      const paused: KeyStore = {
        find: async (subjects) => {
          const found = await table.find(subjects);
          looked();
          await resumed;
          return found;
        },
        ensure: (subjects, now) => table.ensure(subjects, now),
        erase: (subjects, now) => table.erase(subjects, now),
      };
      const a = shreddingStore(store, paused, PERSONAL_FIELDS, () => new Date());
      const reading = readEmails(a, stream);
      await lookedUp; // the keys were read from the table, not yet handed back
      await a.eraseSubjects(Object.values(customerSubjects(id)), new Date());
      resume();
      expect(await reading).to.deep.equal(['[erased]']);
      expect(await readEmails(a, stream)).to.deep.equal(['[erased]']);
    });
  });
}
