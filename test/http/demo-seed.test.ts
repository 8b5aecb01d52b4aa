// Issue 30: the demo `npm start` seeds fills the console: a platform staff login, enabled currencies, a product with a
// price and the entitlement the demo organization uses (vehicle_data_preload), and its subscription; a supplier's month
// of usage and its usage invoice, an overdue invoice with a credit note requested, and a note and an attachment on Acme.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { type TestService, startService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { DEMO_PASSWORD, DEMO_PLATFORM, type DemoSeed, seedDemo } from '../../src/seed.ts';
import { entitledTo } from '../../src/queries/billing/effective-entitlements.ts';
import { addDays, isoDate } from '../../src/clock.ts';

for (const backend of backends()) {
  describe(`demo seed (${backend})`, function () {
    let svc: TestService;
    let seed: DemoSeed;
    let stoppedAt = '';
    before(async () => {
      svc = await startService(backend);
      // The first start is killed right after the overdue invoice was finalized, before the seed recorded that step
      // (the worst moment: a number was allocated); the next start completes the seed.
      const killed = await seedDemo(svc.app, {
        afterWrite: (step) => {
          if (step === 'onboarding invoice finalized') throw new Error((stoppedAt = `killed after ${step}`));
        },
      }).then(() => 'finished', (err: unknown) => String(err));
      expect(killed).to.equal('Error: killed after onboarding invoice finalized');
      const seeded = await seedDemo(svc.app);
      expect(seeded).to.not.equal(null);
      seed = seeded!;
    });
    after(async () => svc?.close());

    /** The supplier of the demo, as billing staff find it in the console. */
    async function supplier() {
      const found = await svc.call(ops['billing.customers.list'], { query: 'Northern Parts' }, seed.staffToken);
      expect(found.body.items, JSON.stringify(found.body)).to.have.length(1);
      return found.body.items[0]!;
    }

    it('seeds a platform staff login, enabled currencies, a product with a price, and Acme subscribed and entitled', async () => {
      const signIn = await svc.call(ops['auth.sessions.insert'], { email: DEMO_PLATFORM, password: DEMO_PASSWORD });
      expect(signIn.status, JSON.stringify(signIn.body)).to.equal(200);
      const staff = signIn.body.token;
      const currencies = await svc.call(ops['billing.currencies.list'], {}, staff);
      expect(currencies.body.filter((c) => c.enabled_for_billing).map((c) => c.code)).to.include.members(['GBP', 'EUR', 'USD']);
      const subscriptions = await svc.call(ops['billing.subscriptions.list'], { organization_id: seed.orgId }, staff);
      expect(subscriptions.body).to.have.length(1);
      expect(await entitledTo(svc.app.knex, seed.orgId, 'vehicle_data_preload', svc.clock.now())).to.equal(true);
    });

    it("seeds a supplier's month of orders to Acme and that month's usage invoice, rated by its pricing", async () => {
      const now = svc.clock.now();
      const period = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      const customer = await supplier();
      const drafts = await svc.call(ops['billing.invoices.list'], { customer_id: customer.id, status: 'draft' }, seed.staffToken);
      expect(drafts.body.items, JSON.stringify(drafts.body)).to.have.length(1);
      const invoice = await svc.call(ops['billing.invoices.get'], drafts.body.items[0]!.id, seed.staffToken);
      // 2.5% with a 0.50 minimum, half-even: 12000 -> 300, 4500 -> 112, 8990 -> 225, 1500 -> 50 (minimum).
      expect(invoice.body).to.include({ currency: 'GBP', total: 687 });
      expect(invoice.body.lines[0]?.metered).to.deep.include({ period, order_count: 4, order_amount: 26990, rate_bps: 250 });
      const orders = await svc.call(ops['billing.invoices.orders.list'], { invoice_id: invoice.body.id }, seed.staffToken);
      expect(orders.body.items.map((o) => o.buyer)).to.deep.equal([seed.orgId, seed.orgId, seed.orgId, seed.orgId]);
    });

    it('seeds an invoice a week overdue, in the overdue list, with a credit note requested against it', async () => {
      const today = isoDate(svc.clock.now());
      const customer = await supplier();
      const overdue = await svc.call(ops['billing.invoices.list'], { overdue: true }, seed.staffToken);
      expect(overdue.body.items.map((i) => [i.customer_id, i.status, i.due_date, i.amount_remaining])).to.deep.equal([[customer.id, 'open', addDays(today, -7), 12000]]);
      const status = await svc.call(ops['billing.invoices.overdue-status.get'], { organization_id: customer.organization_id }, seed.staffToken);
      expect(status.body).to.deep.include({ past_due: true, suspended: false, suspension_date: addDays(today, 7) });
      const requests = await svc.call(ops['billing.credit-note-requests.list'], { invoice_id: overdue.body.items[0]!.id }, seed.staffToken);
      expect(requests.body.items.map((r) => [r.status, r.amount, r.reason])).to.deep.equal([['pending', 2000, 'product_unsatisfactory']]);
    });

    it("seeds a note and a signed agreement on Acme's customer, which Acme's owner can download", async () => {
      const subject = { type: 'customer' as const, id: seed.customerId };
      const notes = await svc.call(ops['billing.notes.list'], { subject }, seed.staffToken);
      expect(notes.body.items.map((n) => n.body)).to.have.length(1);
      expect(notes.body.items[0]?.body).to.match(/agreement/);
      const files = await svc.call(ops['billing.customers.attachments.list'], { customer_id: seed.customerId }, seed.orgToken);
      expect(files.body.items.map((f) => [f.filename, f.content_type])).to.deep.equal([['Service agreement.txt', 'text/plain']]);
      const url = await svc.call(ops['billing.customers.attachments.get'], { customer_id: seed.customerId, id: files.body.items[0]!.id }, seed.orgToken);
      expect(await (await fetch(url.body.url)).text()).to.match(/^Service agreement between core-server and Acme Repairs Ltd\./);
    });

    it('a seed killed mid-way and completed by the next start made everything once', async () => {
      expect(stoppedAt).to.equal('killed after onboarding invoice finalized');
      const orgs = await svc.app.knex('identity_organizations').select('name');
      expect(orgs.map((o) => o.name as string).sort()).to.deep.equal(['Acme Repairs', 'Northern Parts Supply', 'core-server platform']);
      const finalized = await svc.app.knex('es_events').where({ type: 'InvoiceFinalized' }).select('data');
      expect(finalized.map((e) => (e.data as { number: string }).number)).to.have.length(1);
      expect(await svc.app.knex('es_events').where({ type: 'InvoiceNumberAllocated' }).count({ n: '*' }).first().then((r) => Number(r?.n))).to.equal(1);
    });

    it('tells its story in order: set up three weeks ago, the invoice issued then on 14-day terms, today\'s activity now', async () => {
      const today = isoDate(svc.clock.now());
      const overdue = await svc.call(ops['billing.invoices.list'], { overdue: true }, seed.staffToken);
      const invoice = await svc.call(ops['billing.invoices.get'], overdue.body.items[0]!.id, seed.staffToken);
      expect(invoice.body).to.include({ issue_date: addDays(today, -21), due_date: addDays(today, -7), status: 'open' });
      // The log's times never go backwards (no write recorded in the past after a later one).
      const times = (await svc.app.knex('es_events').orderBy([{ column: 'transaction_id' }, { column: 'global_position' }]).select('created_at')).map((r) => new Date(r.created_at as string).getTime());
      expect(times.filter((t, i) => i > 0 && t < times[i - 1]!)).to.deep.equal([]);
      expect(times[0]).to.be.at.most(svc.clock.now().getTime() - 21 * 86_400_000);
    });

    it('a second start finds data and seeds nothing more', async () => {
      expect(await seedDemo(svc.app)).to.equal(null);
    });
  });
}
