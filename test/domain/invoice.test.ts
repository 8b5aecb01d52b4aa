// Invoice decider: given events, when a command, then events or an error code.
import { expect } from 'chai';
import { type InvoiceCommand, type InvoiceEvent, type InvoiceLine, invoiceDecider } from '../../src/domain/billing/invoice.ts';
import { given as givenDecider } from './given.ts';

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

const given = (events: InvoiceEvent[]) => givenDecider(invoiceDecider, events);
/** Asserts the decided events' types, in order. */
const types = (...expected: InvoiceEvent['type'][]) => (events: InvoiceEvent[]) => expect(events.map((e) => e.type)).to.deep.equal(expected);

describe('invoice decider', () => {
  it('drafts an invoice with its totals', () => {
    given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: [line(2, 1500), line(1, 2000)], memo: null, metadata: {}, now } }).then([drafted([line(2, 1500), line(1, 2000)])]);
    expect(drafted([line(2, 1500), line(1, 2000)]).data).to.include({ total: 5000, subtotal: 5000 });
  });

  it('refuses more than 500 lines and lines whose amount is not quantity x unit amount', () => {
    const many = Array.from({ length: 501 }, () => line(1, 1));
    given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: many, memo: null, metadata: {}, now } }).thenError('too_many_lines');
    const bad = { ...line(2, 100), amount: 150 };
    given([]).when({ type: 'DraftInvoice', data: { ...ref, lines: [bad], memo: null, metadata: {}, now } }).thenError('invalid_line');
  });

  it('changes lines only while draft', () => {
    given([drafted()]).when({ type: 'UpdateInvoice', data: { lines: [line(3, 100)], now } })
      .then([{ type: 'InvoiceLinesReplaced', data: { ...ref, lines: [line(3, 100)], subtotal: 300, total: 300, updated_at: now } }]);
    given([drafted(), finalized]).when({ type: 'UpdateInvoice', data: { lines: [line(3, 100)], now } }).thenError('invoice_not_draft');
    given([drafted(), finalized]).when({ type: 'UpdateInvoice', data: { memo: 'thanks', now } }).then([{ type: 'InvoiceDetailsUpdated', data: { ...ref, memo: 'thanks', updated_at: now } }]);
  });

  it('finalizes a draft once; a retry with the same number is a no-op, another finalize is 409', () => {
    given([drafted()]).when(finalize).then(types('InvoiceFinalized'));
    const again = { ...finalize, data: { ...finalize.data, number: 'INV-2026-000001' } };
    given([drafted(), finalized]).when(again).thenNothing();
    given([drafted(), finalized]).when(finalize).thenError('invalid_status_transition', { status: 'open' });
  });

  it('marks a zero-total invoice paid when it is finalized', () => {
    given([drafted([])]).when(finalize).then(types('InvoiceFinalized', 'InvoicePaid'));
  });

  it('records partial payments and marks the invoice paid by the payment that settles it', () => {
    given([drafted(), finalized]).when(pay('p1', 400)).then(types('PaymentRecorded'));
    given([drafted(), finalized, payment('p1', 400)]).when(pay('p2', 600)).then((events) => {
      types('PaymentRecorded', 'InvoicePaid')(events);
      expect(events[1]?.data).to.include({ amount_paid: 1000, total: 1000 });
    });
  });

  it('refuses payments over the remaining amount, in another currency, or on drafts and paid invoices', () => {
    given([drafted(), finalized, payment('p1', 400)]).when(pay('p2', 601)).thenError('amount_exceeds_remaining');
    given([drafted(), finalized]).when(pay('p2', 100, 'EUR')).thenError('currency_mismatch');
    given([drafted()]).when(pay('p1', 100)).thenError('invoice_not_payable');
    const paidEvents = given([drafted(), finalized]).when(pay('p1', 1000)).then(types('PaymentRecorded', 'InvoicePaid'));
    given([drafted(), finalized, ...paidEvents]).when(pay('p2', 1)).thenError('invoice_not_payable');
    given([drafted(), finalized]).when(pay('p1', 0)).thenError('invalid_amount');
  });

  it('follows the Stripe machine: open -> uncollectible -> paid | void; paid and void are final', () => {
    const open = [drafted(), finalized];
    const uncollectible: InvoiceEvent = { type: 'InvoiceMarkedUncollectible', data: { ...ref, number: 'INV-2026-000001', amount_remaining: 1000, marked_at: now } };
    given(open).when({ type: 'MarkInvoiceUncollectible', data: { now } }).then([uncollectible]);
    given([...open, uncollectible]).when(pay('p1', 1000)).then(types('PaymentRecorded', 'InvoicePaid'));
    const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { ...ref, number: 'INV-2026-000001', total: 1000, amount_remaining: 1000, voided_at: now } };
    given([...open, uncollectible]).when({ type: 'VoidInvoice', data: { now } }).then([voided]);
    given([drafted()]).when({ type: 'VoidInvoice', data: { now } }).thenError('invalid_status_transition');
    const commands: InvoiceCommand[] = [{ type: 'VoidInvoice', data: { now } }, { type: 'MarkInvoiceUncollectible', data: { now } }, finalize];
    for (const c of commands) given([...open, voided]).when(c).thenError('invalid_status_transition');
    given([...open, voided]).when({ type: 'UpdateInvoice', data: { memo: 'x', now } }).thenError('invoice_final');
  });

  it('refuses to void an invoice with payments', () => {
    given([drafted(), finalized, payment('p1', 100)]).when({ type: 'VoidInvoice', data: { now } }).thenError('invoice_has_payments');
  });

  it('edits and voids payments while money is owed, never once paid', () => {
    given([drafted(), finalized, payment('p1', 400)]).when({ type: 'UpdatePayment', data: { payment_id: 'p1', changes: { amount: 1000 }, now } }).then((events) => {
      types('PaymentUpdated', 'InvoicePaid')(events);
      expect(events[0]?.data).to.include({ amount_delta: 600 });
    });
    given([drafted(), finalized, payment('p1', 400)]).when({ type: 'VoidPayment', data: { payment_id: 'p1', reason: 'bounced', now } }).then([
      { type: 'PaymentVoided', data: { ...ref, payment_id: 'p1', amount: 400, method: 'bank_transfer', reference: 'ref', received_on: '2026-03-10', reason: 'bounced', voided_at: now } },
    ]);
    const paid = [drafted(), finalized, ...given([drafted(), finalized]).when(pay('p1', 1000)).then(types('PaymentRecorded', 'InvoicePaid'))];
    given(paid).when({ type: 'VoidPayment', data: { payment_id: 'p1', reason: 'x', now } }).thenError('invoice_final');
    given(paid).when({ type: 'UpdatePayment', data: { payment_id: 'p1', changes: { reference: 'fixed' }, now } }).then(types('PaymentUpdated'));
    given([drafted(), finalized]).when({ type: 'VoidPayment', data: { payment_id: 'nope', reason: 'x', now } }).thenError('payment_not_found');
  });

  it('applies credit notes to what is owed, or to the customer balance once paid; a retry is a no-op', () => {
    const credit = (id: string, amount: number, currency = 'GBP'): InvoiceCommand => ({ type: 'IssueCreditNote', data: { credit_note_request_id: id, amount, currency, reason: 'duplicate', now } });
    const open = [drafted(), finalized, payment('p1', 400)];
    const partial = given(open).when(credit('c1', 100)).then([
      { type: 'CreditNoteIssued', data: { ...ref, credit_note_request_id: 'c1', amount: 100, reason: 'duplicate', applied_to_invoice: 100, credited_to_balance: 0, issued_at: now } },
    ]);
    given(open).when(credit('c1', 600)).then(types('CreditNoteIssued', 'InvoicePaid'));
    given(open).when(credit('c1', 601)).thenError('amount_exceeds_remaining');
    given(open).when(credit('c1', 1, 'USD')).thenError('currency_mismatch');
    given([...open, ...partial]).when(credit('c1', 100)).thenNothing();
    const paid = [...open, ...given(open).when(pay('p2', 600)).then(types('PaymentRecorded', 'InvoicePaid'))];
    given(paid).when(credit('c2', 300)).then([
      { type: 'CreditNoteIssued', data: { ...ref, credit_note_request_id: 'c2', amount: 300, reason: 'duplicate', applied_to_invoice: 0, credited_to_balance: 300, issued_at: now } },
    ]);
    given(paid).when(credit('c2', 1001)).thenError('amount_exceeds_creditable');
    given([drafted()]).when(credit('c3', 1)).thenError('invoice_not_creditable');
  });
});
