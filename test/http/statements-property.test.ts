// Property: over random histories of invoices, payments, corrections, credits and voids, every statement adds up:
// closing = opening + debits - credits, periods chain, and the balance equals what invoices, payments and credit notes say.
import { expect } from 'chai';
import { TestClock, isoDate } from '../../src/clock.ts';
import { addDays } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type BilledOrg, draft, openInvoice, paymentBody } from '../support/billing.ts';
import { billedOrgLong, signUpLong } from '../support/long-session.ts';
import { settle } from '../support/settle.ts';
import { Rng } from '../support/rng.ts';
import { ops } from '../support/ops.ts';

const HISTORIES = Number(process.env.PROPERTY_HISTORIES ?? 4);
const STEPS = Number(process.env.PROPERTY_STEPS ?? 25);
const FIRST_SEED = Number(process.env.PROPERTY_SEED ?? 20260101);

interface ModelInvoice {
  id: string;
  status: string;
  issue_date: string;
  total: number;
  amount_remaining: number;
  amount_paid: number;
  amount_credited: number;
  payments: { id: string; amount: number; status: 'recorded' | 'voided' }[];
}

/** Everything the API says about a customer's money, fetched as staff. */
async function apiFacts(svc: TestService, staff: string, customerId: string) {
  // Every item of a list, page by page (`page` fetches the page after `cursor`).
  const all = async <T>(page: (cursor: string | undefined) => Promise<{ status: number; body: { items: T[]; pagination: { cursor: string } | null } }>) => {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const r = await page(cursor);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      items.push(...r.body.items);
      cursor = r.body.pagination?.cursor;
    } while (cursor);
    return items;
  };
  const filter = (cursor: string | undefined) => ({ customer_id: customerId, limit: 200, ...(cursor ? { cursor } : {}) });
  const listed = await all((cursor) => svc.call(ops['billing.invoices.list'], filter(cursor), staff));
  const invoices = await Promise.all(listed.filter((i) => i.status !== 'draft').map(async (i) => (await svc.call(ops['billing.invoices.get'], i.id, staff)).body));
  const payments = await all((cursor) => svc.call(ops['billing.payments.list'], filter(cursor), staff));
  // Issued requests only, each with the date and split its issue gave it.
  const credits = (await all((cursor) => svc.call(ops['billing.credit-note-requests.list'], filter(cursor), staff))).flatMap((c) => {
    if (c.status !== 'issued') return [];
    const { issued_at, applied_to_invoice, credited_to_balance } = c;
    if (issued_at === null || applied_to_invoice === null || credited_to_balance === null) throw new Error(`issued credit note request ${c.id} lacks its issue date or split`);
    return [{ ...c, issued_at, applied_to_invoice, credited_to_balance }];
  });
  return { invoices, payments, credits };
}

/** The balance on day `d` by the invoices, payments and credit notes themselves (not the ledger read model). */
function balanceFromFacts(f: Awaited<ReturnType<typeof apiFacts>>, d: string): { balance: number; unapplied: number } {
  const day = (ts: string) => ts.slice(0, 10);
  let balance = 0;
  let unapplied = 0;
  for (const i of f.invoices) {
    if (i.issue_date !== null && i.issue_date <= d) balance += i.total;
    if (i.status === 'void' && i.voided_at !== null && day(i.voided_at) <= d) {
      const applied = f.credits.filter((c) => c.invoice_id === i.id).reduce((s, c) => s + c.applied_to_invoice, 0);
      balance -= i.total - applied;
    }
  }
  for (const p of f.payments) {
    if (p.received_on <= d) balance -= p.amount;
    if (p.status === 'voided' && day(p.updated_at) <= d) balance += p.amount;
  }
  for (const c of f.credits) {
    if (day(c.issued_at) <= d) {
      balance -= c.amount;
      unapplied += c.credited_to_balance;
    }
  }
  return { balance, unapplied };
}

/** Plays one random history through the public operations. */
async function playHistory(svc: TestService, staff: string, org: BilledOrg, rng: Rng, clock: TestClock): Promise<void> {
  const invoices: ModelInvoice[] = [];
  const refresh = async (id: string) => {
    const r = await svc.call(ops['billing.invoices.get'], id, staff);
    const m = invoices.find((i) => i.id === id);
    if (!m) throw new Error(`invoice ${id} is not in the model`);
    Object.assign(m, { status: r.body.status, total: r.body.total, amount_remaining: r.body.amount_remaining, amount_paid: r.body.amount_paid, amount_credited: r.body.amount_credited });
  };
  const receivedOn = (inv: ModelInvoice) => {
    const today = isoDate(clock.now());
    const earliest = [inv.issue_date, addDays(today, -20)].sort()[1]!;
    return addDays(earliest, rng.int(0, Math.max(0, Math.round((Date.parse(today) - Date.parse(earliest)) / 86_400_000))));
  };
  const ok = (r: { status: number; body: unknown }, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)} (seed ${rng.seed})`).to.equal(200);
  for (let step = 0; step < STEPS; step++) {
    clock.advance(rng.int(0, 3) * 86_400_000 + rng.int(0, 5) * 3_600_000);
    const payable = invoices.filter((i) => (i.status === 'open' || i.status === 'uncollectible') && i.amount_remaining > 0);
    const withPayments = payable.filter((i) => i.payments.some((p) => p.status === 'recorded'));
    const roll = rng.next();
    let touched: string | null = null;
    if (roll < 0.3 || invoices.length === 0) {
      const amounts = Array.from({ length: rng.int(1, 3) }, () => rng.int(1, 200) * 100 + rng.int(0, 99));
      const inv = await openInvoice(svc, staff, org.customerId, amounts);
      invoices.push({ id: inv.id, status: inv.status, issue_date: inv.issue_date ?? '', total: inv.total, amount_remaining: inv.amount_remaining, amount_paid: 0, amount_credited: 0, payments: [] });
    } else if (roll < 0.6 && payable.length) {
      const inv = rng.pick(payable);
      touched = inv.id;
      const amount = rng.chance(0.4) ? inv.amount_remaining : rng.int(1, inv.amount_remaining);
      const r = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, amount, { received_on: receivedOn(inv), reference: `P${step}` }), staff);
      ok(r, 'payment');
      inv.payments.push({ id: r.body.payment.id, amount, status: 'recorded' });
    } else if (roll < 0.68 && withPayments.length) {
      const inv = rng.pick(withPayments);
      touched = inv.id;
      const p = rng.pick(inv.payments.filter((x) => x.status === 'recorded'));
      const change = rng.chance(0.5) ? { amount: rng.int(1, p.amount + inv.amount_remaining) } : { received_on: receivedOn(inv) };
      const r = await svc.call(ops['billing.payments.update'], { id: p.id, ...change, reason: 'correction' }, staff);
      ok(r, 'payment update');
      if (change.amount) p.amount = change.amount;
    } else if (roll < 0.73 && withPayments.length) {
      const inv = rng.pick(withPayments);
      touched = inv.id;
      const p = rng.pick(inv.payments.filter((x) => x.status === 'recorded'));
      ok(await svc.call(ops['billing.payments.update'], { id: p.id, void: true, reason: 'bounced' }, staff), 'payment void');
      p.status = 'voided';
    } else if (roll < 0.85) {
      const creditable = invoices.filter((i) => (payable.includes(i) || (i.status === 'paid' && i.total - i.amount_credited > 0)));
      if (creditable.length === 0) continue;
      const inv = rng.pick(creditable);
      touched = inv.id;
      const max = inv.status === 'paid' ? inv.total - inv.amount_credited : inv.amount_remaining;
      const req = await svc.call(ops['billing.credit-note-requests.insert'], { invoice_id: inv.id, amount: rng.int(1, max), currency: 'GBP', reason: 'order_change', description: 'adjust' }, org.token);
      ok(req, 'credit request');
      ok(await svc.call(ops['billing.credit-note-requests.update'], { id: req.body.id, action: 'approve' }, staff), 'approve');
      ok(await svc.call(ops['billing.credit-note-requests.update'], { id: req.body.id, action: 'issue' }, staff), 'issue');
    } else if (roll < 0.92) {
      const voidable = payable.filter((i) => i.amount_paid === 0);
      if (voidable.length === 0) continue;
      touched = rng.pick(voidable).id;
      ok(await svc.call(ops['billing.invoices.update'], { id: touched, action: 'void', reason: 'mistake' }, staff), 'void');
    } else if (roll < 0.96) {
      const open = payable.filter((i) => i.status === 'open');
      if (open.length === 0) continue;
      touched = rng.pick(open).id;
      ok(await svc.call(ops['billing.invoices.update'], { id: touched, action: 'mark_uncollectible' }, staff), 'uncollectible');
    } else {
      await draft(svc, staff, org.customerId, [rng.int(1, 100_000)]);
    }
    if (touched) await refresh(touched);
  }
}

for (const backend of backends()) {
  describe(`statement property over random histories (${backend})`, function () {
    this.timeout(600_000);
    let svc: TestService;
    let staff: string;
    const clock = new TestClock('2026-01-01T08:00:00.000Z');
    before(async () => {
      svc = await startService(backend, { clock });
      staff = (await signUpLong(svc, { kind: 'platform', role: 'member', staff: ['billing_staff'] })).token;
    });
    after(async () => svc?.close());

    it(`adds up over ${HISTORIES} random histories of ${STEPS} steps (seeds from ${FIRST_SEED})`, async () => {
      for (let h = 0; h < HISTORIES; h++) {
        const seed = FIRST_SEED + h;
        const rng = new Rng(seed);
        clock.set('2026-01-01T08:00:00.000Z');
        const org = await billedOrgLong(svc, { payment_terms_days: rng.pick([0, 7, 14, 30, 45]) });
        await playHistory(svc, staff, org, rng, clock);
        await settle(svc);
        const facts = await apiFacts(svc, staff, org.customerId);
        const today = isoDate(clock.now());
        const at = (s: string) => `seed ${seed}, ${s}`;
        const statement = async (from: string, to: string) => {
          const r = await svc.call(ops['billing.customers.statement.get'], { customer_id: org.customerId, from, to }, org.token);
          expect(r.status, at(JSON.stringify(r.body))).to.equal(200);
          return r.body;
        };
        // Random cut points split the history into three chained periods.
        const cuts = [rng.int(0, 60), rng.int(0, 60)].sort((a, b) => a - b).map((n) => addDays('2026-01-01', n));
        const periods: [string, string][] = [['2025-12-01', cuts[0]!], [addDays(cuts[0]!, 1), cuts[1]!], [addDays(cuts[1]!, 1), today]].filter(([f, t]) => f! <= t!) as [string, string][];
        let previousClosing = 0;
        for (const [from, to] of periods) {
          const s = await statement(from, to);
          expect(s.opening_balance, at(`opening ${from}`)).to.equal(previousClosing);
          expect(s.closing_balance, at(`closing ${to}`)).to.equal(s.opening_balance + s.total_debits - s.total_credits);
          let running = s.opening_balance;
          for (const l of s.lines) {
            running += l.debit - l.credit;
            expect(l.balance, at(`running balance ${l.date}`)).to.equal(running);
            expect(l.date >= from && l.date <= to, at(`line date ${l.date} in ${from}..${to}`)).to.equal(true);
          }
          const truth = balanceFromFacts(facts, to);
          expect(s.closing_balance, at(`closing ${to} vs invoices, payments and credits`)).to.equal(truth.balance);
          expect(s.unapplied_credit, at(`unapplied ${to}`)).to.equal(truth.unapplied);
          const aged = Object.values(s.ageing as Record<string, number>).reduce((a, b) => a + b, 0);
          expect(aged - s.unapplied_credit, at(`ageing ${to}`)).to.equal(s.closing_balance);
          previousClosing = s.closing_balance;
        }
        // Today, the closing balance is what the invoices still owe minus customer credit.
        const owed = facts.invoices.reduce((sum, i) => sum + i.amount_remaining, 0);
        const credit = facts.invoices.reduce((sum, i) => sum + i.amount_credited_to_balance, 0);
        expect(previousClosing, at('closing today vs amount_remaining')).to.equal(owed - credit);
      }
    });
  });
}
