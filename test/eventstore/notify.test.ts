// Cross-process wake-ups on PostgreSQL: a process hears another's appends through LISTEN/NOTIFY (not only by
// polling), and a NOTIFY is sent only while another process listens. Two stores on one database stand for
// two processes: each has its own LISTEN connection.
import { expect } from 'chai';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { suiteStore } from '../support/db.ts';

const metadata = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };
const tick = () => [{ id: crypto.randomUUID(), type: 'Tick', data: {}, metadata }];

// How many announcements `store` had while `act` ran and until the first one came (up to 10 s): it never
// appends itself, so each is another process's NOTIFY.
async function announcementsDuring(store: PostgresEventStore, act: () => Promise<unknown>): Promise<number> {
  const token = store.changeToken();
  await act();
  for (let i = 0; i < 200 && store.changeToken() === token; i++) await store.waitForChange(null, store.changeToken(), AbortSignal.timeout(50));
  return store.changeToken() - token;
}

describe('log wake-ups across processes (PostgreSQL)', function () {
  this.timeout(60_000);
  if (!process.env.TEST_DATABASE_URL) {
    it('runs only with TEST_DATABASE_URL (LISTEN/NOTIFY is PostgreSQL; PGlite is one process)', () => {
      console.log('      cross-process wake-up test not run: TEST_DATABASE_URL is not set');
      expect(process.env.TEST_DATABASE_URL).to.equal(undefined);
    });
    return;
  }
  const opened = suiteStore('postgres');

  it("a process hears of another process's append through NOTIFY", async () => {
    const other = new PostgresEventStore(opened.db);
    try {
      await other.listen();
      await opened.store.listen();
      const changes = await announcementsDuring(other, () => opened.store.appendToStream(`tick-${crypto.randomUUID()}`, tick(), { expectedRevision: 'no_stream' }));
      expect(changes).to.be.greaterThan(0);
    } finally {
      await other.close();
    }
  });
});
