// Invoice decider: given events, when a command, then events or an error code.
import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors.ts';
import { type InvoiceCommand, type InvoiceEvent, type InvoiceLine, invoiceDecider } from '../../src/domain/billing/invoice.ts';

const ref = { invoice_id: 'inv-1', organization_id: 'org-1', customer_id: 'cus-1', currency: 'GBP' };
const now = '2026-03-10T09:00:00.000Z';
const line = (quantity: number, unit_amount: number): InvoiceLine => ({ kind: 'manual', description: 'Work', quantity, unit_amount, amount: quantity * unit_amount });

const drafted = (lines: InvoiceLine[] = [line(1, 1000)]): InvoiceEvent => {
  const total = lines.reduce((s, l) => s + l.amount, 0);
  return { type: 'InvoiceDrafted', data: { ...ref, lines, subtotal: total, total, memo: null, metadata: {}, created_at: now } };
};
const finalized: InvoiceEvent = { type: 'InvoiceFinalized', data: { ...ref, number: 'INV-2026-000001', issue_date: '2026-03-10', due_date: '2026-04-09', payment_terms_days: 30, subtotal: 1000, total: 1000, finalized_at: now } };
const payment = (id: string, amount: number): InvoiceEvent => ({
  type: 'PaymentRecorded', data: { ...ref, payment_id: id, amount, method: 'bank_transfer', reference: 'ref', received_on: '2026-03-10', recorded_at: now },
});
const pay = (id: string, amount: number, currency = 'GBP'): InvoiceCommand => ({
  type: 'RecordPayment', data: { payment_id: id, amount, currency, method: 'cash', reference: 'r', received_on: '2026-03-10', now },
});
const finalize: InvoiceCommand = { type: 'FinalizeInvoice', data: { number: 'INV-2026-000002', issue_date: '2026-03-10', due_date: '2026-04-09', payment_terms_days: 30, now } };

function given(events: InvoiceEvent[]) {
  const state = events.reduce(invoiceDecider.evolve, invoiceDecider.initialState());
  return {
    when: (command: InvoiceCommand) => {
      try {
        return { events: invoiceDecider.decide(command, state), error: null as DomainError | null };
      } catch (err) {
        if (err instanceof DomainError) return { events: [] as InvoiceEvent[], error: err };
        throw err;
      }
    },
  };
}

describe('invoice decider', () => {
  it('drafts an invoice with its totals', () => {
    const r = given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: [line(2, 1500), line(1, 2000)], memo: null, metadata: {}, now } });
    expect(r.events).to.have.length(1);
    expect(r.events[0]!.type).to.equal('InvoiceDrafted');
    expect(r.events[0]!.data).to.include({ total: 5000, subtotal: 5000 });
  });

  it('refuses more than 500 lines and lines whose amount is not quantity x unit amount', () => {
    const many = Array.from({ length: 501 }, () => line(1, 1));
    expect(given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: many, memo: null, metadata: {}, now } }).error?.code).to.equal('too_many_lines');
    const bad = { ...line(2, 100), amount: 150 };
    expect(given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: [bad], memo: null, metadata: {}, now } }).error?.code).to.equal('invalid_line');
  });

  it('changes lines only while draft', () => {
    expect(given([drafted()]).when({ type: 'UpdateInvoice', data: { lines: [line(3, 100)], now } }).events[0]!.type).to.equal('InvoiceLinesReplaced');
    expect(given([drafted(), finalized]).when({ type: 'UpdateInvoice', data: { lines: [line(3, 100)], now } }).error?.code).to.equal('invoice_not_draft');
    expect(given([drafted(), finalized]).when({ type: 'UpdateInvoice', data: { memo: 'thanks', now } }).events[0]!.type).to.equal('InvoiceDetailsUpdated');
  });

  it('finalizes a draft once; a retry with the same number is a no-op, another finalize is 409', () => {
    expect(given([drafted()]).when(finalize).events.map((e) => e.type)).to.deep.equal(['InvoiceFinalized']);
    const again = { ...finalize, data: { ...finalize.data, number: 'INV-2026-000001' } };
    expect(given([drafted(), finalized]).when(again).events).to.deep.equal([]);
    const r = given([drafted(), finalized]).when(finalize);
    expect(r.error?.code).to.equal('invalid_status_transition');
    expect(r.error?.status).to.equal(409);
    expect(r.error?.message).to.contain('open');
  });

  it('marks a zero-total invoice paid when it is finalized', () => {
    expect(given([drafted([])]).when(finalize).events.map((e) => e.type)).to.deep.equal(['InvoiceFinalized', 'InvoicePaid']);
  });

  it('records partial payments and marks the invoice paid by the payment that settles it', () => {
    expect(given([drafted(), finalized]).when(pay('p1', 400)).events.map((e) => e.type)).to.deep.equal(['PaymentRecorded']);
    const r = given([drafted(), finalized, payment('p1', 400)]).when(pay('p2', 600));
    expect(r.events.map((e) => e.type)).to.deep.equal(['PaymentRecorded', 'InvoicePaid']);
    expect(r.events[1]!.data).to.include({ amount_paid: 1000, total: 1000 });
  });

  it('refuses payments over the remaining amount, in another currency, or on drafts and paid invoices', () => {
    expect(given([drafted(), finalized, payment('p1', 400)]).when(pay('p2', 601)).error?.code).to.equal('amount_exceeds_remaining');
    const currency = given([drafted(), finalized]).when(pay('p2', 100, 'EUR')).error;
    expect(currency?.code).to.equal('currency_mismatch');
    expect(currency?.status).to.equal(400);
    expect(given([drafted()]).when(pay('p1', 100)).error?.code).to.equal('invoice_not_payable');
    const paidEvents = given([drafted(), finalized]).when(pay('p1', 1000)).events;
    expect(given([drafted(), finalized, ...paidEvents]).when(pay('p2', 1)).error?.code).to.equal('invoice_not_payable');
    expect(given([drafted(), finalized]).when(pay('p1', 0)).error?.code).to.equal('invalid_amount');
  });

  it('follows the Stripe machine: open -> uncollectible -> paid | void; paid and void are final', () => {
    const open = [drafted(), finalized];
    const uncollectible: InvoiceEvent = { type: 'InvoiceMarkedUncollectible', data: { ...ref, number: 'INV-2026-000001', amount_remaining: 1000, marked_at: now } };
    expect(given(open).when({ type: 'MarkInvoiceUncollectible', data: { now } }).events[0]!.type).to.equal('InvoiceMarkedUncollectible');
    expect(given([...open, uncollectible]).when(pay('p1', 1000)).events.map((e) => e.type)).to.deep.equal(['PaymentRecorded', 'InvoicePaid']);
    expect(given([...open, uncollectible]).when({ type: 'VoidInvoice', data: { now } }).events[0]!.type).to.equal('InvoiceVoided');
    expect(given([drafted()]).when({ type: 'VoidInvoice', data: { now } }).error?.code).to.equal('invalid_status_transition');
    const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { ...ref, number: 'INV-2026-000001', total: 1000, amount_remaining: 1000, voided_at: now } };
    for (const c of [{ type: 'VoidInvoice', data: { now } }, { type: 'MarkInvoiceUncollectible', data: { now } }, finalize] as InvoiceCommand[])
      expect(given([...open, voided]).when(c).error?.code).to.equal('invalid_status_transition');
    expect(given([...open, voided]).when({ type: 'UpdateInvoice', data: { memo: 'x', now } }).error?.code).to.equal('invoice_final');
  });

  it('refuses to void an invoice with payments', () => {
    expect(given([drafted(), finalized, payment('p1', 100)]).when({ type: 'VoidInvoice', data: { now } }).error?.code).to.equal('invoice_has_payments');
  });

  it('edits and voids payments while money is owed, never once paid', () => {
    const edited = given([drafted(), finalized, payment('p1', 400)]).when({ type: 'UpdatePayment', data: { payment_id: 'p1', changes: { amount: 1000 }, now } });
    expect(edited.events.map((e) => e.type)).to.deep.equal(['PaymentUpdated', 'InvoicePaid']);
    expect(edited.events[0]!.data).to.include({ amount_delta: 600 });
    const voided = given([drafted(), finalized, payment('p1', 400)]).when({ type: 'VoidPayment', data: { payment_id: 'p1', reason: 'bounced', now } });
    expect(voided.events[0]!.type).to.equal('PaymentVoided');
    const paid = [drafted(), finalized, ...given([drafted(), finalized]).when(pay('p1', 1000)).events];
    expect(given(paid).when({ type: 'VoidPayment', data: { payment_id: 'p1', reason: 'x', now } }).error?.code).to.equal('invoice_final');
    expect(given(paid).when({ type: 'UpdatePayment', data: { payment_id: 'p1', changes: { reference: 'fixed' }, now } }).events[0]!.type).to.equal('PaymentUpdated');
    expect(given([drafted(), finalized]).when({ type: 'VoidPayment', data: { payment_id: 'nope', reason: 'x', now } }).error?.code).to.equal('payment_not_found');
  });

  it('applies credit notes to what is owed, or to the customer balance once paid; a retry is a no-op', () => {
    const credit = (id: string, amount: number, currency = 'GBP'): InvoiceCommand => ({ type: 'IssueCreditNote', data: { credit_note_request_id: id, amount, currency, reason: 'duplicate', now } });
    const open = [drafted(), finalized, payment('p1', 400)];
    const partial = given(open).when(credit('c1', 100));
    expect(partial.events.map((e) => e.type)).to.deep.equal(['CreditNoteIssued']);
    expect(partial.events[0]!.data).to.include({ applied_to_invoice: 100, credited_to_balance: 0 });
    expect(given(open).when(credit('c1', 600)).events.map((e) => e.type)).to.deep.equal(['CreditNoteIssued', 'InvoicePaid']);
    expect(given(open).when(credit('c1', 601)).error?.code).to.equal('amount_exceeds_remaining');
    expect(given(open).when(credit('c1', 1, 'USD')).error?.code).to.equal('currency_mismatch');
    expect(given([...open, ...partial.events]).when(credit('c1', 100)).events).to.deep.equal([]);
    const paid = [...open, ...given(open).when(pay('p2', 600)).events];
    const after = given(paid).when(credit('c2', 300));
    expect(after.events[0]!.data).to.include({ applied_to_invoice: 0, credited_to_balance: 300 });
    expect(given(paid).when(credit('c2', 1001)).error?.code).to.equal('amount_exceeds_creditable');
    expect(given([drafted()]).when(credit('c3', 1)).error?.code).to.equal('invoice_not_creditable');
  });
});
