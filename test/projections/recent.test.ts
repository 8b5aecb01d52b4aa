// A command may answer with the document its projection commit wrote (recentDocument, through the query module) instead of reading it back.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { recentCustomer } from '../../src/queries/billing/customers.ts';
import { ops } from '../support/ops.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';

for (const backend of backends()) {
  describe(`recent documents of the live projection (${backend})`, () => {
    it('remembers the row a commit wrote, only for positions it covers', async () => {
      const svc = await startService(backend);
      try {
        const owner = await svc.signUp();
        const res = await svc.call(ops['billing.customers.insert'], { name: 'Recent Ltd', email: 'recent@example.com', currency: 'GBP' }, owner.token);
        expect(res.status).to.equal(200);
        const head = await svc.app.store.headPosition();
        expect(recentCustomer(svc.app.knex, res.body.id, head)).to.deep.equal(res.body);
        expect((await svc.call(ops['billing.customers.get'], { id: res.body.id }, owner.token)).body).to.deep.equal(res.body);
        // A position after the last commit is not covered: the caller reads the table.
        expect(recentCustomer(svc.app.knex, res.body.id, 'pg1:99999999999999999999:99999999999999999999')).to.equal(undefined);
        expect(recentCustomer(svc.app.knex, res.body.id, null)).to.equal(undefined);
      } finally {
        await svc.close();
      }
    });

    it('writes a new payment, ledger line and receivable without reading their rows, and the rows equal a rebuild', async () => {
      const svc = await startService(backend);
      try {
        const staff = await billingStaff(svc);
        const { customerId } = await billedOrg(svc);
        const reads: string[] = [];
        const listen = (q: { sql: string }) => {
          const m = /^select id::text as id, doc from "(billing_payments|billing_ledger_entries|billing_receivables)"/.exec(q.sql);
          if (m?.[1]) reads.push(m[1]);
        };
        svc.app.knex.on('query', listen);
        const invoice = await openInvoice(svc, staff, customerId, [1000]);
        const paid = await svc.call(ops['billing.payments.insert'], paymentBody(invoice.id, 400), staff);
        svc.app.knex.off('query', listen);
        expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
        // Finalize makes the receivable and a ledger line, the payment its document and a line: all from the events alone.
        expect(reads).to.deep.equal([]);
        const before = await tableRows(svc.app.knex);
        await svc.app.runner.rebuild(['billing.payments', 'billing.statements']);
        expect(await tableRows(svc.app.knex)).to.deep.equal(before);
        expect(before.billing_payments).to.have.length(1);
        expect(before.billing_ledger_entries).to.have.length(2);
      } finally {
        await svc.close();
      }
    });
  });
}

async function tableRows(knex: import('knex').Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of ['billing_payments', 'billing_ledger_entries', 'billing_receivables']) out[t] = await knex(t).orderBy('id').select('id', 'doc');
  return out;
}
