// Events and commands of the invoice aggregate (`invoice-<id>`): the invoice, its payments and applied credit notes.
// Every event carries invoice_id, organization_id, customer_id and currency so statements and feeds need no joins.

/** Stripe's invoice machine: draft -> open -> paid | void | uncollectible; uncollectible -> paid | void. */
export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';

/** How a manual payment arrived. */
export type PaymentMethod = 'bank_transfer' | 'card' | 'cash' | 'cheque' | 'other';

/** Why a credit note is issued (Stripe's reasons plus the marketplace's). */
export type CreditNoteReason = 'duplicate' | 'order_change' | 'order_cancellation' | 'product_unsatisfactory' | 'fraudulent' | 'other';

/** One invoice line; `amount = quantity * unit_amount`, integer minor units of the invoice currency. */
export interface InvoiceLine {
  kind: 'manual' | 'metered';
  description: string;
  quantity: number;
  unit_amount: number;
  amount: number;
}

/** Fields every invoice event carries. */
export interface InvoiceRef {
  invoice_id: string;
  organization_id: string;
  customer_id: string;
  currency: string;
}

/** The editable details of a payment. */
export interface PaymentDetails {
  amount: number;
  method: PaymentMethod;
  reference: string;
  /** `YYYY-MM-DD`: the date the money arrived (statements date the payment by it). */
  received_on: string;
}

/** Everything that happens to an invoice, its payments and its credits (names are stable: other areas read them). */
export type InvoiceEvent =
  | { type: 'InvoiceDrafted'; data: InvoiceRef & { lines: InvoiceLine[]; subtotal: number; total: number; memo: string | null; metadata: Record<string, string>; created_at: string } }
  | { type: 'InvoiceLinesReplaced'; data: InvoiceRef & { lines: InvoiceLine[]; subtotal: number; total: number; updated_at: string } }
  | { type: 'InvoiceDetailsUpdated'; data: InvoiceRef & { memo?: string | null; metadata?: Record<string, string>; updated_at: string } }
  | {
      type: 'InvoiceFinalized';
      data: InvoiceRef & { number: string; issue_date: string; due_date: string; payment_terms_days: number; subtotal: number; total: number; finalized_at: string };
    }
  | { type: 'InvoiceVoided'; data: InvoiceRef & { number: string; total: number; amount_remaining: number; voided_at: string } }
  | { type: 'InvoiceMarkedUncollectible'; data: InvoiceRef & { number: string; amount_remaining: number; marked_at: string } }
  /** Caused by a payment or credit that brings amount_remaining to 0 (or by finalizing a zero-total invoice); never by hand. */
  | { type: 'InvoicePaid'; data: InvoiceRef & { number: string; total: number; amount_paid: number; amount_credited: number; paid_at: string } }
  | { type: 'PaymentRecorded'; data: InvoiceRef & PaymentDetails & { payment_id: string; recorded_at: string } }
  | {
      type: 'PaymentUpdated';
      data: InvoiceRef & { payment_id: string; changes: Partial<PaymentDetails>; previous: PaymentDetails; amount_delta: number; updated_at: string };
    }
  | { type: 'PaymentVoided'; data: InvoiceRef & PaymentDetails & { payment_id: string; reason: string; voided_at: string } }
  | {
      type: 'CreditNoteIssued';
      data: InvoiceRef & {
        credit_note_request_id: string;
        amount: number;
        reason: CreditNoteReason;
        /** Part that reduced amount_remaining. */
        applied_to_invoice: number;
        /** Part that became customer credit (the invoice was already paid). */
        credited_to_balance: number;
        issued_at: string;
      };
    };

/** The type names of invoice events (for projections and feeds). */
export const INVOICE_EVENT_TYPES = [
  'InvoiceDrafted', 'InvoiceLinesReplaced', 'InvoiceDetailsUpdated', 'InvoiceFinalized', 'InvoiceVoided', 'InvoiceMarkedUncollectible',
  'InvoicePaid', 'PaymentRecorded', 'PaymentUpdated', 'PaymentVoided', 'CreditNoteIssued',
] as const satisfies readonly InvoiceEvent['type'][];

/** What may be asked of an invoice; times and looked-up facts (number, due date) come in the command. */
export type InvoiceCommand =
  | { type: 'DraftInvoice'; data: InvoiceRef & { lines: InvoiceLine[]; memo: string | null; metadata: Record<string, string>; now: string } }
  | { type: 'UpdateInvoice'; data: { lines?: InvoiceLine[]; memo?: string | null; metadata?: Record<string, string>; action?: InvoiceAction; now: string } }
  | { type: 'FinalizeInvoice'; data: { number: string; issue_date: string; due_date: string; payment_terms_days: number; now: string } }
  | { type: 'VoidInvoice'; data: { now: string } }
  | { type: 'MarkInvoiceUncollectible'; data: { now: string } }
  | { type: 'RecordPayment'; data: PaymentDetails & { payment_id: string; currency: string; now: string } }
  | { type: 'UpdatePayment'; data: { payment_id: string; changes: Partial<PaymentDetails>; now: string } }
  | { type: 'VoidPayment'; data: { payment_id: string; reason: string; now: string } }
  | { type: 'IssueCreditNote'; data: { credit_note_request_id: string; amount: number; currency: string; reason: CreditNoteReason; now: string } };

/** A payment as the invoice knows it. */
export interface PaymentState extends PaymentDetails {
  status: 'recorded' | 'voided';
}

/** Everything the invoice decider needs. */
export interface InvoiceState {
  exists: boolean;
  ref: InvoiceRef | null;
  status: InvoiceStatus;
  number: string | null;
  lines: InvoiceLine[];
  total: number;
  amount_paid: number;
  /** Every issued credit note, including those that became customer credit. */
  amount_credited: number;
  /** The part of amount_credited that became customer credit. */
  credited_to_balance: number;
  memo: string | null;
  metadata: Record<string, string>;
  payments: Record<string, PaymentState>;
  /** Issued credit notes by request id, with how each was applied (a retried issue reads it back). */
  credit_notes: Record<string, { applied_to_invoice: number; credited_to_balance: number }>;
}

/** total - amount_paid - credits applied to the invoice. */
export function amountRemaining(s: Pick<InvoiceState, 'total' | 'amount_paid' | 'amount_credited' | 'credited_to_balance'>): number {
  return s.total - s.amount_paid - (s.amount_credited - s.credited_to_balance);
}

/** Sum of line amounts. */
export function linesTotal(lines: InvoiceLine[]): number {
  return lines.reduce((sum, l) => sum + l.amount, 0);
}

/** A status change requested together with detail edits: decided with them, all events or none. */
export type InvoiceAction =
  | { type: 'FinalizeInvoice'; data: { number: string; issue_date: string; due_date: string; payment_terms_days: number } }
  | { type: 'VoidInvoice' }
  | { type: 'MarkInvoiceUncollectible' };
