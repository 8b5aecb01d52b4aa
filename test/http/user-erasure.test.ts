// Issue 32: a user's personal data (email and name) is crypto-shredded by identity.users.erase. Afterwards the values are in
// no table, no log read and no rebuild; the user's sessions are gone and it cannot sign in; what it did stays in the audit
// trail under its id, shown as "erased user".
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { tablesHolding } from '../support/personal-traces.ts';
import { ops } from '../support/ops.ts';
import { systemContext } from '../support/system.ts';
import { createSession, createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { operator } from '../../src/cli/clients.ts';
import { usersOperatorErase } from '../../src/commands/identity/user-erasure.ts';

for (const backend of backends()) {
  describe(`user erasure (${backend})`, () => {
    let svc: TestService;
    let platform: string;
    let billingStaff: string;
    before(async () => {
      svc = await startService(backend);
      platform = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
      billingStaff = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
    });
    after(async () => svc?.close());

    /** A member of a new organization with a unique email and name, signed in, who created a customer there. */
    async function person(tag: string) {
      const org = await svc.signUp();
      const email = `${tag}@forget-me.example`;
      const name = `Person ${tag} Smith`;
      const user = await createUser(systemContext(svc.app, 'test'), { email, password: 'correct horse battery', name, organizationId: org.orgId, role: 'owner' });
      await svc.app.runner.waitFor(user.position, [identityProjection], 10_000);
      const token = (await createSession(svc.app.knex, { userId: user.id, organizationId: org.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
      const c = await svc.call(ops['billing.customers.insert'], { name: `Shop ${tag}`, email: `shop-${tag}@example.com`, currency: 'GBP' }, token);
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      return { id: user.id, orgId: org.orgId, email, name, token, customerId: c.body.id };
    }

    it('is for platform staff only, needs a reason, and answers 404 for an unknown user; nothing is erased', async () => {
      const p = await person('refuse01');
      expect((await svc.send('identity.users.erase', { id: p.id, legal_basis: 'consent_withdrawn', reason: 'x' }, p.token)).status).to.equal(403);
      expect((await svc.send('identity.users.erase', { id: p.id, legal_basis: 'consent_withdrawn', reason: 'x' }, billingStaff)).status).to.equal(403);
      const bare = await svc.send('identity.users.erase', { id: p.id, legal_basis: 'consent_withdrawn' }, platform);
      expect(bare.status).to.equal(400);
      expect(bare.body.issues?.map((i: { path: string }) => i.path)).to.include('reason');
      const unknown = await svc.send('identity.users.erase', { id: '0190c6a2-0000-7000-8000-000000000000', legal_basis: 'consent_withdrawn', reason: 'x' }, platform);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.code).to.equal('user_not_found');
      expect((await svc.call(ops['auth.sessions.get'], undefined, p.token)).body.user).to.include({ email: p.email, name: p.name });
    });

    it('erases the email and name everywhere, ends the sessions and the password, and shows what the user did as "erased user"', async () => {
      const p = await person('gone02');
      expect(await tablesHolding(svc, p.email)).to.include('identity_users');
      const res = await svc.call(ops['identity.users.erase'], { id: p.id, legal_basis: 'consent_withdrawn', reason: 'Ticket 5501' }, platform);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ subject: `user:${p.id}`, legal_basis: 'consent_withdrawn', reason: 'Ticket 5501', retained_until: null });
      expect(res.body.erased).to.deep.equal([`user:${p.id}`]);
      expect(res.body.requested_by.type).to.equal('staff');
      // Signed out, and no way back in.
      expect((await svc.call(ops['auth.sessions.get'], undefined, p.token)).status).to.equal(401);
      expect((await svc.call(ops['auth.sessions.insert'], { email: p.email, password: 'correct horse battery' })).status).to.equal(401);
      // The log reads "[erased]".
      const events = [];
      for await (const e of svc.app.store.readStream(`user-${p.id}`)) events.push(e);
      expect(events.map((e) => e.type)).to.deep.equal(['UserRegistered', 'PasswordSet', 'UserErased']);
      expect(events[0]?.data).to.include({ email: '[erased]', name: '[erased]', user_id: p.id });
      // What the user did keeps its id; its name is "erased user" wherever it is shown.
      const history = await svc.call(ops['billing.history.get'], { subject: { type: 'customer', id: p.customerId } }, billingStaff);
      expect(history.body.items[0]?.actor).to.deep.include({ type: 'user', id: p.id, name: 'erased user', email: null });
      const feed = await svc.call(ops['billing.activity.list'], { actor_id: p.id }, billingStaff);
      expect(feed.body.items.length).to.be.greaterThan(0);
      for (const i of feed.body.items) expect(i.actor).to.deep.include({ id: p.id, name: 'erased user', email: null });
      const names = await svc.call(ops['billing.names.list'], { users: [p.id] }, billingStaff);
      expect(names.body.users).to.deep.equal([{ id: p.id, name: 'erased user', email: '[erased]' }]);
      // No table holds the values, nor after a rebuild.
      for (const v of [p.email, p.name]) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
      await svc.app.runner.rebuild();
      for (const v of [p.email, p.name]) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
      expect((await svc.call(ops['billing.names.list'], { users: [p.id] }, billingStaff)).body.users[0]?.name).to.equal('erased user');
    });

    it('releases the email: a new user registers with it and signs in, and the erased user\'s values stay gone', async () => {
      const p = await person('again04');
      const res = await svc.call(ops['identity.users.erase'], { id: p.id, legal_basis: 'consent_withdrawn', reason: 'Ticket 5502' }, platform);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      for (const v of [p.email, p.name]) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
      // The address is free again (before, email_taken 409): registered as `admin user create` does, then signed in over HTTP.
      const org = await svc.signUp();
      const again = await svc.app.invoke(ops['identity.users.insert'], { email: p.email, password: 'a new horse battery', name: 'New Owner', organization_id: org.orgId, role: 'member', staff: [] }, operator('admin user create'));
      expect(again.body.id).to.be.a('string').and.not.equal(p.id);
      const signIn = await svc.call(ops['auth.sessions.insert'], { email: p.email, password: 'a new horse battery' });
      expect(signIn.status, JSON.stringify(signIn.body)).to.equal(200);
      expect((await svc.call(ops['auth.sessions.get'], undefined, signIn.body.token)).body.user).to.include({ id: again.body.id, email: p.email, name: 'New Owner' });
      // The erased user stays erased (its name nowhere, its claim's event "[erased]"); a second erasure releases nothing of the new user's.
      expect(await tablesHolding(svc, p.name)).to.deep.equal([]);
      expect((await svc.call(ops['billing.names.list'], { users: [p.id] }, billingStaff)).body.users[0]?.name).to.equal('erased user');
      expect((await svc.call(ops['identity.users.erase'], { id: p.id, legal_basis: 'consent_withdrawn', reason: 'again' }, platform)).status).to.equal(200);
      expect((await svc.call(ops['auth.sessions.insert'], { email: p.email, password: 'a new horse battery' })).status).to.equal(200);
    });

    it('is idempotent and completes after a crash between deleting the key and recording the erasure; erased users do not collide', async () => {
      const a = await person('crash03a');
      const b = await person('crash03b');
      // The crash: the key went, the event never came.
      await svc.app.personalData.eraseSubjects([`user:${a.id}`], svc.clock.now());
      const first = await svc.call(ops['identity.users.erase'], { id: a.id, legal_basis: 'objection', reason: 'retry after crash' }, platform);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      svc.clock.advance(60_000);
      const again = await svc.call(ops['identity.users.erase'], { id: a.id, legal_basis: 'consent_withdrawn', reason: 'second request' }, platform);
      expect(again.body).to.deep.equal(first.body);
      const types = (await svc.app.knex('es_events').where({ stream_id: `user-${a.id}` }).select('type')).map((r: { type: string }) => r.type);
      expect(types.filter((t) => t === 'UserErased')).to.have.length(1);
      // A second erased user: both read "[erased]", and the identity read model (unique emails) takes both, live and rebuilt.
      const { body } = await svc.app.invoke(usersOperatorErase, { id: b.id, legal_basis: 'legal_obligation', reason: 'Court order 7' }, operator('erase user: Court order 7'));
      expect(body.requested_by).to.deep.equal({ type: 'system', id: 'cli' });
      await svc.app.runner.rebuild(['identity']);
      const list = await svc.app.invoke(ops['identity.users.list'], null, operator('list'));
      const erased = list.body.items.filter((u) => u.id === a.id || u.id === b.id);
      expect(erased.map((u) => [u.email, u.name])).to.deep.equal([['[erased]', '[erased]'], ['[erased]', '[erased]']]);
      for (const v of [a.email, b.email, a.name, b.name]) expect(await tablesHolding(svc, v), v).to.deep.equal([]);
    });
  });
}
