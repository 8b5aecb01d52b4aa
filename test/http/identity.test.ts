// Identity over HTTP: sign in/out, who am I, and the access levels on billing customers and notes.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { systemContext } from '../support/system.ts';
import { addMember, createSession, createUser, type Role } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { ops } from '../support/ops.ts';
import { hashSecret } from '../../src/secrets.ts';
import { SESSION_CACHE_MS } from '../../src/queries/identity/session-cache.ts';


type SignUp = Awaited<ReturnType<TestService['signUp']>>;

/** Adds a user with `role` to an existing organization and signs them in. */
async function addUser(svc: TestService, orgId: string, role: Role, email = `m-${Math.random().toString(36).slice(2)}@example.com`) {
  const user = await createUser(systemContext(svc.app), { email, password: 'member password', organizationId: orgId, role });
  await svc.app.runner.waitFor(user.position, [identityProjection], 10_000);
  const s = await createSession(svc.app.knex, { userId: user.id, organizationId: orgId, now: svc.clock.now(), ttlHours: 24 });
  return { userId: user.id, token: s.token, email };
}

for (const backend of backends()) {
  describe(`identity over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: SignUp;
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp({ name: 'Sign-in Org', email: 'Owner.Person@Example.com', password: 'the right password' });
    });
    after(async () => svc?.close());

    describe('auth.sessions.insert', () => {
      it('signs in with the right password and returns a working token', async () => {
        const res = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        expect(res.status).to.equal(200);
        expect(res.headers.get('cache-control')).to.equal('no-store');
        expect(res.body.token).to.match(/^svc_sess_[0-9A-Za-z]{30,}$/);
        expect(res.body.organization_id).to.equal(owner.orgId);
        expect(new Date(res.body.expires_at).getTime()).to.be.greaterThan(svc.clock.now().getTime());
        const me = await svc.call(ops['auth.sessions.get'], undefined, res.body.token);
        expect(me.status).to.equal(200);
        expect(me.body.user).to.deep.equal({ id: owner.userId, email: 'owner.person@example.com', name: 'owner.person@example.com' });
      });

      it('refuses a wrong password or an unknown email with 401 invalid_credentials', async () => {
        const wrong = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the wrong password' });
        expect(wrong.status).to.equal(401);
        expect(wrong.body.code).to.equal('invalid_credentials');
        expect(wrong.body.type).to.equal('auth.SessionInsertError');
        const unknown = await svc.call(ops['auth.sessions.insert'], { email: 'nobody@example.com', password: 'the right password' });
        expect(unknown.status).to.equal(401);
        expect(unknown.body.code).to.equal('invalid_credentials');
      });

      it('signs into the chosen organization, and refuses one the user is not a member of', async () => {
        const second = await svc.signUp({ name: 'Second Org' });
        await addMember(systemContext(svc.app), second.orgId, owner.userId, 'admin');
        await svc.app.runner.catchUp();
        const chosen = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password', organization_id: second.orgId });
        expect(chosen.status).to.equal(200);
        expect(chosen.body.organization_id).to.equal(second.orgId);
        const me = await svc.call(ops['auth.sessions.get'], undefined, chosen.body.token);
        expect(me.body.organization).to.deep.equal({ id: second.orgId, name: 'Second Org', kind: 'repairer' });
        expect(me.body.membership_role).to.equal('admin');
        const stranger = await svc.signUp({ name: 'Stranger Org' });
        const refused = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password', organization_id: stranger.orgId });
        expect(refused.status).to.equal(403);
        expect(refused.body.code).to.equal('not_a_member');
        const missing = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password', organization_id: '0190c6a2-0000-7000-8000-000000000000' });
        expect(missing.status).to.equal(403);
        expect(missing.body.code).to.equal('not_a_member');
      });

      it('without an organization, signs into the user\'s first organization by name (as the sign-in page lists them)', async () => {
        const newer = await svc.signUp({ name: 'AAA First By Name' });
        await addMember(systemContext(svc.app), newer.orgId, owner.userId, 'member');
        await svc.app.runner.catchUp();
        const signedIn = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        expect(signedIn.status).to.equal(200);
        // The newer organization's id sorts last (UUID v7), its name first.
        expect(signedIn.body.organization_id).to.equal(newer.orgId);
      });

      it('validates its body', async () => {
        const res = await svc.send('auth.sessions.insert', { email: 'owner.person@example.com' });
        expect(res.status).to.equal(400);
        expect(res.body.issues?.map((i: { path: string }) => i.path)).to.include('password');
      });
    });

    describe('auth.sessions.get and .remove', () => {
      it('describes the caller: user, organization, role, platform roles, expiry', async () => {
        const staff = await svc.signUp({ kind: 'platform', name: 'Platform Org', role: 'member', staff: ['billing_staff'] });
        const me = await svc.call(ops['auth.sessions.get'], undefined, staff.token);
        expect(me.status).to.equal(200);
        expect(me.body.organization).to.deep.equal({ id: staff.orgId, name: 'Platform Org', kind: 'platform' });
        expect(me.body.membership_role).to.equal('member');
        expect(me.body.roles).to.deep.equal(['billing_staff']);
        expect(me.body.user.id).to.equal(staff.userId);
        expect(me.body.expires_at).to.match(/Z$/);
      });

      it('signs out: the token stops working at once, other sessions keep working', async () => {
        const a = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        const b = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        expect((await svc.call(ops['auth.sessions.remove'], undefined, a.body.token)).status).to.equal(200);
        const after = await svc.call(ops['auth.sessions.get'], undefined, a.body.token);
        expect(after.status).to.equal(401);
        expect(after.body.code).to.equal('unauthenticated');
        expect((await svc.call(ops['auth.sessions.remove'], undefined, a.body.token)).status).to.equal(401);
        expect((await svc.call(ops['auth.sessions.get'], undefined, b.body.token)).status).to.equal(200);
      });

      it('a session revoked by another process stops working within a second (the session cache bound)', async () => {
        const s = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        // Used once, so this process holds it resolved; then another process signs it out (straight in the table).
        expect((await svc.call(ops['auth.sessions.get'], undefined, s.body.token)).status).to.equal(200);
        await svc.app.knex('sessions').where({ token_hash: hashSecret(s.body.token) }).update({ revoked_at: svc.clock.now() });
        svc.clock.advance(SESSION_CACHE_MS);
        const after = await svc.call(ops['auth.sessions.get'], undefined, s.body.token);
        expect(after.status).to.equal(401);
        expect(after.body.code).to.equal('unauthenticated');
      });

      it('expires sessions when their time is up', async () => {
        const s = await svc.call(ops['auth.sessions.insert'], { email: 'owner.person@example.com', password: 'the right password' });
        const ttlMs = new Date(s.body.expires_at).getTime() - svc.clock.now().getTime();
        svc.clock.advance(ttlMs + 1000);
        try {
          expect((await svc.call(ops['auth.sessions.get'], undefined, s.body.token)).status).to.equal(401);
        } finally {
          svc.clock.advance(-(ttlMs + 1000));
        }
      });
    });

    describe('access levels on customers and notes', () => {
      let org: SignUp;
      let member: { token: string };
      let admin: { token: string };
      let staff: SignUp;
      let other: SignUp;
      let customerId: string;
      let noteId: string;
      before(async () => {
        org = await svc.signUp({ name: 'Access Org' });
        member = await addUser(svc, org.orgId, 'member');
        admin = await addUser(svc, org.orgId, 'admin');
        staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
        other = await svc.signUp({ name: 'Other Org' });
      });

      it('a member may not create, change or remove the customer (403) but may read it', async () => {
        const refused = await svc.call(ops['billing.customers.insert'], { name: 'A', email: 'a@example.com', currency: 'GBP' }, member.token);
        expect(refused.status).to.equal(403);
        expect(refused.body.code).to.equal('forbidden');
        const created = await svc.call(ops['billing.customers.insert'], { name: 'A', email: 'a@example.com', currency: 'GBP' }, admin.token);
        expect(created.status).to.equal(200);
        customerId = created.body.id;
        expect((await svc.call(ops['billing.customers.get'], { id: customerId }, member.token)).status).to.equal(200);
        expect((await svc.call(ops['billing.customers.list'], {}, member.token)).body.items).to.have.length(1);
        expect((await svc.call(ops['billing.customers.update'], { id: customerId, name: 'B' }, member.token)).status).to.equal(403);
        expect((await svc.call(ops['billing.customers.remove'], { id: customerId }, member.token)).status).to.equal(403);
      });

      it('a member gets 403 on every notes operation; owners and admins may use them', async () => {
        const n = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: customerId }, body: 'internal' }, org.token);
        expect(n.status).to.equal(200);
        noteId = n.body.id;
        for (const [op, body] of [
          ['billing.notes.insert', { subject: { type: 'customer', id: customerId }, body: 'x' }],
          ['billing.notes.list', { subject: { type: 'customer', id: customerId } }],
          ['billing.notes.update', { id: noteId, body: 'y' }],
          ['billing.notes.remove', { id: noteId }],
        ] as const) {
          const res = await svc.send(op, body, member.token);
          expect(res.status, op).to.equal(403);
          expect(res.body.code, op).to.equal('forbidden');
        }
        expect((await svc.call(ops['billing.notes.list'], { subject: { type: 'customer', id: customerId } }, admin.token)).body.items).to.have.length(1);
      });

      it('an owner cannot create a customer for another organization; billing staff can, and see every organization', async () => {
        const refused = await svc.call(ops['billing.customers.insert'], { organization_id: other.orgId, name: 'O', email: 'o@example.com', currency: 'GBP' }, org.token);
        expect(refused.status).to.equal(403);
        const byStaff = await svc.call(ops['billing.customers.insert'], { organization_id: other.orgId, name: 'O', email: 'o@example.com', currency: 'GBP' }, staff.token);
        expect(byStaff.status).to.equal(200);
        expect(byStaff.body.organization_id).to.equal(other.orgId);
        expect((await svc.call(ops['billing.customers.get'], { id: customerId }, staff.token)).status).to.equal(200);
        expect((await svc.call(ops['billing.notes.list'], { subject: { type: 'customer', id: customerId } }, staff.token)).body.items).to.have.length(1);
        const staffNote = await svc.call(ops['billing.notes.update'], { id: noteId, body: 'edited by staff' }, staff.token);
        expect(staffNote.status).to.equal(200);
        expect(staffNote.body.history[0]?.editor.type).to.equal('staff');
        const unknownOrg = await svc.call(ops['billing.customers.insert'], { organization_id: '0190c6a2-0000-7000-8000-000000000000', name: 'O', email: 'o@example.com', currency: 'GBP' }, staff.token);
        expect(unknownOrg.status).to.equal(404);
        expect(unknownOrg.body.code).to.equal('organization_not_found');
      });

      it('another organization sees 404 for the customer and its notes, never 403', async () => {
        for (const [op, body, code] of [
          ['billing.customers.get', { id: customerId }, 'customer_not_found'],
          ['billing.customers.update', { id: customerId, name: 'Hijack' }, 'customer_not_found'],
          ['billing.customers.remove', { id: customerId }, 'customer_not_found'],
          ['billing.notes.insert', { subject: { type: 'customer', id: customerId }, body: 'x' }, 'customer_not_found'],
          ['billing.notes.list', { subject: { type: 'customer', id: customerId } }, 'customer_not_found'],
          ['billing.notes.update', { id: noteId, body: 'x' }, 'note_not_found'],
          ['billing.notes.remove', { id: noteId }, 'note_not_found'],
        ] as const) {
          const res = await svc.send(op, body, other.token);
          expect(res.status, op).to.equal(404);
          expect(res.body.code, op).to.equal(code);
        }
        expect((await svc.call(ops['billing.customers.list'], {}, other.token)).body.items.map((c: { id: string }) => c.id)).to.not.include(customerId);
      });
    });
  });
}
