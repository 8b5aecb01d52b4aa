// billing.customers.statement.get over HTTP: a clerk's month, balances that add up, ageing, and rebuild equality.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, openInvoice, paymentBody } from '../support/billing.ts';
import { billedOrgLong, signUpLong } from '../support/long-session.ts';
import { settle } from '../support/settle.ts';
import { ops } from '../support/ops.ts';

/** Requests, approves and issues a credit note (owner asks, staff decide). */
export async function issueCredit(svc: TestService, ownerToken: string, staffToken: string, invoiceId: string, amount: number): Promise<void> {
  const r = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: invoiceId, amount, currency: 'GBP', reason: 'order_change', description: 'Wrong part' }, ownerToken);
  expect(r.status, JSON.stringify(r.body)).to.equal(200);
  for (const action of ['approve', 'issue'] as const) {
    const u = await svc.call(ops['billing.credit-note-requests.update'], { id: r.body.id, action }, staffToken);
    expect(u.status, JSON.stringify(u.body)).to.equal(200);
  }
}

for (const backend of backends()) {
  describe(`billing statements over HTTP (${backend})`, () => {
    let svc: TestService;
    let staff: string;
    let acme: BilledOrg;
    let other: BilledOrg;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    const ids: Record<string, string> = {};
    before(async () => {
      svc = await startService(backend, { clock });
      staff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
      acme = await billedOrgLong(svc, { payment_terms_days: 30 });
      other = await billedOrgLong(svc);
      // Jan 5: invoice A 100.00, due Feb 4. Jan 10: 40.00 paid on A.
      ids.a = (await openInvoice(svc, staff, acme.customerId, [10000])).id;
      clock.set('2026-01-10T10:00:00.000Z');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(ids.a, 4000, { received_on: '2026-01-10', reference: 'BACS A1' }), staff)).status).to.equal(200);
      // Jan 20: invoice B 50.00, due Feb 19.
      clock.set('2026-01-20T10:00:00.000Z');
      ids.b = (await openInvoice(svc, staff, acme.customerId, [3000, 2000])).id;
      // A draft never reaches a statement.
      await svc.call(ops['billing.invoices.insert'], { customer_id: acme.customerId, lines: [{ description: 'Draft', unit_amount: 99999 }] }, staff);
      // Feb 2: 10.00 credit note on A. Feb 3: invoice C 30.00, voided the same day.
      clock.set('2026-02-02T10:00:00.000Z');
      await issueCredit(svc, acme.token, staff, ids.a, 1000);
      clock.set('2026-02-03T10:00:00.000Z');
      ids.c = (await openInvoice(svc, staff, acme.customerId, [3000])).id;
      expect((await svc.call(ops['billing.invoices.update'], { id: ids.c, action: 'void', reason: 'issued twice' }, staff)).status).to.equal(200);
      // Mar 1: B paid in full, then 5.00 credited on the paid B (becomes customer credit).
      clock.set('2026-03-01T10:00:00.000Z');
      expect((await svc.call(ops['billing.payments.insert'], paymentBody(ids.b, 5000, { received_on: '2026-03-01', reference: 'BACS B1' }), staff)).status).to.equal(200);
      await issueCredit(svc, acme.token, staff, ids.b, 500);
      await settle(svc);
    });
    after(async () => svc?.close());

    const statement = async (from: string, to: string, token = acme.token, customerId = acme.customerId) =>
      svc.call(ops['billing.customers.statement.get'], { customer_id: customerId, from, to }, token);

    it('gives February: opening balance, dated lines with running balance, closing balance and ageing as of the 28th', async () => {
      const s = await statement('2026-02-01', '2026-02-28');
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      expect(s.body).to.include({ customer_id: acme.customerId, currency: 'GBP', from: '2026-02-01', to: '2026-02-28', opening_balance: 11000 });
      expect(s.body.lines.map((l) => [l.date, l.kind, l.debit, l.credit, l.balance])).to.deep.equal([
        ['2026-02-02', 'credit', 0, 1000, 10000],
        ['2026-02-03', 'invoice', 3000, 0, 13000],
        ['2026-02-03', 'adjustment', 0, 3000, 10000],
      ]);
      expect(s.body.lines[1]?.invoice_number).to.match(/^INV-2026-\d{6}$/);
      expect(s.body).to.include({ total_debits: 3000, total_credits: 4000, closing_balance: 10000, unapplied_credit: 0 });
      // A owes 50.00, 24 days past due; B owes 50.00, 9 days past due.
      expect(s.body.ageing).to.deep.equal({ current: 0, days_1_30: 10000, days_31_60: 0, days_61_90: 0, days_over_90: 0 });
    });

    it('gives the quarter: closing balance equals what the invoices still owe minus unapplied credit', async () => {
      const s = await statement('2026-01-01', '2026-03-31');
      expect(s.body.opening_balance).to.equal(0);
      expect(s.body.lines.map((l) => l.kind)).to.deep.equal(['invoice', 'payment', 'invoice', 'credit', 'invoice', 'adjustment', 'payment', 'credit']);
      expect(s.body.lines[1]?.description).to.contain('BACS A1');
      expect(s.body).to.include({ total_debits: 18000, total_credits: 13500, closing_balance: 4500, unapplied_credit: 500 });
      expect(s.body.lines.at(-1)?.balance).to.equal(s.body.closing_balance);
      expect(s.body.ageing).to.deep.equal({ current: 0, days_1_30: 0, days_31_60: 5000, days_61_90: 0, days_over_90: 0 });
      const list = await svc.call(ops['billing.invoices.list'], { customer_id: acme.customerId }, acme.token);
      const owed = list.body.items.reduce((sum: number, i) => sum + i.amount_remaining, 0);
      expect(s.body.closing_balance).to.equal(owed - s.body.unapplied_credit);
    });

    it('shows a statement before any activity as all zeros, and ages invoices not yet due as current', async () => {
      const empty = await statement('2025-12-01', '2025-12-31');
      expect(empty.body).to.include({ opening_balance: 0, closing_balance: 0, total_debits: 0, total_credits: 0 });
      expect(empty.body.lines).to.deep.equal([]);
      const jan = await statement('2026-01-01', '2026-01-31');
      expect(jan.body.closing_balance).to.equal(11000);
      expect(jan.body.ageing.current).to.equal(11000);
    });

    it("reflects a corrected payment date and a reversed payment", async () => {
      const d = await openInvoice(svc, staff, acme.customerId, [2000]);
      const p = await svc.call(ops['billing.payments.insert'], paymentBody(d.id, 2000, { received_on: '2026-02-27', reference: 'CHQ 7' }), staff);
      expect(p.body.invoice.status).to.equal('paid');
      const q = await svc.call(ops['billing.payments.insert'], paymentBody((await openInvoice(svc, staff, acme.customerId, [1500])).id, 1000, { received_on: '2026-03-01', reference: 'CHQ 8' }), staff);
      await svc.call(ops['billing.payments.update'], { id: q.body.payment.id, received_on: '2026-02-28', reason: 'keyed the wrong date' }, staff);
      await svc.call(ops['billing.payments.update'], { id: q.body.payment.id, void: true, reason: 'cheque bounced' }, staff);
      await settle(svc);
      const feb = await statement('2026-02-01', '2026-02-28');
      const payments = feb.body.lines.filter((l) => l.kind === 'payment').map((l) => [l.date, l.credit]);
      expect(payments).to.deep.equal([['2026-02-27', 2000], ['2026-02-28', 1000]]);
      const mar = await statement('2026-03-01', '2026-03-31');
      const reversal = mar.body.lines.find((l) => l.kind === 'adjustment' && l.payment_id === q.body.payment.id);
      expect(reversal).to.include({ date: '2026-03-01', debit: 1000, credit: 0 });
      const list = await svc.call(ops['billing.invoices.list'], { customer_id: acme.customerId }, acme.token);
      const owed = list.body.items.reduce((sum: number, i) => sum + i.amount_remaining, 0);
      expect(mar.body.closing_balance).to.equal(owed - mar.body.unapplied_credit);
    });

    it('opens each month where the month before closed; the ageing of the last adds up to what the invoices still owe', async () => {
      // Opening balances and ageing are read from per-day sums (billing_ledger_totals), the lines from the entries: they must agree.
      let closing = 0;
      for (const [from, to] of [['2026-01-01', '2026-01-31'], ['2026-02-01', '2026-02-28'], ['2026-03-01', '2026-03-31']] as const) {
        const month = await statement(from, to);
        expect(month.status).to.equal(200);
        expect(month.body.opening_balance, from).to.equal(closing);
        closing = month.body.closing_balance;
      }
      const mar = await statement('2026-03-01', '2026-03-31');
      const list = await svc.call(ops['billing.invoices.list'], { customer_id: acme.customerId }, acme.token);
      const owed = list.body.items.reduce((sum: number, i) => sum + i.amount_remaining, 0);
      expect(Object.values(mar.body.ageing).reduce((a, b) => a + b, 0)).to.equal(owed);
    });

    it("hides another organization's statement (404), shows it to staff, and rejects bad periods with 400", async () => {
      const hidden = await statement('2026-01-01', '2026-01-31', other.token);
      expect(hidden.status).to.equal(404);
      expect(hidden.body.code).to.equal('customer_not_found');
      expect((await statement('2026-01-01', '2026-01-31', staff)).status).to.equal(200);
      const unknown = await statement('2026-01-01', '2026-01-31', staff, crypto.randomUUID());
      expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'customer_not_found']);
      for (const [from, to] of [['2026-02-01', '2026-01-01'], ['2026-02-30', '2026-03-01'], ['2026-1-1', '2026-02-01'], ['2000-01-01', '2026-01-01']]) {
        const bad = await statement(from!, to!);
        expect(bad.status, `${from}..${to}`).to.equal(400);
        expect(bad.body.code).to.equal('invalid_request');
      }
    });

    it('rebuilding every read model reproduces identical invoices, statements, overdue status and event feeds', async () => {
      const invoices = (await svc.call(ops['billing.invoices.list'], { customer_id: acme.customerId }, staff)).body.items.map((i) => i.id);
      const snapshot = async () => ({
        invoices: await Promise.all(invoices.map(async (id: string) => (await svc.call(ops['billing.invoices.get'], id, staff)).body)),
        statements: [(await statement('2026-01-01', '2026-03-31')).body, (await statement('2026-02-01', '2026-02-28')).body],
        overdue: (await svc.call(ops['billing.invoices.overdue-status.get'], {}, acme.token)).body,
        feedOrg: (await svc.call(ops['billing.events.list'], { limit: 200 }, acme.token)).body,
        feedStaff: (await svc.call(ops['billing.events.list'], { limit: 200 }, staff)).body,
      });
      const before = await snapshot();
      expect(before.feedOrg.items.length).to.be.greaterThan(10);
      await svc.app.runner.stop();
      await svc.app.runner.rebuild();
      svc.app.runner.start();
      const after = await snapshot();
      expect(after).to.deep.equal(before);
    });
  });
}
