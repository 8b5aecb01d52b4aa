// A command may answer with the document its projection commit wrote (recentDocument, through the query module) instead of reading it back.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { recentCustomer } from '../../src/queries/billing/customers.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`recent documents of the live projection (${backend})`, () => {
    it('remembers the row a commit wrote, only for positions it covers', async () => {
      const svc = await startService(backend);
      try {
        const owner = await svc.signUp();
        const res = await svc.call(ops['billing.customers.insert'], { name: 'Recent Ltd', email: 'recent@example.com', currency: 'GBP' }, owner.token);
        expect(res.status).to.equal(200);
        const head = await svc.app.store.headPosition();
        expect(recentCustomer(svc.app.knex, res.body.id, head)).to.deep.equal(res.body);
        expect((await svc.call(ops['billing.customers.get'], { id: res.body.id }, owner.token)).body).to.deep.equal(res.body);
        // A position after the last commit is not covered: the caller reads the table.
        expect(recentCustomer(svc.app.knex, res.body.id, 'pg1:99999999999999999999:99999999999999999999')).to.equal(undefined);
        expect(recentCustomer(svc.app.knex, res.body.id, null)).to.equal(undefined);
      } finally {
        await svc.close();
      }
    });
  });
}
