// Events and commands of the invoice aggregate (`invoice-<id>`): the invoice, its payments and applied credit notes.
// Every event carries invoice_id, organization_id, customer_id and currency so statements and feeds need no joins.
import { z } from 'zod';
import { type EventOf, addedFields, eventCodec, eventSchemas } from '../decider.ts';
import { EventAmount, EventDate, EventId, EventInstant, EventInt32 } from '../event-fields.ts';
import type { Layered } from '../layered.ts';

/** Stripe's invoice machine: draft -> open -> paid | void | uncollectible; uncollectible -> paid | void. */
export const InvoiceStatusSchema = z.enum(['draft', 'open', 'paid', 'void', 'uncollectible']);
/** An invoice status. */
export type InvoiceStatus = z.infer<typeof InvoiceStatusSchema>;

/** How a manual payment arrived. */
export const PaymentMethodSchema = z.enum(['bank_transfer', 'bank_debit', 'card', 'cash', 'cheque', 'other']);
/** A payment method. */
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

/** Why a credit note is issued (Stripe's reasons plus the marketplace's). */
export const CreditNoteReasonSchema = z.enum(['duplicate', 'order_change', 'order_cancellation', 'product_unsatisfactory', 'fraudulent', 'other']);
/** A credit note reason. */
export type CreditNoteReason = z.infer<typeof CreditNoteReasonSchema>;

/** What rated the orders of a metered line: every order of the line shares these. */
export const MeteredLineSchema = z.object({
  subscription_id: z.string(),
  /** Calendar month `YYYY-MM` (UTC). */
  period: z.string(),
  classification: z.enum(['platform_introduced', 'pre_existing']),
  rate_bps: z.number(),
  minimum_fee: z.number(),
  pricing_revision_id: z.string(),
  baseline_revision_id: z.string().nullable(),
  order_count: z.number(),
  /** Sum of the orders' amounts, the part exempt under the baseline, and the part charged. */
  order_amount: z.number(),
  exempt_amount: z.number(),
  chargeable_amount: z.number(),
});

/** One invoice line; `amount = quantity * unit_amount`, integer minor units of the invoice currency. Metered lines say what rated them. */
export const InvoiceLineSchema = z.object({
  kind: z.enum(['manual', 'metered']),
  description: z.string(),
  quantity: z.number(),
  unit_amount: z.number(),
  amount: z.number(),
  metered: MeteredLineSchema.optional(),
});

/** How one order of a generated invoice was rated: its line, relationship, baseline exemption and fee. */
export const RatedOrderRowSchema = z.object({
  order_id: z.string(),
  line: EventInt32,
  relationship_id: z.string().nullable(),
  exempt_amount: z.number(),
  fee: EventAmount,
});
/** How one order of a generated invoice was rated. */
export type RatedOrderRow = z.infer<typeof RatedOrderRowSchema>;
/** One invoice line. */
export type InvoiceLine = z.infer<typeof InvoiceLineSchema>;

/** Fields every invoice event carries. */
export const InvoiceRefSchema = z.object({ invoice_id: EventId, organization_id: EventId, customer_id: EventId, currency: z.string() });
/** Fields every invoice event carries. */
export type InvoiceRef = z.infer<typeof InvoiceRefSchema>;

/** The editable details of a payment; `received_on` (`YYYY-MM-DD`) is the date the money arrived (statements date the payment by it). */
export const PaymentDetailsSchema = z.object({ amount: EventAmount, method: PaymentMethodSchema, reference: z.string(), received_on: z.string() });
/** The editable details of a payment. */
export type PaymentDetails = z.infer<typeof PaymentDetailsSchema>;

const Metadata = z.record(z.string(), z.string());

/** Who starts a charge attempt on an invoice (a future API adds its own value). */
export const ChargeStarterSchema = z.enum(['payment_page', 'automatic_collection']);
/** Who starts a charge attempt. */
export type ChargeStarter = z.infer<typeof ChargeStarterSchema>;
/** How a charge attempt ended: the provider charged, declined, or the attempt expired without an outcome. */
export const ChargeOutcomeSchema = z.enum(['succeeded', 'failed', 'abandoned']);

/** Everything that happens to an invoice, its payments and its credits (names are stable: other areas read them). */
export const invoiceEvents = eventSchemas({
  InvoiceDrafted: InvoiceRefSchema.extend({ lines: z.array(InvoiceLineSchema), subtotal: EventAmount, total: EventAmount, memo: z.string().nullable(), metadata: Metadata, created_at: EventInstant }),
  InvoiceLinesReplaced: InvoiceRefSchema.extend({ lines: z.array(InvoiceLineSchema), subtotal: EventAmount, total: EventAmount, updated_at: z.string() }),
  InvoiceDetailsUpdated: InvoiceRefSchema.extend({ memo: z.string().nullable().optional(), metadata: Metadata.optional(), updated_at: z.string() }),
  InvoiceFinalized: InvoiceRefSchema.extend({
    number: z.string(), issue_date: EventDate, due_date: EventDate, payment_terms_days: z.number(), subtotal: EventAmount, total: EventAmount, finalized_at: z.string(),
  }),
  InvoiceVoided: InvoiceRefSchema.extend({ number: z.string(), total: EventAmount, amount_remaining: EventAmount, voided_at: EventInstant }),
  InvoiceMarkedUncollectible: InvoiceRefSchema.extend({ number: z.string(), amount_remaining: z.number(), marked_at: z.string() }),
  /** Caused by a payment or credit that brings amount_remaining to 0 (or by finalizing a zero-total invoice); never by hand. */
  InvoicePaid: InvoiceRefSchema.extend({ number: z.string(), total: z.number(), amount_paid: z.number(), amount_credited: z.number(), paid_at: z.string() }),
  PaymentRecorded: InvoiceRefSchema.extend({ ...PaymentDetailsSchema.shape, payment_id: EventId, recorded_at: EventInstant }),
  PaymentUpdated: InvoiceRefSchema.extend({ payment_id: EventId, changes: PaymentDetailsSchema.partial(), previous: PaymentDetailsSchema, amount_delta: EventAmount, updated_at: z.string() }),
  PaymentVoided: InvoiceRefSchema.extend({ ...PaymentDetailsSchema.shape, payment_id: EventId, reason: z.string(), voided_at: EventInstant }),
  /** Part of a usage invoice's draft (same append as its InvoiceDrafted): the orders behind the metered lines, in rating order from `first`. */
  InvoiceUsageRated: InvoiceRefSchema.extend({ first: EventInt32.min(0), orders: z.array(RatedOrderRowSchema) }).refine((d) => d.first + d.orders.length <= 2 ** 31, {
    message: 'the orders\' positions (first + index) must fit a 32-bit integer',
    path: ['first'],
  }),
  CreditNoteIssued: InvoiceRefSchema.extend({
    credit_note_request_id: z.string(),
    amount: EventAmount,
    reason: CreditNoteReasonSchema,
    /** Part that reduced amount_remaining. */
    applied_to_invoice: EventAmount,
    /** Part that became customer credit (the invoice was already paid). */
    credited_to_balance: EventAmount,
    issued_at: EventInstant,
  }),
  /**
   * One charge of the invoice is in flight (issue 26): appended with the stream's expected revision before the provider is asked,
   * so at most one holds the invoice at a time. `provider_key` is the idempotency key of the provider call (whoever holds the
   * attempt asks the provider about it by this key); `amount` is what the invoice owed when it started.
   */
  ChargeAttemptStarted: InvoiceRefSchema.extend({
    attempt_id: z.string(),
    provider_key: z.string(),
    amount: z.number(),
    started_by: ChargeStarterSchema,
    started_at: z.string(),
    /** After this instant the attempt no longer holds the invoice: the next start ends it as `abandoned` (code `expired`). */
    expires_at: z.string(),
  }),
  /** The attempt's outcome: `charged` is what the provider took (0 unless succeeded), `applied` the part recorded as a payment here. */
  ChargeAttemptEnded: InvoiceRefSchema.extend({
    attempt_id: z.string(),
    outcome: ChargeOutcomeSchema,
    charge_ref: z.string().nullable(),
    charged: z.number(),
    applied: z.number(),
    /** Why it failed (the provider's code) or was abandoned (`expired`); null when it succeeded. */
    code: z.string().nullable(),
    ended_at: z.string(),
  }),
});

/** An invoice event (derived from `invoiceEvents`). */
export type InvoiceEvent = EventOf<typeof invoiceEvents>;

/**
 * How invoice events are read. Memo and metadata came to invoices after the first drafts were stored:
 * an `InvoiceDrafted` without them reads as having no memo and no metadata.
 */
export const invoiceCodec = eventCodec(invoiceEvents, { upcasters: { InvoiceDrafted: addedFields({ memo: null, metadata: {} }) } });

/** What may be asked of an invoice; times and looked-up facts (number, due date) come in the command. */
export type InvoiceCommand =
  | { type: 'DraftInvoice'; data: InvoiceRef & { lines: InvoiceLine[]; memo: string | null; metadata: Record<string, string>; now: string } }
  | { type: 'UpdateInvoice'; data: { lines?: InvoiceLine[]; memo?: string | null; metadata?: Record<string, string>; action?: InvoiceAction; now: string } }
  | { type: 'FinalizeInvoice'; data: { number: string; issue_date: string; due_date: string; payment_terms_days: number; now: string } }
  | { type: 'VoidInvoice'; data: { now: string } }
  | { type: 'MarkInvoiceUncollectible'; data: { now: string } }
  | {
      type: 'RecordPayment';
      /** `charge_attempt`: the payment is the outcome of this charge attempt (of `charged`), which it ends in the same append while it is open. */
      data: PaymentDetails & { payment_id: string; currency: string; charge_attempt?: { attempt_id: string; charged: number }; now: string };
    }
  | { type: 'UpdatePayment'; data: { payment_id: string; changes: Partial<PaymentDetails>; now: string } }
  | { type: 'VoidPayment'; data: { payment_id: string; reason: string; now: string } }
  | { type: 'IssueCreditNote'; data: { credit_note_request_id: string; amount: number; currency: string; reason: CreditNoteReason; now: string } }
  | { type: 'DraftUsageInvoice'; data: InvoiceRef & { lines: InvoiceLine[]; orders: RatedOrderRow[]; memo: string | null; metadata?: Record<string, string>; now: string } }
  | { type: 'StartChargeAttempt'; data: { attempt_id: string; provider_key: string; started_by: ChargeStarter; now: string } }
  | { type: 'EndChargeAttempt'; data: { attempt_id: string; outcome: ChargeAttemptOutcome; now: string } };

/** What a charge attempt came to, as its holder reports it. */
export type ChargeAttemptOutcome =
  | { status: 'succeeded'; charge_ref: string; charged: number; applied: number }
  | { status: 'failed'; charge_ref: string | null; code: string }
  | { status: 'abandoned'; code: string };

/** A charge attempt as the invoice knows it. */
export interface ChargeAttemptState {
  attempt_id: string;
  provider_key: string;
  amount: number;
  started_by: ChargeStarter;
  started_at: string;
  expires_at: string;
  status: 'open' | z.infer<typeof ChargeOutcomeSchema>;
}

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
  /** By payment id; layered, so a payment on a long stream does not copy every earlier one (issue 31). */
  payments: Layered<PaymentState>;
  /** Issued credit notes by request id, with how each was applied (a retried issue reads it back). */
  credit_notes: Record<string, { applied_to_invoice: number; credited_to_balance: number }>;
  /** Every charge attempt by id (a repeated start of one is recognised), and the one in flight, if any. */
  charge_attempts: Record<string, ChargeAttemptState>;
  open_charge_attempt: string | null;
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
