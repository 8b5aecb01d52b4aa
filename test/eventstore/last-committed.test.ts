// lastCommittedPosition: a reader that did not write can wait for the newest commit, even while an older transaction is open.
import { expect } from 'chai';
import { backends, suiteStore } from '../support/db.ts';

const meta = { org_id: null, actor: { type: 'system' as const, id: 'test' }, request_id: null, correlation_id: null, causation_id: null };

for (const backend of backends()) {
  describe(`event store lastCommittedPosition (${backend})`, () => {
    const opened = suiteStore(backend);

    it('is null on an empty log and the position of the last append after one', async () => {
      expect(await opened.store.lastCommittedPosition()).to.equal(null);
      const res = await opened.store.appendToStream('test-1', [{ id: '0190c6a0-0000-7000-8000-000000000001', type: 'Tested', data: {}, metadata: meta }], { expectedRevision: 'no_stream' });
      expect(await opened.store.lastCommittedPosition()).to.equal(res.position);
    });

    if (backend === 'postgres') {
      it('reaches a commit that headPosition still holds back behind an older open transaction', async () => {
        const trx = await opened.db.knex.transaction();
        try {
          await trx.raw('select pg_current_xact_id()'); // takes an xid older than the append's
          const res = await opened.store.appendToStream('test-2', [{ id: '0190c6a0-0000-7000-8000-000000000002', type: 'Tested', data: {}, metadata: meta }], { expectedRevision: 'no_stream' });
          expect(await opened.store.lastCommittedPosition()).to.equal(res.position);
          expect(await opened.store.headPosition()).not.to.equal(res.position);
        } finally {
          await trx.rollback();
        }
      });
    }
  });
}
