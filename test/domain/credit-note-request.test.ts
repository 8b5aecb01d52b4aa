// Credit note request decider: given events, when a command, then events or an error code.
import { type CreditNoteRequestCommand, type CreditNoteRequestEvent, creditNoteRequestDecider } from '../../src/domain/billing/credit-note-request.ts';
import { given } from './given.ts';

const now = '2026-03-10T09:00:00.000Z';
const requested: CreditNoteRequestEvent = {
  type: 'CreditNoteRequested',
  data: { credit_note_request_id: 'c1', invoice_id: 'i1', invoice_number: 'INV-2026-000001', organization_id: 'o1', customer_id: 'cu1', currency: 'GBP', amount: 500, reason: 'duplicate', description: 'Billed twice', requested_at: now },
};
const approved: CreditNoteRequestEvent = { type: 'CreditNoteRequestApproved', data: { approved_at: now } };
const issue: CreditNoteRequestCommand = { type: 'MarkCreditNoteRequestIssued', data: { invoice_id: 'i1', amount: 500, currency: 'GBP', applied_to_invoice: 500, credited_to_balance: 0, now } };
const issued: CreditNoteRequestEvent = { type: 'CreditNoteRequestIssued', data: { invoice_id: 'i1', amount: 500, currency: 'GBP', applied_to_invoice: 500, credited_to_balance: 0, issued_at: now } };
const rejected: CreditNoteRequestEvent = { type: 'CreditNoteRequestRejected', data: { rejected_at: now } };
const cancelled: CreditNoteRequestEvent = { type: 'CreditNoteRequestCancelled', data: { cancelled_at: now } };
const cnr = (events: CreditNoteRequestEvent[]) => given(creditNoteRequestDecider, events);

describe('credit note request decider', () => {
  it('goes pending -> approved -> issued', () => {
    cnr([]).when({ type: 'RequestCreditNote', data: requested.data }).then([requested]);
    cnr([requested]).when({ type: 'ApproveCreditNoteRequest', data: { now } }).then([approved]);
    cnr([requested, approved]).when(issue).then([issued]);
  });

  it('issues only approved requests; issued, rejected and cancelled are final', () => {
    cnr([requested]).when(issue).thenError('invalid_status_transition');
    cnr([requested, approved, issued]).when({ type: 'CancelCreditNoteRequest', data: { now } }).thenError('invalid_status_transition');
    cnr([requested, approved, issued]).when(issue).thenNothing();
    cnr([requested, rejected]).when({ type: 'ApproveCreditNoteRequest', data: { now } }).thenError('invalid_status_transition');
    cnr([requested]).when({ type: 'CancelCreditNoteRequest', data: { now } }).then([cancelled]);
    cnr([requested, rejected]).when(issue).thenError('invalid_status_transition');
  });

  it('completes an issue that began while approved even if a cancel slipped in (the credit is on the invoice)', () => {
    cnr([requested, approved, cancelled]).when(issue).then([issued]);
  });

  it('changes details only while pending, and only real changes', () => {
    cnr([requested]).when({ type: 'UpdateCreditNoteRequest', data: { changes: { amount: 400 }, now } }).then([{ type: 'CreditNoteRequestUpdated', data: { changes: { amount: 400 }, updated_at: now } }]);
    cnr([requested]).when({ type: 'UpdateCreditNoteRequest', data: { changes: { amount: 500 }, now } }).thenNothing();
    cnr([requested, approved]).when({ type: 'UpdateCreditNoteRequest', data: { changes: { amount: 400 }, now } }).thenError('invalid_status_transition');
    cnr([requested]).when({ type: 'UpdateCreditNoteRequest', data: { changes: { amount: -1 }, now } }).thenError('invalid_amount');
  });
});
