// Re-rating corrections of one usage invoice (`invoicecorrections-<invoice id>`, issue 26 section 5): every correction
// issued from a re-rating diff, in order. The stream is the consistency boundary: a correction is decided against the
// number of corrections it was computed on (`basis`), so two different diffs of one invoice can never both be applied,
// and the same diff applied twice (same correction id) records nothing the second time.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { EventAmount, EventId, EventInstant, EventInt32 } from '../event-fields.ts';
import { billingErrors } from './errors.ts';

/** What rated a group of orders (shared by every order of a correction line, on one side). */
export const CorrectionRatingSchema = z.object({
  classification: z.enum(['platform_introduced', 'pre_existing']),
  rate_bps: z.number(),
  minimum_fee: z.number(),
  pricing_revision_id: z.string(),
  baseline_revision_id: z.string().nullable(),
});
/** What rated a group of orders. */
export type CorrectionRating = z.infer<typeof CorrectionRatingSchema>;

/** One line of a correction: the orders of one line of the invoice billed under `old` and rated now under `new`. */
export const CorrectionLineSchema = z.object({
  /** The metered line of the corrected invoice the orders are on. */
  source_line_index: EventInt32,
  description: z.string(),
  /** new_fees - old_fees: positive when undercharged, negative when overcharged. */
  amount: EventAmount,
  order_count: EventInt32,
  old_fees: EventAmount,
  new_fees: EventAmount,
  old: CorrectionRatingSchema,
  new: CorrectionRatingSchema,
});
/** One line of a correction. */
export type CorrectionLine = z.infer<typeof CorrectionLineSchema>;

/** The per-order part of a rating (the rest is the line's). */
export const OrderPartSchema = z.object({ relationship_id: z.string().nullable(), exempt_amount: z.number(), fee: EventAmount });
/** One corrected order: its correction line and both ratings' per-order parts. */
export const CorrectionOrderSchema = z.object({ order_id: z.string(), line: EventInt32, old: OrderPartSchema, new: OrderPartSchema });
/** One corrected order. */
export type CorrectionOrder = z.infer<typeof CorrectionOrderSchema>;

/** One credit note of a correction: the invoice it credits and its amount. */
export const CorrectionCreditSchema = z.object({ invoice_id: EventId, credit_note_request_id: EventId, amount: EventAmount });
/** One credit note of a correction. */
export type CorrectionCredit = z.infer<typeof CorrectionCreditSchema>;

/** Orders per InvoiceCorrectionOrdersRecorded event. */
export const CORRECTION_ORDERS_PER_EVENT = 2000;

const Ref = { invoice_id: EventId, organization_id: EventId, customer_id: EventId, currency: z.string() };

/** Everything that happens to an invoice's corrections. */
export const invoiceCorrectionEvents = eventSchemas({
  /** A correction decided from a re-rating diff: its lines, and the documents that carry the money (ids fixed here, written next). */
  InvoiceCorrectionRecorded: z.object({
    ...Ref,
    correction_id: EventId,
    /** The number of corrections of the invoice recorded before this one (its place: 0, 1, ...). */
    basis: EventInt32.min(0),
    diff_hash: z.string(),
    reason: z.string(),
    /** The configuration as known at this instant rated the orders anew. */
    as_of: EventInstant,
    /** new - old over every line: the net amount undercharged (> 0) or overcharged (< 0). */
    difference: EventAmount,
    /**
     * The credit notes that credit an overcharge (difference < 0; none otherwise): on the corrected invoice as far as it can still
     * be credited, then on its earlier finalized correction invoices, in order. The amounts sum to -difference.
     */
    credit_notes: z.array(CorrectionCreditSchema),
    /** The correction invoice that bills an undercharge (difference > 0), or null. */
    correction_invoice_id: EventId.nullable(),
    order_count: EventInt32,
    lines: z.array(CorrectionLineSchema),
    recorded_at: EventInstant,
  }),
  /** Part of a correction (same append as its InvoiceCorrectionRecorded): the corrected orders, in rating order from `first`. */
  InvoiceCorrectionOrdersRecorded: z.object({ invoice_id: EventId, correction_id: EventId, first: EventInt32.min(0), orders: z.array(CorrectionOrderSchema) }).refine((d) => d.first + d.orders.length <= 2 ** 31, {
    message: 'the orders\' positions (first + index) must fit a 32-bit integer',
    path: ['first'],
  }),
});

/** An invoice correction event. */
export type InvoiceCorrectionEvent = EventOf<typeof invoiceCorrectionEvents>;

/** How invoice correction events are read. */
export const invoiceCorrectionCodec = eventCodec(invoiceCorrectionEvents);

/** A correction as recorded (without its orders). */
export type RecordedCorrection = Extract<InvoiceCorrectionEvent, { type: 'InvoiceCorrectionRecorded' }>['data'];

/** What may be asked of an invoice's corrections. */
export type InvoiceCorrectionCommand = {
  type: 'RecordInvoiceCorrection';
  data: Omit<RecordedCorrection, 'recorded_at'> & { orders: CorrectionOrder[]; now: string };
};

/** The corrections of one invoice. */
export interface InvoiceCorrectionState {
  corrections: Record<string, RecordedCorrection>;
  count: number;
}

/** Pure decider of an invoice's corrections. */
export const invoiceCorrectionDecider: Decider<InvoiceCorrectionCommand, InvoiceCorrectionEvent, InvoiceCorrectionState> = {
  events: invoiceCorrectionCodec,
  initialState: () => ({ corrections: {}, count: 0 }),
  evolve(s, event) {
    switch (event.type) {
      case 'InvoiceCorrectionRecorded':
        return { corrections: { ...s.corrections, [event.data.correction_id]: event.data }, count: s.count + 1 };
      case 'InvoiceCorrectionOrdersRecorded':
        return s; // read by the corrections read model, not needed to decide
      default:
        return assertNever(event);
    }
  },
  decide(command, s) {
    switch (command.type) {
      case 'RecordInvoiceCorrection': {
        const { orders, now, ...c } = command.data;
        if (s.corrections[c.correction_id]) return []; // the same diff again: the first result stands
        if (c.basis !== s.count)
          throw billingErrors.error('rerate_diff_changed', `Another correction of this invoice was issued since this diff was computed (${s.count} now, ${c.basis} then); preview it again.`);
        if (orders.length === 0 || c.lines.length === 0) throw billingErrors.error('nothing_to_correct', 'No order differs: there is nothing to correct.');
        const sums = c.lines.map(() => ({ old: 0, new: 0, count: 0 }));
        for (const o of orders) {
          const sum = sums[o.line];
          if (!sum) throw billingErrors.error('invalid_line', `Order ${o.order_id} names correction line ${o.line + 1}, which does not exist.`);
          sum.old += o.old.fee;
          sum.new += o.new.fee;
          sum.count++;
        }
        c.lines.forEach((l, i) => {
          const sum = sums[i];
          if (!sum || l.old_fees !== sum.old || l.new_fees !== sum.new || l.order_count !== sum.count || l.amount !== sum.new - sum.old)
            throw billingErrors.error('invalid_line', `Correction line ${i + 1}: its amounts are the sums of its orders' fees.`);
        });
        const difference = c.lines.reduce((t, l) => t + l.amount, 0);
        if (difference !== c.difference || c.order_count !== orders.length) throw billingErrors.error('invalid_line', 'A correction\'s difference is the sum of its lines.');
        const credited = c.credit_notes.reduce((t, n) => t + n.amount, 0);
        if (c.credit_notes.some((n) => n.amount <= 0) || credited !== Math.max(0, -difference) || (difference > 0) !== (c.correction_invoice_id !== null))
          throw billingErrors.error('invalid_line', 'An overcharge is credited by credit notes summing to it and an undercharge billed by a correction invoice.');
        const parts: InvoiceCorrectionEvent[] = [];
        for (let i = 0; i < orders.length; i += CORRECTION_ORDERS_PER_EVENT)
          parts.push({ type: 'InvoiceCorrectionOrdersRecorded', data: { invoice_id: c.invoice_id, correction_id: c.correction_id, first: i, orders: orders.slice(i, i + CORRECTION_ORDERS_PER_EVENT) } });
        return [{ type: 'InvoiceCorrectionRecorded', data: { ...c, recorded_at: now } }, ...parts];
      }
      default:
        return assertNever(command.type);
    }
  },
};
