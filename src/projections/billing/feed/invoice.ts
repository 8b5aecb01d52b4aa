// Invoice, payment and credit events (all on the `invoice-<id>` stream) in the billing feed.
import type { InvoiceEvent, InvoiceRef } from '../../../domain/billing/invoice-events.ts';
import type { FeedEventType } from '../../../domain/billing/feed-event-types.ts';
import type { FeedEntry, FeedMappers } from './types.ts';

const money = (amount: number, ref: InvoiceRef) => ({ amount, currency: ref.currency });
const onInvoice = (type: FeedEventType, d: InvoiceRef, data: Record<string, unknown>): FeedEntry => ({ type, subject: { type: 'invoice', id: d.invoice_id }, data });
const onPayment = (type: FeedEventType, d: InvoiceRef & { payment_id: string }, data: Record<string, unknown>): FeedEntry => ({
  type,
  subject: { type: 'payment', id: d.payment_id },
  data: { invoice_id: d.invoice_id, ...data },
});

/** invoice.* and payment.* events; every field shown is also readable through billing.invoices.get / payments.list. */
export const invoiceFeed: FeedMappers<InvoiceEvent> = {
  // Drafts are invisible to the invoiced organization until finalized (billing.invoices.get hides them too).
  InvoiceDrafted: (d) => ({
    ...onInvoice('invoice.created', d, {
      invoice: { id: d.invoice_id, customer_id: d.customer_id, currency: d.currency, lines: d.lines, subtotal: money(d.subtotal, d), total: money(d.total, d), memo: d.memo, metadata: d.metadata },
    }),
    staffOnly: true,
  }),
  InvoiceLinesReplaced: (d) => ({ ...onInvoice('invoice.updated', d, { changes: { lines: d.lines, subtotal: money(d.subtotal, d), total: money(d.total, d) } }), staffOnly: true }),
  InvoiceDetailsUpdated: (d, _e, known) => ({
    ...onInvoice('invoice.updated', d, { changes: { ...(d.memo !== undefined ? { memo: d.memo } : {}), ...(d.metadata !== undefined ? { metadata: d.metadata } : {}) } }),
    staffOnly: !known.finalized(d.invoice_id),
  }),
  InvoiceFinalized: (d) => onInvoice('invoice.finalized', d, { number: d.number, issue_date: d.issue_date, due_date: d.due_date, total: money(d.total, d) }),
  InvoiceVoided: (d) => onInvoice('invoice.voided', d, { number: d.number, amount_remaining: money(d.amount_remaining, d) }),
  InvoiceMarkedUncollectible: (d) => onInvoice('invoice.marked_uncollectible', d, { number: d.number, amount_remaining: money(d.amount_remaining, d) }),
  InvoicePaid: (d) =>
    onInvoice('invoice.paid', d, { number: d.number, total: money(d.total, d), amount_paid: money(d.amount_paid, d), amount_credited: money(d.amount_credited, d) }),
  CreditNoteIssued: (d) =>
    onInvoice('invoice.credited', d, {
      credit_note_request_id: d.credit_note_request_id,
      amount: money(d.amount, d),
      reason: d.reason,
      applied_to_invoice: money(d.applied_to_invoice, d),
      credited_to_balance: money(d.credited_to_balance, d),
    }),
  PaymentRecorded: (d) => onPayment('payment.recorded', d, { amount: money(d.amount, d), method: d.method, reference: d.reference, received_on: d.received_on }),
  PaymentUpdated: (d) => {
    const { amount, ...rest } = d.changes;
    return onPayment('payment.updated', d, { changes: { ...rest, ...(amount !== undefined ? { amount: money(amount, d) } : {}) } });
  },
  PaymentVoided: (d) => onPayment('payment.voided', d, { amount: money(d.amount, d), reference: d.reference, reason: d.reason }),
  // The orders behind a usage invoice's lines: read through billing.invoices.orders.list, not a feed event of their own.
  InvoiceUsageRated: () => null,
  // Charge attempts hold the invoice while a charge is in flight; the feed tells the payment (payment.recorded), not the attempts.
  ChargeAttemptStarted: () => null,
  ChargeAttemptEnded: () => null,
};
