// billing.customers.*: the full path over HTTP (command -> events -> projection -> query).
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { at } from '../support/lists.ts';

type SignUp = Awaited<ReturnType<TestService['signUp']>>;

for (const backend of backends()) {
  describe(`billing customers over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: SignUp;
    let staff: SignUp;
    const eventsOf = async (id: string) => (await svc.app.knex('es_events').where({ stream_id: `customer-${id}` }).orderBy('revision').select('type')).map((r: { type: string }) => r.type);
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
      staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
    });
    after(async () => svc?.close());

    it('creates a customer and returns the same body as get', async () => {
      const created = await svc.call(ops['billing.customers.insert'], { name: 'Acme Ltd', email: 'ap@acme.example', currency: 'GBP' }, owner.token);
      expect(created.status).to.equal(200);
      expect(created.body).to.include({ organization_id: owner.orgId, name: 'Acme Ltd', currency: 'GBP', payment_terms_days: 30, status: 'active', tax_id: null, billing_address: null });
      expect(created.body.metadata).to.deep.equal({});
      expect(created.body.created_at).to.equal(svc.clock.now().toISOString());
      const got = await svc.call(ops['billing.customers.get'], { id: created.body.id }, owner.token);
      expect(got.body).to.deep.equal(created.body);
    });

    it('refuses a second customer for the same organization with 409', async () => {
      const again = await svc.call(ops['billing.customers.insert'], { name: 'Acme 2', email: 'x@acme.example', currency: 'GBP' }, owner.token);
      expect(again.status).to.equal(409);
      expect(again.body.code).to.equal('customer_exists');
    });

    it('refuses a customer for an organization that does not exist with 404 organization_not_found, writing nothing', async () => {
      const nowhere = crypto.randomUUID();
      const res = await svc.send('billing.customers.insert', { organization_id: nowhere, name: 'Ghost Ltd', email: 'g@ghost.example', currency: 'GBP' }, staff.token);
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('organization_not_found');
      const list = await svc.call(ops['billing.customers.list'], { organization_id: nowhere }, staff.token);
      expect(list.body.items).to.have.length(0);
      const [written] = await svc.app.knex('es_events').where('metadata', '@>', JSON.stringify({ org_id: nowhere })).count({ n: '*' });
      expect(Number(written?.n)).to.equal(0);
    });

    it('rejects unknown fields and bad currencies with 400 and issues, writing nothing', async () => {
      const other = await svc.signUp();
      const bad = await svc.send('billing.customers.insert', { name: 'X', email: 'x@x.example', currency: 'XXY', colour: 'red' }, other.token);
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_request');
      expect(bad.body.issues?.map((i: { path: string }) => i.path)).to.include.members(['currency']);
      const list = await svc.call(ops['billing.customers.list'], {}, other.token);
      expect(list.body.items).to.have.length(0);
    });

    it('hides another organization\'s customer (404) but shows it to billing staff', async () => {
      const other = await svc.signUp();
      const mine = await svc.call(ops['billing.customers.list'], {}, owner.token);
      const { id } = at(mine.body.items, 0);
      expect((await svc.call(ops['billing.customers.get'], { id }, other.token)).status).to.equal(404);
      expect((await svc.call(ops['billing.customers.get'], { id }, staff.token)).status).to.equal(200);
    });

    it('updates only the given fields; null clears the address and tax id; answers like get', async () => {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], {
        name: 'Partial Ltd', email: 'p@example.com', currency: 'GBP', tax_id: 'GB999', payment_terms_days: 14,
        billing_address: { line1: '1 Road', city: 'York', postal_code: 'YO1', country: 'GB' }, metadata: { crm: '42' },
      }, o.token);
      expect(c.body.billing_address).to.deep.equal({ line1: '1 Road', city: 'York', postal_code: 'YO1', country: 'GB' });
      svc.clock.advance(60_000);
      const renamed = await svc.call(ops['billing.customers.update'], { id: c.body.id, name: 'Partial Limited' }, o.token);
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.deep.equal({ ...c.body, name: 'Partial Limited', updated_at: svc.clock.now().toISOString() });
      expect((await svc.call(ops['billing.customers.get'], { id: c.body.id }, o.token)).body).to.deep.equal(renamed.body);
      const cleared = await svc.call(ops['billing.customers.update'], { id: c.body.id, tax_id: null, billing_address: null, metadata: { other: 'x' }, currency: 'EUR', payment_terms_days: 0, email: 'new@example.com' }, o.token);
      expect(cleared.body).to.include({ tax_id: null, billing_address: null, currency: 'EUR', payment_terms_days: 0, email: 'new@example.com', name: 'Partial Limited' });
      expect(cleared.body.metadata).to.deep.equal({ other: 'x' });
      // Sending the current values again changes nothing and appends nothing.
      const before = await eventsOf(c.body.id);
      const same = await svc.call(ops['billing.customers.update'], { id: c.body.id, name: 'Partial Limited', tax_id: null }, o.token);
      expect(same.status).to.equal(200);
      expect(same.body).to.deep.equal(cleared.body);
      expect(await eventsOf(c.body.id)).to.deep.equal(before);
      expect(before).to.deep.equal(['CustomerCreated', 'CustomerUpdated', 'CustomerUpdated']);
      const bad = await svc.call(ops['billing.customers.update'], { id: c.body.id, name: '' }, o.token);
      expect(bad.status).to.equal(400);
    });

    it('removes a customer: get shows it removed, a second remove or an update is 409, a new one can be created', async () => {
      const o = await svc.signUp();
      const c = await svc.call(ops['billing.customers.insert'], { name: 'Gone Ltd', email: 'g@example.com', currency: 'GBP' }, o.token);
      svc.clock.advance(1000);
      const removed = await svc.call(ops['billing.customers.remove'], { id: c.body.id }, o.token);
      expect(removed.status).to.equal(200);
      expect(removed.body).to.deep.equal({});
      const got = await svc.call(ops['billing.customers.get'], { id: c.body.id }, o.token);
      expect(got.body).to.include({ status: 'removed', updated_at: svc.clock.now().toISOString(), name: 'Gone Ltd' });
      const twice = await svc.call(ops['billing.customers.remove'], { id: c.body.id }, o.token);
      expect(twice.status).to.equal(409);
      expect(twice.body.code).to.equal('customer_removed');
      const update = await svc.call(ops['billing.customers.update'], { id: c.body.id, name: 'Back' }, o.token);
      expect(update.status).to.equal(409);
      expect(update.body.code).to.equal('customer_removed');
      const missing = await svc.call(ops['billing.customers.remove'], { id: '0190c6a2-0000-7000-8000-000000000000' }, o.token);
      expect(missing.status).to.equal(404);
      expect(missing.body.code).to.equal('customer_not_found');
      expect(await eventsOf(c.body.id)).to.deep.equal(['CustomerCreated', 'CustomerRemoved']);
      // The organization may have a billing customer again: the same id, active, with the new details.
      const again = await svc.call(ops['billing.customers.insert'], { name: 'Back Ltd', email: 'b@example.com', currency: 'EUR' }, o.token);
      expect(again.status).to.equal(200);
      expect(again.body).to.include({ id: c.body.id, status: 'active', name: 'Back Ltd', currency: 'EUR' });
    });

    describe('list', () => {
      let orgs: SignUp[];
      before(async () => {
        orgs = [];
        const names = ['Alpha Motors', 'Beta Body Shop', 'Gamma 100% Repairs', 'Delta_Garage', 'Epsilon Ltd'];
        for (const [i, name] of names.entries()) {
          const o = await svc.signUp();
          orgs.push(o);
          svc.clock.advance(1000);
          const c = await svc.call(ops['billing.customers.insert'], { name, email: `${at(name.split(' '), 0).toLowerCase()}@list.example`, currency: 'GBP' }, o.token);
          if (i === 4) await svc.call(ops['billing.customers.remove'], { id: c.body.id }, o.token);
        }
      });

      it('an org user sees only its own customer', async () => {
        const res = await svc.call(ops['billing.customers.list'], {}, at(orgs, 0).token);
        expect(res.body.items.map((c: { name: string }) => c.name)).to.deep.equal(['Alpha Motors']);
        expect(res.body.pagination).to.equal(null);
        // Naming another organization does not widen it.
        const sneaky = await svc.call(ops['billing.customers.list'], { organization_id: at(orgs, 1).orgId }, at(orgs, 0).token);
        expect(sneaky.body.items).to.deep.equal([]);
      });

      it('filters by status, by text in name or email (case-insensitive, wildcards literal), and by organization for staff', async () => {
        const names = async (body: Record<string, unknown>) => (await svc.call(ops['billing.customers.list'], { limit: 200, ...body }, staff.token)).body.items.map((c: { name: string }) => c.name);
        expect(await names({ status: 'removed' })).to.include('Epsilon Ltd').and.not.include('Alpha Motors');
        expect(await names({ status: 'active' })).to.include('Alpha Motors').and.not.include('Epsilon Ltd');
        expect(await names({ query: 'beta body' })).to.deep.equal(['Beta Body Shop']);
        expect(await names({ query: 'GAMMA@LIST' })).to.deep.equal(['Gamma 100% Repairs']);
        expect(await names({ query: '100%' })).to.deep.equal(['Gamma 100% Repairs']);
        expect(await names({ query: '%' })).to.deep.equal(['Gamma 100% Repairs']);
        expect(await names({ query: 'a_g' })).to.deep.equal(['Delta_Garage']);
        expect(await names({ query: 'list.example', status: 'active' })).to.have.members(['Alpha Motors', 'Beta Body Shop', 'Gamma 100% Repairs', 'Delta_Garage']);
        expect(await names({ organization_id: at(orgs, 3).orgId })).to.deep.equal(['Delta_Garage']);
        const item = at((await svc.call(ops['billing.customers.list'], { organization_id: at(orgs, 0).orgId }, staff.token)).body.items, 0);
        expect(Object.keys(item).sort()).to.deep.equal(['created_at', 'currency', 'email', 'id', 'name', 'organization_id', 'status']);
      });

      it('pages with keyset cursors over more than one page, stable under a concurrent insert, no duplicates', async () => {
        const all = (await svc.call(ops['billing.customers.list'], { limit: 200 }, staff.token)).body.items.map((c: { id: string }) => c.id);
        expect(all.length).to.be.greaterThan(6);
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const res = await svc.call(ops['billing.customers.list'], { limit: 3, ...(cursor ? { cursor } : {}) }, staff.token);
          expect(res.status).to.equal(200);
          expect(res.body.items.length).to.be.at.most(3);
          seen.push(...res.body.items.map((c: { id: string }) => c.id));
          cursor = res.body.pagination?.cursor;
          if (++pages === 1) {
            // Someone creates a customer while we page.
            const late = await svc.signUp();
            svc.clock.advance(1000);
            expect((await svc.call(ops['billing.customers.insert'], { name: 'Late Comer', email: 'late@list.example', currency: 'GBP' }, late.token)).status).to.equal(200);
          }
        } while (cursor);
        expect(pages).to.be.greaterThan(2);
        expect(new Set(seen).size, 'no duplicates').to.equal(seen.length);
        expect(seen.slice(0, all.length)).to.deep.equal(all);
        expect(seen).to.have.length(all.length + 1);
      });

      it('refuses a cursor it did not issue with 400 invalid_cursor', async () => {
        for (const cursor of ['garbage', Buffer.from('[1]').toString('base64url'), Buffer.from('["not-a-date","x"]').toString('base64url'), Buffer.from('["2026-01-01T00:00:00.000Z",5]').toString('base64url')]) {
          const res = await svc.call(ops['billing.customers.list'], { cursor }, staff.token);
          expect(res.status, cursor).to.equal(400);
          expect(res.body.code, cursor).to.equal('invalid_cursor');
        }
      });
    });
  });
}
