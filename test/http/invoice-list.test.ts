// billing.invoices.list over HTTP: every filter, overdue by the injected clock, and keyset pagination.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, billedOrg, billingStaff, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`billing.invoices.list (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let gbp: BilledOrg;
    let eur: BilledOrg;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    let inv: Record<'janOpen' | 'febPaid' | 'febEur' | 'draft' | 'usdOpen', { id: string }>;
    const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((i) => i.id);
    const list = (body: Record<string, unknown>, token = staff) => svc.call(ops['billing.invoices.list'], body, token);

    before(async () => {
      svc = await startService(backend, { clock });
      staff = await billingStaff(svc);
      gbp = await billedOrg(svc, { payment_terms_days: 30 });
      eur = await billedOrg(svc, { currency: 'EUR', payment_terms_days: 14 });
      const janOpen = await openInvoice(svc, staff, gbp.customerId, [1000]); // issued 01-05, due 02-04
      clock.set('2026-02-10T09:00:00.000Z');
      const febPaid = await openInvoice(svc, staff, gbp.customerId, [500]); // due 03-12
      await svc.call(ops['billing.payments.insert'], paymentBody(febPaid.id, 500, { received_on: '2026-02-10' }), staff);
      clock.advance(60_000);
      const febEur = await openInvoice(svc, staff, eur.customerId, [700]); // due 02-24
      clock.advance(60_000);
      const drafted = await draft(svc, staff, gbp.customerId, [300]);
      clock.advance(60_000);
      const usdOpen = await openInvoice(svc, staff, gbp.customerId, [900], { currency: 'USD' }); // due 03-12
      clock.set('2026-03-01T09:00:00.000Z');
      inv = { janOpen, febPaid, febEur, draft: drafted, usdOpen };
    });
    after(async () => svc?.close());

    it('filters by customer, status and currency', async () => {
      expect(ids(await list({ customer_id: eur.customerId }))).to.deep.equal([inv.febEur.id]);
      expect(ids(await list({ customer_id: gbp.customerId, status: 'open' }))).to.deep.equal([inv.janOpen.id, inv.usdOpen.id]);
      expect(ids(await list({ status: 'paid' }))).to.deep.equal([inv.febPaid.id]);
      expect(ids(await list({ status: 'draft' }))).to.deep.equal([inv.draft.id]);
      expect(ids(await list({ currency: 'USD' }))).to.deep.equal([inv.usdOpen.id]);
      expect(ids(await list({ currency: 'EUR' }))).to.deep.equal([inv.febEur.id]);
    });

    it('filters by issue and due date ranges, inclusive', async () => {
      expect(ids(await list({ issue_date_from: '2026-02-01' }))).to.deep.equal([inv.febPaid.id, inv.febEur.id, inv.usdOpen.id]);
      expect(ids(await list({ issue_date_to: '2026-01-05' }))).to.deep.equal([inv.janOpen.id]);
      expect(ids(await list({ due_date_from: '2026-02-24', due_date_to: '2026-02-24' }))).to.deep.equal([inv.febEur.id]);
      expect(ids(await list({ due_date_from: '2026-03-12' }))).to.deep.equal([inv.febPaid.id, inv.usdOpen.id]);
    });

    it('lists overdue invoices (open, due before today by the injected clock)', async () => {
      expect(ids(await list({ overdue: true }))).to.deep.equal([inv.janOpen.id, inv.febEur.id]);
      expect(ids(await list({ overdue: false }))).to.deep.equal([inv.febPaid.id, inv.draft.id, inv.usdOpen.id]);
      clock.set('2026-03-13T09:00:00.000Z');
      expect(ids(await list({ overdue: true }))).to.deep.equal([inv.janOpen.id, inv.febEur.id, inv.usdOpen.id]);
      expect(ids(await list({ overdue: true, customer_id: eur.customerId }))).to.deep.equal([inv.febEur.id]);
    });

    it('shows an organization only its own finalized invoices', async () => {
      expect(ids(await list({}, gbp.token))).to.deep.equal([inv.janOpen.id, inv.febPaid.id, inv.usdOpen.id]);
      expect(ids(await list({ customer_id: gbp.customerId }, eur.token))).to.deep.equal([]);
    });

    it('pages with opaque cursors, no item twice or missed, stable under inserts', async () => {
      const all = ids(await list({}));
      expect(all).to.have.length(5);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.status).to.equal(200);
        seen.push(...ids(page));
        cursor = page.body.pagination?.cursor;
        if (pages++ === 0) {
          clock.advance(60_000);
          await draft(svc, staff, gbp.customerId, [1]); // lands after every earlier page
        }
      } while (cursor);
      expect(seen.slice(0, 5)).to.deep.equal(all);
      expect(seen).to.have.length(6);
      const bad = await list({ cursor: 'bm90LWEtY3Vyc29y' });
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_cursor');
    });
  });
}
