// billing.customers.*: the full path over HTTP (command -> events -> projection -> query).
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';

for (const backend of backends()) {
  describe(`billing customers over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let staff: Awaited<ReturnType<TestService['signUp']>>;
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
      staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
    });
    after(async () => svc?.close());

    it('creates a customer and returns the same body as get', async () => {
      const created = await svc.call('billing.customers.insert', { name: 'Acme Ltd', email: 'ap@acme.example', currency: 'GBP' }, owner.token);
      expect(created.status).to.equal(200);
      expect(created.body).to.include({ organization_id: owner.orgId, name: 'Acme Ltd', currency: 'GBP', payment_terms_days: 30, status: 'active' });
      const got = await svc.call('billing.customers.get', { id: created.body.id }, owner.token);
      expect(got.body).to.deep.equal(created.body);
    });

    it('refuses a second customer for the same organization with 409', async () => {
      const again = await svc.call('billing.customers.insert', { name: 'Acme 2', email: 'x@acme.example', currency: 'GBP' }, owner.token);
      expect(again.status).to.equal(409);
      expect(again.body.code).to.equal('customer_exists');
    });

    it('rejects unknown fields and bad currencies with 400 and issues, writing nothing', async () => {
      const other = await svc.signUp();
      const bad = await svc.call('billing.customers.insert', { name: 'X', email: 'x@x.example', currency: 'XXY', colour: 'red' }, other.token);
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_request');
      expect(bad.body.issues.map((i: { path: string }) => i.path)).to.include.members(['currency']);
      const list = await svc.call('billing.customers.list', {}, other.token);
      expect(list.body.items).to.have.length(0);
    });

    it('hides another organization\'s customer (404) but shows it to billing staff', async () => {
      const other = await svc.signUp();
      const mine = await svc.call('billing.customers.list', {}, owner.token);
      const id = mine.body.items[0].id;
      expect((await svc.call('billing.customers.get', { id }, other.token)).status).to.equal(404);
      expect((await svc.call('billing.customers.get', { id }, staff.token)).status).to.equal(200);
    });
  });
}
