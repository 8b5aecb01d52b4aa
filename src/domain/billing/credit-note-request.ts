// Credit note request aggregate (`creditnoterequest-<id>`): pending -> approved -> issued, or rejected | cancelled.
// Issuing also appends CreditNoteIssued to the invoice stream (see commands/billing/credit-note-requests.ts).
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { CreditNoteReasonSchema } from './invoice-events.ts';
import { billingErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';

/** Where a credit note request stands. */
export type CreditNoteRequestStatus = 'pending' | 'approved' | 'issued' | 'rejected' | 'cancelled';

/** The editable details of a request. */
export const CreditNoteRequestDetailsSchema = z.object({ amount: z.number(), reason: CreditNoteReasonSchema, description: z.string() });
/** The editable details of a request. */
export type CreditNoteRequestDetails = z.infer<typeof CreditNoteRequestDetailsSchema>;

/** Everything that happens to a credit note request. */
export const creditNoteRequestEvents = eventSchemas({
  CreditNoteRequested: CreditNoteRequestDetailsSchema.extend({
    credit_note_request_id: z.string(), invoice_id: EventId, invoice_number: z.string().nullable(), organization_id: EventId, customer_id: EventId,
    currency: z.string(), requested_at: EventInstant,
  }),
  CreditNoteRequestUpdated: z.object({ changes: CreditNoteRequestDetailsSchema.partial(), updated_at: z.string() }),
  CreditNoteRequestApproved: z.object({ approved_at: z.string() }),
  CreditNoteRequestRejected: z.object({ rejected_at: z.string() }),
  CreditNoteRequestCancelled: z.object({ cancelled_at: z.string() }),
  CreditNoteRequestIssued: z.object({ invoice_id: z.string(), amount: z.number(), currency: z.string(), applied_to_invoice: z.number(), credited_to_balance: z.number(), issued_at: z.string() }),
});

/** A credit note request event (derived from `creditNoteRequestEvents`). */
export type CreditNoteRequestEvent = EventOf<typeof creditNoteRequestEvents>;

/** How credit note request events are read. */
export const creditNoteRequestCodec = eventCodec(creditNoteRequestEvents);

/** What may be asked of a credit note request. */
export type CreditNoteRequestCommand =
  | { type: 'RequestCreditNote'; data: CreditNoteRequestDetails & { credit_note_request_id: string; currency: string; invoice: InvoiceFacts; now: string } }
  | { type: 'UpdateCreditNoteRequest'; data: { changes: Partial<CreditNoteRequestDetails>; action?: CreditNoteRequestAction; invoice: InvoiceFacts; now: string } }
  | { type: 'ApproveCreditNoteRequest'; data: { now: string } }
  | { type: 'RejectCreditNoteRequest'; data: { now: string } }
  | { type: 'CancelCreditNoteRequest'; data: { now: string } }
  | { type: 'MarkCreditNoteRequestIssued'; data: Omit<Extract<CreditNoteRequestEvent, { type: 'CreditNoteRequestIssued' }>['data'], 'issued_at'> & { now: string } };

/** A decision requested together with detail edits: decided with them, all events or none. */
export type CreditNoteRequestAction = 'ApproveCreditNoteRequest' | 'RejectCreditNoteRequest' | 'CancelCreditNoteRequest';

/** What a request is decided against: the invoice as its own stream says now. */
export interface InvoiceFacts {
  invoice_id: string;
  invoice_number: string | null;
  organization_id: string;
  customer_id: string;
  currency: string;
  /** `creditable()` of the invoice state: null when it cannot be credited. */
  creditable: number | null;
  status: string;
}

/** What the decider needs. */
export interface CreditNoteRequestState {
  status: CreditNoteRequestStatus | 'none';
  details: CreditNoteRequestDetails | null;
  /** Was ever approved: an issue that began then may still complete (see MarkCreditNoteRequestIssued). */
  approved: boolean;
}

/** Pure credit note request decider. */
export const creditNoteRequestDecider: Decider<CreditNoteRequestCommand, CreditNoteRequestEvent, CreditNoteRequestState> = {
  events: creditNoteRequestCodec,
  initialState: () => ({ status: 'none', details: null, approved: false }),
  evolve(s, event) {
    switch (event.type) {
      case 'CreditNoteRequested':
        return { status: 'pending', details: { amount: event.data.amount, reason: event.data.reason, description: event.data.description }, approved: false };
      case 'CreditNoteRequestUpdated':
        return { ...s, details: s.details && { ...s.details, ...event.data.changes } };
      case 'CreditNoteRequestApproved':
        return { ...s, status: 'approved', approved: true };
      case 'CreditNoteRequestRejected':
        return { ...s, status: 'rejected' };
      case 'CreditNoteRequestCancelled':
        return { ...s, status: 'cancelled' };
      case 'CreditNoteRequestIssued':
        return { ...s, status: 'issued' };
      default:
        return assertNever(event);
    }
  },
  decide(command, s) {
    switch (command.type) {
      case 'RequestCreditNote': {
        if (s.status !== 'none') throw billingErrors.error('credit_note_request_exists', 'The credit note request already exists.');
        const { invoice, currency, amount, reason, description, credit_note_request_id, now } = command.data;
        if (currency !== invoice.currency) throw billingErrors.error('currency_mismatch', `The invoice is in ${invoice.currency}, not ${currency}.`);
        if (!Number.isSafeInteger(amount) || amount <= 0) throw billingErrors.error('invalid_amount', 'Amounts are positive integers in minor units.');
        withinCreditable(invoice, amount);
        const { invoice_id, invoice_number, organization_id, customer_id } = invoice;
        return [{ type: 'CreditNoteRequested', data: { credit_note_request_id, invoice_id, invoice_number, organization_id, customer_id, currency, amount, reason, description, requested_at: now } }];
      }
      case 'UpdateCreditNoteRequest': {
        const { action, now, invoice } = command.data;
        const edits = Object.values(command.data.changes).some((v) => v !== undefined) ? editRequest(s, command.data.changes, invoice, now) : [];
        if (!action) return edits;
        // The decision is made on the edited state; if it is refused, the edits are not kept either.
        return [...edits, ...creditNoteRequestDecider.decide({ type: action, data: { now } }, edits.reduce(creditNoteRequestDecider.evolve, s))];
      }
      case 'ApproveCreditNoteRequest':
        if (s.status === 'approved') return [];
        require(s, ['pending'], 'approve');
        return [{ type: 'CreditNoteRequestApproved', data: { approved_at: command.data.now } }];
      case 'RejectCreditNoteRequest':
        if (s.status === 'rejected') return [];
        require(s, ['pending', 'approved'], 'reject');
        return [{ type: 'CreditNoteRequestRejected', data: { rejected_at: command.data.now } }];
      case 'CancelCreditNoteRequest':
        if (s.status === 'cancelled') return [];
        require(s, ['pending', 'approved'], 'cancel');
        return [{ type: 'CreditNoteRequestCancelled', data: { cancelled_at: command.data.now } }];
      case 'MarkCreditNoteRequestIssued': {
        if (s.status === 'issued') return [];
        // The credit is already on the invoice (the invoice is the truth), so an issue that began while approved
        // completes even if a reject or cancel slipped in between its two writes.
        if (!(s.approved && (s.status === 'rejected' || s.status === 'cancelled'))) require(s, ['approved'], 'issue');
        const { now, ...data } = command.data;
        return [{ type: 'CreditNoteRequestIssued', data: { ...data, issued_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};

// Edits of a pending request's details; a new amount must still be creditable on the invoice.
function editRequest(s: CreditNoteRequestState, requested: Partial<CreditNoteRequestDetails>, invoice: InvoiceFacts, now: string): CreditNoteRequestEvent[] {
  require(s, ['pending'], 'change the details of');
  const changes = Object.fromEntries(
    Object.entries(requested).filter(([k, v]) => v !== undefined && v !== s.details?.[k as keyof CreditNoteRequestDetails]),
  ) as Partial<CreditNoteRequestDetails>;
  if (changes.amount !== undefined) {
    if (!Number.isSafeInteger(changes.amount) || changes.amount <= 0) throw billingErrors.error('invalid_amount', 'Amounts are positive integers in minor units.');
    withinCreditable(invoice, changes.amount);
  }
  return Object.keys(changes).length ? [{ type: 'CreditNoteRequestUpdated', data: { changes, updated_at: now } }] : [];
}

// A request may ask for at most what the invoice can still be credited.
function withinCreditable(invoice: InvoiceFacts, amount: number): void {
  if (invoice.creditable === null) throw billingErrors.error('invoice_not_creditable', `A credit note cannot be requested: the invoice is ${invoice.status}.`);
  if (amount > invoice.creditable) throw billingErrors.error('amount_exceeds_creditable', `At most ${invoice.creditable} ${invoice.currency} of this invoice can be credited.`);
}

/** Throws unless the request may be issued now (checked before the credit is applied to the invoice). */
export function assertIssuable(s: CreditNoteRequestState): void {
  if (s.status === 'issued') return;
  require(s, ['approved'], 'issue');
}

function require(s: CreditNoteRequestState, allowed: CreditNoteRequestStatus[], action: string): void {
  if (s.status === 'none') throw billingErrors.error('credit_note_request_not_found', 'No such credit note request.');
  if (!allowed.includes(s.status))
    throw billingErrors.error('invalid_status_transition', `Cannot ${action} a credit note request that is ${s.status}.`, { details: { status: s.status } });
}
