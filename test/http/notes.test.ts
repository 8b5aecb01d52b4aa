// billing.notes.*: internal notes on a customer, edits keep history, removal hides, visibility rules.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';

type SignUp = Awaited<ReturnType<TestService['signUp']>>;

for (const backend of backends()) {
  describe(`billing notes over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: SignUp;
    let staff: SignUp;
    let customerId: string;
    const subject = () => ({ type: 'customer' as const, id: customerId });
    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
      staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Noted Ltd', email: 'n@example.com', currency: 'GBP' }, owner.token)).body.id;
    });
    after(async () => svc?.close());

    it('adds a note and returns it with author, subject, times and empty history', async () => {
      const res = await svc.call(ops['billing.notes.insert'], { subject: subject(), body: '  Called about the March invoice.  ' }, owner.token);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        id: res.body.id,
        subject: subject(),
        body: 'Called about the March invoice.',
        author: { type: 'user', id: owner.userId },
        created_at: svc.clock.now().toISOString(),
        updated_at: svc.clock.now().toISOString(),
        history: [],
      });
      expect(res.body.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    });

    it('edits a note keeping every earlier body in its history, oldest first', async () => {
      const n = await svc.call(ops['billing.notes.insert'], { subject: subject(), body: 'v1' }, owner.token);
      svc.clock.advance(60_000);
      const t2 = svc.clock.now().toISOString();
      const v2 = await svc.call(ops['billing.notes.update'], { id: n.body.id, body: 'v2' }, owner.token);
      expect(v2.status).to.equal(200);
      svc.clock.advance(60_000);
      const v3 = await svc.call(ops['billing.notes.update'], { id: n.body.id, body: 'v3' }, staff.token);
      expect(v3.body).to.include({ body: 'v3', updated_at: svc.clock.now().toISOString(), created_at: n.body.created_at });
      expect(v3.body.history).to.deep.equal([
        { body: 'v1', replaced_at: t2, editor: { type: 'user', id: owner.userId } },
        { body: 'v2', replaced_at: svc.clock.now().toISOString(), editor: { type: 'staff', id: staff.userId } },
      ]);
      // The same body again is not an edit.
      const same = await svc.call(ops['billing.notes.update'], { id: n.body.id, body: 'v3' }, owner.token);
      expect(same.body.history).to.have.length(2);
      const listed = (await svc.call(ops['billing.notes.list'], { subject: subject() }, owner.token)).body.items.find((x: { id: string }) => x.id === n.body.id);
      expect(listed).to.deep.equal(v3.body);
    });

    it('removes a note from view; removing or editing it again is 404', async () => {
      const n = await svc.call(ops['billing.notes.insert'], { subject: subject(), body: 'to remove' }, owner.token);
      const removed = await svc.call(ops['billing.notes.remove'], { id: n.body.id }, owner.token);
      expect(removed.status).to.equal(200);
      expect(removed.body).to.deep.equal({});
      const ids = (await svc.call(ops['billing.notes.list'], { subject: subject(), limit: 200 }, owner.token)).body.items.map((x: { id: string }) => x.id);
      expect(ids).to.not.include(n.body.id);
      for (const [op, body] of [['billing.notes.remove', { id: n.body.id }], ['billing.notes.update', { id: n.body.id, body: 'x' }]] as const) {
        const res = await svc.send(op, body, owner.token);
        expect(res.status, op).to.equal(404);
        expect(res.body.code, op).to.equal('note_not_found');
      }
      // The log keeps it.
      const events = await svc.app.knex('es_events').where({ stream_id: `note-${n.body.id}` }).orderBy('revision').pluck('type');
      expect(events).to.deep.equal(['NoteAdded', 'NoteRemoved']);
    });

    it('lists notes oldest first with keyset pagination over several pages', async () => {
      const other = await svc.signUp();
      const cid = (await svc.call(ops['billing.customers.insert'], { name: 'Paged', email: 'p@example.com', currency: 'GBP' }, other.token)).body.id;
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        svc.clock.advance(1000);
        made.push((await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: cid }, body: `note ${i}` }, other.token)).body.id);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await svc.call(ops['billing.notes.list'], { subject: { type: 'customer', id: cid }, limit: 3, ...(cursor ? { cursor } : {}) }, other.token);
        seen.push(...res.body.items.map((x: { id: string }) => x.id));
        cursor = res.body.pagination?.cursor;
        pages++;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(made);
    });

    it('answers a missing customer or invoice subject with 404', async () => {
      const c = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: '0190c6a2-0000-7000-8000-000000000000' }, body: 'x' }, owner.token);
      expect(c.status).to.equal(404);
      expect(c.body.code).to.equal('customer_not_found');
      const i = await svc.call(ops['billing.notes.insert'], { subject: { type: 'invoice', id: '0190c6a2-0000-7000-8000-000000000000' }, body: 'x' }, owner.token);
      expect(i.status).to.equal(404);
      expect(i.body.code).to.equal('invoice_not_found');
      const l = await svc.call(ops['billing.notes.list'], { subject: { type: 'invoice', id: '0190c6a2-0000-7000-8000-000000000000' } }, owner.token);
      expect(l.status).to.equal(404);
    });

    it('refuses an empty or oversized body with 400', async () => {
      for (const body of ['', '   ', 'x'.repeat(10_001)]) {
        const res = await svc.call(ops['billing.notes.insert'], { subject: subject(), body }, owner.token);
        expect(res.status).to.equal(400);
        expect(res.body.issues?.[0]?.path).to.equal('body');
      }
    });
  });
}
