// Search (issue 28 §4): billing.search.list finds a customer by the start of its name or email, an invoice by its
// number, a payment by its reference and an organization by its name, each naming its customer; billing staff only;
// bad input is a 400 naming the field.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type BilledOrg, billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { settle } from '../support/settle.ts';

for (const backend of backends()) {
  describe(`billing.search.list (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let org: BilledOrg;
    let other: BilledOrg;
    let number: string;
    let invoiceId: string;

    before(async () => {
      svc = await startService(backend);
      staff = await billingStaff(svc);
      org = await billedOrg(svc);
      other = await billedOrg(svc);
      expect((await svc.call(ops['billing.customers.update'], { id: org.customerId, name: 'Zebra_Works 100% Ltd', email: 'Accounts@Zebra.example' }, staff)).status).to.equal(200);
      const inv = await openInvoice(svc, staff, org.customerId, [5000]);
      invoiceId = inv.id;
      number = inv.number ?? '';
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 1000, { reference: 'BACS-Zq7731' }), staff)).status).to.equal(200);
      await settle(svc);
    });
    after(async () => svc?.close());

    const search = async (body: Record<string, unknown>, token = staff) => svc.send('billing.search.list', body, token);

    it('finds a customer by the start of its name or email, case-insensitively, and nothing for text in the middle', async () => {
      const byName = (await svc.call(ops['billing.search.list'], { query: 'zebra_w' }, staff)).body;
      expect(byName.customers.map((c) => c.id)).to.deep.equal([org.customerId]);
      expect(byName.customers[0]).to.include({ name: 'Zebra_Works 100% Ltd', email: 'Accounts@Zebra.example', status: 'active' });
      expect((await svc.call(ops['billing.search.list'], { query: 'ACCOUNTS@zeb' }, staff)).body.customers.map((c) => c.id)).to.deep.equal([org.customerId]);
      // LIKE's own characters are matched literally: "_" is not "any character", "%" is not "anything".
      expect((await svc.call(ops['billing.search.list'], { query: 'zebra%' }, staff)).body.customers).to.deep.equal([]);
      expect((await svc.call(ops['billing.search.list'], { query: 'zebraXworks' }, staff)).body.customers).to.deep.equal([]);
      expect((await svc.call(ops['billing.search.list'], { query: 'Works 100' }, staff)).body.customers).to.deep.equal([]);
    });

    it('finds an invoice by its number and a payment by its reference, each with its customer by name', async () => {
      const r = (await svc.call(ops['billing.search.list'], { query: number.toLowerCase() }, staff)).body;
      expect(r.invoices.map((i) => [i.id, i.number, i.customer?.name, i.total])).to.deep.equal([[invoiceId, number, 'Zebra_Works 100% Ltd', 5000]]);
      const p = (await svc.call(ops['billing.search.list'], { query: 'bacs-zq', kinds: ['payments'] }, staff)).body;
      expect(p.payments.map((x) => [x.reference, x.invoice_id, x.invoice_number, x.customer?.name, x.amount, x.currency])).to.deep.equal([['BACS-Zq7731', invoiceId, number, 'Zebra_Works 100% Ltd', 1000, 'GBP']]);
      expect(p.customers).to.deep.equal([]);
    });

    it('finds an organization by its id with its billing customer, and a customer by its own id', async () => {
      const r = (await svc.call(ops['billing.search.list'], { query: other.orgId }, staff)).body;
      expect(r.organizations.map((o) => [o.id, o.customer?.id])).to.deep.equal([[other.orgId, other.customerId]]);
      expect(r.customers.map((c) => c.id)).to.deep.equal([other.customerId]);
      const byId = (await svc.call(ops['billing.search.list'], { query: org.customerId.toUpperCase() }, staff)).body;
      expect(byId.customers.map((c) => c.id)).to.deep.equal([org.customerId]);
    });

    it('is for billing staff: an organization user cannot search, not even for its own invoice', async () => {
      const r = await search({ query: number }, other.token);
      expect(r.status).to.equal(403);
      expect(JSON.stringify(r.body)).not.to.contain('Zebra');
      expect((await search({ query: number }, org.token)).status).to.equal(403);
      expect((await search({ query: number }, '')).status).to.equal(401);
    });

    it('answers 400 naming the field for bad input', async () => {
      for (const [body, path] of [[{ query: 'a' }, 'query'], [{}, 'query'], [{ query: 'ab', kinds: ['users'] }, 'kinds'], [{ query: 'ab', limit: 51 }, 'limit'], [{ query: 'x'.repeat(201) }, 'query'], [{ query: 'ab', extra: 1 }, '']] as const) {
        const r = await search(body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        const issues = (r.body as { issues?: { path: string }[] }).issues ?? [];
        expect(issues.some((i) => i.path.startsWith(path)), JSON.stringify(r.body)).to.equal(true);
      }
    });
  });
}
