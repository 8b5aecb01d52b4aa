// A command may answer with the document its projection commit wrote (recentDocument) instead of reading it back.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { recentDocument } from '../../src/projections/projection.ts';
import { BILLING_CUSTOMERS_TABLE } from '../../src/projections/billing/customers.ts';

for (const backend of backends()) {
  describe(`recent documents of the live projection (${backend})`, () => {
    it('remembers the row a commit wrote, only for positions it covers', async () => {
      const svc = await startService(backend);
      try {
        const owner = await svc.signUp();
        const res = await svc.call('billing.customers.insert', { name: 'Recent Ltd', email: 'recent@example.com', currency: 'GBP' }, owner.token);
        expect(res.status).to.equal(200);
        const head = await svc.app.store.headPosition();
        expect(recentDocument(svc.app.knex, BILLING_CUSTOMERS_TABLE, res.body.id, head)).to.deep.equal(res.body);
        expect((await svc.call('billing.customers.get', { id: res.body.id }, owner.token)).body).to.deep.equal(res.body);
        // A position after the last commit is not covered: the caller reads the table.
        expect(recentDocument(svc.app.knex, BILLING_CUSTOMERS_TABLE, res.body.id, 'pg1:99999999999999999999:99999999999999999999')).to.equal(undefined);
        expect(recentDocument(svc.app.knex, BILLING_CUSTOMERS_TABLE, res.body.id, null)).to.equal(undefined);
      } finally {
        await svc.close();
      }
    });
  });
}
