// Credit note request events in the billing feed.
import type { CreditNoteRequestEvent } from '../../../domain/billing/credit-note-request.ts';
import type { FeedEventType } from '../../../domain/billing/feed-event-types.ts';
import { type FeedEntry, type FeedMappers, streamId } from './types.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';

const on = (type: FeedEventType, e: RecordedEvent, data: Record<string, unknown>): FeedEntry => ({ type, subject: { type: 'credit_note_request', id: streamId(e) }, data });

/** credit_note_request.* events. */
export const creditNoteRequestFeed: FeedMappers<CreditNoteRequestEvent> = {
  CreditNoteRequested: (d, e) =>
    on('credit_note_request.created', e, {
      invoice_id: d.invoice_id,
      invoice_number: d.invoice_number,
      amount: { amount: d.amount, currency: d.currency },
      reason: d.reason,
      description: d.description,
    }),
  CreditNoteRequestUpdated: (d, e, known) => {
    const { amount, ...rest } = d.changes;
    // The update event does not repeat the currency; it was fixed when the request was made.
    const currency = known.currencyOf(streamId(e));
    return on('credit_note_request.updated', e, { changes: { ...rest, ...(amount !== undefined ? { amount: { amount, currency } } : {}) } });
  },
  CreditNoteRequestApproved: (_d, e) => on('credit_note_request.approved', e, {}),
  CreditNoteRequestRejected: (_d, e) => on('credit_note_request.rejected', e, {}),
  CreditNoteRequestCancelled: (_d, e) => on('credit_note_request.cancelled', e, {}),
  CreditNoteRequestIssued: (d, e) =>
    on('credit_note_request.issued', e, {
      invoice_id: d.invoice_id,
      amount: { amount: d.amount, currency: d.currency },
      applied_to_invoice: { amount: d.applied_to_invoice, currency: d.currency },
      credited_to_balance: { amount: d.credited_to_balance, currency: d.currency },
    }),
};
