// List extensions (issue 28 §6): `sort` on the columns a list can sort (the spec's order stays the default) and
// `total_count` when asked for, on billing.invoices.list, .payments.list and .customers.list.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type BilledOrg, billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';

for (const backend of backends()) {
  describe(`list sorting and total counts (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let org: BilledOrg;
    const totals = [3000, 1000, 5000, 2000, 4000];

    before(async () => {
      svc = await startService(backend);
      staff = await billingStaff(svc);
      org = await billedOrg(svc);
      for (const t of totals) {
        svc.clock.advance(1000);
        const inv = await openInvoice(svc, staff, org.customerId, [t]);
        expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100, { reference: `REF ${t}` }), staff)).status).to.equal(200);
      }
    });
    after(async () => svc?.close());

    it('pages invoices by total, high to low, with the count of every match; the default stays oldest first without a count', async () => {
      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const r = await svc.call(ops['billing.invoices.list'], { customer_id: org.customerId, sort: '-total', limit: 2, include_total_count: true, cursor }, staff);
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        expect(r.body.total_count).to.equal(5);
        seen.push(...r.body.items.map((i) => i.total));
        cursor = r.body.pagination?.cursor;
      } while (cursor);
      expect(seen).to.deep.equal([5000, 4000, 3000, 2000, 1000]);
      const plain = (await svc.call(ops['billing.invoices.list'], { customer_id: org.customerId }, staff)).body;
      expect(plain.items.map((i) => i.total)).to.deep.equal(totals);
      expect(plain).not.to.have.property('total_count');
      const open = (await svc.call(ops['billing.invoices.list'], { customer_id: org.customerId, sort: 'amount_remaining', include_total_count: true, limit: 1 }, staff)).body;
      expect([open.items[0]?.amount_remaining, open.total_count]).to.deep.equal([900, 5]);
    });

    it('sorts payments newest first and counts them; customers by name', async () => {
      const p = (await svc.call(ops['billing.payments.list'], { customer_id: org.customerId, sort: '-created_at', include_total_count: true }, staff)).body;
      expect(p.items.map((x) => x.reference)).to.deep.equal(totals.map((t) => `REF ${t}`).reverse());
      expect(p.total_count).to.equal(5);
      const other = await billedOrg(svc);
      await svc.call(ops['billing.customers.update'], { id: other.customerId, name: 'Aardvark Ltd' }, staff);
      const c = (await svc.call(ops['billing.customers.list'], { sort: 'name', limit: 1, include_total_count: true }, staff)).body;
      expect(c.items.map((x) => x.name)).to.deep.equal(['Aardvark Ltd']);
      expect(c.total_count).to.equal(2);
      // An organization's user counts only its own.
      expect((await svc.call(ops['billing.customers.list'], { include_total_count: true }, other.token)).body.total_count).to.equal(1);
    });

    it('refuses an unknown sort and a cursor made by another sort (400, naming the field)', async () => {
      const bad = await svc.send('billing.invoices.list', { sort: 'number' }, staff);
      expect(bad.status).to.equal(400);
      expect(JSON.stringify(bad.body)).to.contain('"path":"sort"');
      const byDate = (await svc.call(ops['billing.invoices.list'], { customer_id: org.customerId, limit: 1 }, staff)).body.pagination?.cursor;
      const mixed = await svc.send('billing.invoices.list', { customer_id: org.customerId, sort: 'total', cursor: byDate }, staff);
      expect(mixed.status).to.equal(400);
      expect(JSON.stringify(mixed.body)).to.contain('invalid_cursor');
    });
  });
}
