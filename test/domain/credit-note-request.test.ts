// Credit note request decider: given events, when a command, then events or an error code.
import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors.ts';
import { type CreditNoteRequestAction, type CreditNoteRequestCommand, type CreditNoteRequestEvent, type InvoiceFacts, creditNoteRequestDecider } from '../../src/domain/billing/credit-note-request.ts';

const now = '2026-03-10T09:00:00.000Z';
const requested: CreditNoteRequestEvent = {
  type: 'CreditNoteRequested',
  data: { credit_note_request_id: 'c1', invoice_id: 'i1', invoice_number: 'INV-2026-000001', organization_id: 'o1', customer_id: 'cu1', currency: 'GBP', amount: 500, reason: 'duplicate', description: 'Billed twice', requested_at: now },
};
const invoice: InvoiceFacts = { invoice_id: 'i1', invoice_number: 'INV-2026-000001', organization_id: 'o1', customer_id: 'cu1', currency: 'GBP', status: 'open', creditable: 1000 };
const request: CreditNoteRequestCommand = { type: 'RequestCreditNote', data: { credit_note_request_id: 'c1', invoice, currency: 'GBP', amount: 500, reason: 'duplicate', description: 'Billed twice', now } };
const update = (changes: { amount?: number }, action?: CreditNoteRequestAction, facts = invoice): CreditNoteRequestCommand => ({ type: 'UpdateCreditNoteRequest', data: { changes, action, invoice: facts, now } });
const approved: CreditNoteRequestEvent = { type: 'CreditNoteRequestApproved', data: { approved_at: now } };
const issue: CreditNoteRequestCommand = { type: 'MarkCreditNoteRequestIssued', data: { invoice_id: 'i1', amount: 500, currency: 'GBP', applied_to_invoice: 500, credited_to_balance: 0, now } };

function given(events: CreditNoteRequestEvent[]) {
  const state = events.reduce(creditNoteRequestDecider.evolve, creditNoteRequestDecider.initialState());
  return (command: CreditNoteRequestCommand): { types: string[]; code: string | null } => {
    try {
      return { types: creditNoteRequestDecider.decide(command, state).map((e) => e.type), code: null };
    } catch (err) {
      if (err instanceof DomainError) return { types: [], code: err.code };
      throw err;
    }
  };
}

describe('credit note request decider', () => {
  it('goes pending -> approved -> issued', () => {
    expect(creditNoteRequestDecider.decide(request, creditNoteRequestDecider.initialState())).to.deep.equal([requested]);
    expect(given([requested])({ type: 'ApproveCreditNoteRequest', data: { now } }).types).to.deep.equal(['CreditNoteRequestApproved']);
    expect(given([requested, approved])(issue).types).to.deep.equal(['CreditNoteRequestIssued']);
  });

  it('issues only approved requests; issued, rejected and cancelled are final', () => {
    expect(given([requested])(issue).code).to.equal('invalid_status_transition');
    const issued: CreditNoteRequestEvent = { type: 'CreditNoteRequestIssued', data: { ...issue.data, issued_at: now } as Extract<CreditNoteRequestEvent, { type: 'CreditNoteRequestIssued' }>['data'] };
    expect(given([requested, approved, issued])({ type: 'CancelCreditNoteRequest', data: { now } }).code).to.equal('invalid_status_transition');
    expect(given([requested, approved, issued])(issue).types).to.deep.equal([]);
    const rejected: CreditNoteRequestEvent = { type: 'CreditNoteRequestRejected', data: { rejected_at: now } };
    expect(given([requested, rejected])({ type: 'ApproveCreditNoteRequest', data: { now } }).code).to.equal('invalid_status_transition');
    expect(given([requested])({ type: 'CancelCreditNoteRequest', data: { now } }).types).to.deep.equal(['CreditNoteRequestCancelled']);
    expect(given([requested, rejected])(issue).code).to.equal('invalid_status_transition');
  });

  it('completes an issue that began while approved even if a cancel slipped in (the credit is on the invoice)', () => {
    const cancelled: CreditNoteRequestEvent = { type: 'CreditNoteRequestCancelled', data: { cancelled_at: now } };
    expect(given([requested, approved, cancelled])(issue).types).to.deep.equal(['CreditNoteRequestIssued']);
  });

  it('changes details only while pending, and only real changes', () => {
    expect(given([requested])(update({ amount: 400 })).types).to.deep.equal(['CreditNoteRequestUpdated']);
    expect(given([requested])(update({ amount: 500 })).types).to.deep.equal([]);
    expect(given([requested, approved])(update({ amount: 400 })).code).to.equal('invalid_status_transition');
    expect(given([requested])(update({ amount: -1 })).code).to.equal('invalid_amount');
  });

  it('decides what may be credited on the invoice\'s own state: currency, creditable status and amount', () => {
    const at = (facts: Partial<InvoiceFacts>, amount = 500, currency = 'GBP') => given([])({ ...request, data: { ...request.data, invoice: { ...invoice, ...facts }, amount, currency } } as CreditNoteRequestCommand);
    expect(at({}, 500, 'EUR').code).to.equal('currency_mismatch');
    expect(at({ status: 'void', creditable: null }).code).to.equal('invoice_not_creditable');
    expect(at({ creditable: 499 }).code).to.equal('amount_exceeds_creditable');
    expect(at({ creditable: 500 }).types).to.deep.equal(['CreditNoteRequested']);
    expect(given([requested])(update({ amount: 1001 })).code).to.equal('amount_exceeds_creditable');
  });

  it('decides edits and a decision whole: a refused decision keeps none of the edits', () => {
    expect(given([requested])(update({ amount: 400 }, 'ApproveCreditNoteRequest')).types).to.deep.equal(['CreditNoteRequestUpdated', 'CreditNoteRequestApproved']);
    const rejected: CreditNoteRequestEvent = { type: 'CreditNoteRequestRejected', data: { rejected_at: now } };
    expect(given([requested, rejected])(update({}, 'ApproveCreditNoteRequest'))).to.deep.equal({ types: [], code: 'invalid_status_transition' });
  });
});
