// Invoice aggregate (`invoice-<id>`): the consistency boundary for lines, status, payments and credits.
// Payments and credits are events on the invoice stream, so racing writers are serialized by its revision.
import { type Decider, assertNever } from '../decider.ts';
import type { DomainError } from '../errors.ts';
import { billingErrors } from './errors.ts';
import { endChargeAttempt, ended, evolveChargeAttempt, startChargeAttempt } from './charge-attempt.ts';
import {
  type InvoiceAction, type InvoiceCommand, type InvoiceEvent, type InvoiceLine, type InvoiceRef, type InvoiceState, type InvoiceStatus,
  type PaymentDetails, type PaymentState, amountRemaining, invoiceCodec, linesTotal,
} from './invoice-events.ts';
import { emptyLayered, layeredGet, layeredSet } from '../layered.ts';

export * from './invoice-events.ts';

/** Most lines one invoice may carry. */
export const MAX_INVOICE_LINES = 500;
/** Largest invoice total, in minor units (keeps every sum a safe integer). */
export const MAX_INVOICE_TOTAL = 1e15;

/** Pure invoice decider. */
export const invoiceDecider: Decider<InvoiceCommand, InvoiceEvent, InvoiceState> = {
  events: invoiceCodec,
  initialState: () => ({
    exists: false, ref: null, status: 'draft', number: null, lines: [], total: 0, amount_paid: 0, amount_credited: 0,
    credited_to_balance: 0, memo: null, metadata: {}, payments: emptyLayered<PaymentState>(), credit_notes: {}, charge_attempts: {}, open_charge_attempt: null,
  }),
  evolve(s, event) {
    switch (event.type) {
      case 'InvoiceDrafted': {
        const { invoice_id, organization_id, customer_id, currency } = event.data;
        return { ...s, exists: true, ref: { invoice_id, organization_id, customer_id, currency }, status: 'draft', lines: event.data.lines, total: event.data.total, memo: event.data.memo, metadata: event.data.metadata };
      }
      case 'InvoiceLinesReplaced':
        return { ...s, lines: event.data.lines, total: event.data.total };
      case 'InvoiceDetailsUpdated':
        return { ...s, memo: event.data.memo === undefined ? s.memo : event.data.memo, metadata: event.data.metadata ?? s.metadata };
      case 'InvoiceFinalized':
        return { ...s, status: 'open', number: event.data.number };
      case 'InvoiceVoided':
        return { ...s, status: 'void' };
      case 'InvoiceMarkedUncollectible':
        return { ...s, status: 'uncollectible' };
      case 'InvoicePaid':
        return { ...s, status: 'paid' };
      case 'PaymentRecorded': {
        const { amount, method, reference, received_on } = event.data;
        return { ...s, amount_paid: s.amount_paid + amount, payments: layeredSet(s.payments, event.data.payment_id, { amount, method, reference, received_on, status: 'recorded' }) };
      }
      case 'PaymentUpdated': {
        const p = layeredGet(s.payments, event.data.payment_id);
        if (!p) return s; // never recorded on this stream: nothing to change
        return { ...s, amount_paid: s.amount_paid + event.data.amount_delta, payments: layeredSet(s.payments, event.data.payment_id, { ...p, ...event.data.changes }) };
      }
      case 'PaymentVoided': {
        const p = layeredGet(s.payments, event.data.payment_id);
        if (!p) return s;
        return { ...s, amount_paid: s.amount_paid - p.amount, payments: layeredSet(s.payments, event.data.payment_id, { ...p, status: 'voided' }) };
      }
      case 'InvoiceUsageRated':
        return s; // the orders behind metered lines: read by orders.list, not needed to decide
      case 'CreditNoteIssued':
        return {
          ...s,
          amount_credited: s.amount_credited + event.data.amount,
          credited_to_balance: s.credited_to_balance + event.data.credited_to_balance,
          credit_notes: { ...s.credit_notes, [event.data.credit_note_request_id]: { applied_to_invoice: event.data.applied_to_invoice, credited_to_balance: event.data.credited_to_balance } },
        };
      case 'ChargeAttemptStarted':
      case 'ChargeAttemptEnded':
        return evolveChargeAttempt(s, event);
      default:
        return assertNever(event);
    }
  },
  decide(command, s) {
    switch (command.type) {
      case 'DraftInvoice': {
        if (s.exists) throw billingErrors.error('invoice_exists', 'The invoice already exists.');
        const { now, lines, memo, metadata, ...ref } = command.data;
        const total = checkLines(lines);
        return [{ type: 'InvoiceDrafted', data: { ...ref, lines, subtotal: total, total, memo, metadata, created_at: now } }];
      }
      case 'UpdateInvoice': {
        const { action, now, ...changes } = command.data;
        const edited = changes.lines !== undefined || changes.memo !== undefined || changes.metadata !== undefined;
        const edits = edited ? updateInvoice({ ...changes, now }, s) : [];
        if (!action) return edits;
        // The action is decided on the edited state; if it is refused, the edits are not kept either.
        return [...edits, ...invoiceDecider.decide(actionCommand(action, now), edits.reduce(invoiceDecider.evolve, s))];
      }
      case 'FinalizeInvoice': {
        const ref = requireInvoice(s);
        // A retried finalize that already went through is a no-op (the number was reserved for this invoice).
        if (s.status !== 'draft' && s.number === command.data.number) return [];
        if (s.status !== 'draft') throw transition('finalize', s.status);
        const { number, issue_date, due_date, payment_terms_days, now } = command.data;
        const finalized: InvoiceEvent = { type: 'InvoiceFinalized', data: { ...ref, number, issue_date, due_date, payment_terms_days, subtotal: s.total, total: s.total, finalized_at: now } };
        // Stripe: an invoice with nothing to pay is paid as soon as it is finalized.
        if (s.total === 0) return [finalized, paid({ ...s, number }, ref, now)];
        return [finalized];
      }
      case 'VoidInvoice': {
        const ref = requireInvoice(s);
        if (s.status !== 'open' && s.status !== 'uncollectible') throw transition('void', s.status);
        if (s.amount_paid > 0)
          throw billingErrors.error('invoice_has_payments', `The invoice has ${s.amount_paid} in recorded payments; void those payments or issue a credit note instead.`);
        return [{ type: 'InvoiceVoided', data: { ...ref, number: numberOf(s), total: s.total, amount_remaining: amountRemaining(s), voided_at: command.data.now } }];
      }
      case 'MarkInvoiceUncollectible': {
        const ref = requireInvoice(s);
        if (s.status !== 'open') throw transition('mark_uncollectible', s.status);
        return [{ type: 'InvoiceMarkedUncollectible', data: { ...ref, number: numberOf(s), amount_remaining: amountRemaining(s), marked_at: command.data.now } }];
      }
      case 'RecordPayment': {
        const ref = requireInvoice(s);
        const { payment_id, currency, charge_attempt, now, ...details } = command.data;
        if (layeredGet(s.payments, payment_id)) throw billingErrors.error('payment_exists', `Payment ${payment_id} is already recorded.`);
        if (s.status !== 'open' && s.status !== 'uncollectible')
          throw billingErrors.error('invoice_not_payable', `A payment cannot be recorded: the invoice is ${s.status}.`);
        sameCurrency(ref, currency);
        positive(details.amount);
        const remaining = amountRemaining(s);
        if (details.amount > remaining)
          throw billingErrors.error('amount_exceeds_remaining', `The payment of ${details.amount} is more than the ${remaining} ${ref.currency} remaining on the invoice.`);
        const recorded: InvoiceEvent = { type: 'PaymentRecorded', data: { ...ref, ...details, payment_id, recorded_at: now } };
        const events = settle(s, [recorded], now);
        // The charge attempt this payment comes from ends with it, in the same append.
        if (charge_attempt && s.open_charge_attempt === charge_attempt.attempt_id)
          events.push(ended(ref, charge_attempt.attempt_id, { status: 'succeeded', charge_ref: details.reference, charged: charge_attempt.charged, applied: details.amount }, now));
        return events;
      }
      case 'UpdatePayment':
        return updatePayment(command.data, s);
      case 'VoidPayment': {
        const ref = requireInvoice(s);
        const p = requirePayment(s, command.data.payment_id);
        if (s.status !== 'open' && s.status !== 'uncollectible')
          throw billingErrors.error('invoice_final', `The payment cannot be voided: the invoice is ${s.status}.`);
        const { status: _status, ...details } = p;
        return [{ type: 'PaymentVoided', data: { ...ref, ...details, payment_id: command.data.payment_id, reason: command.data.reason, voided_at: command.data.now } }];
      }
      case 'IssueCreditNote': {
        const ref = requireInvoice(s);
        const { credit_note_request_id, amount, currency, reason, now } = command.data;
        if (s.credit_notes[credit_note_request_id]) return []; // a retried issue
        sameCurrency(ref, currency);
        positive(amount);
        if (s.status === 'paid') {
          const max = s.total - s.amount_credited;
          if (amount > max) throw billingErrors.error('amount_exceeds_creditable', `At most ${max} ${ref.currency} of this invoice can still be credited.`);
          return [{ type: 'CreditNoteIssued', data: { ...ref, credit_note_request_id, amount, reason, applied_to_invoice: 0, credited_to_balance: amount, issued_at: now } }];
        }
        if (s.status !== 'open' && s.status !== 'uncollectible')
          throw billingErrors.error('invoice_not_creditable', `A credit note cannot be issued: the invoice is ${s.status}.`);
        const remaining = amountRemaining(s);
        if (amount > remaining) throw billingErrors.error('amount_exceeds_remaining', `The credit of ${amount} is more than the ${remaining} ${ref.currency} remaining on the invoice.`);
        const issued: InvoiceEvent = { type: 'CreditNoteIssued', data: { ...ref, credit_note_request_id, amount, reason, applied_to_invoice: amount, credited_to_balance: 0, issued_at: now } };
        return settle(s, [issued], now);
      }
      case 'DraftUsageInvoice':
        return draftUsageInvoice(command.data, s);
      case 'StartChargeAttempt':
        return startChargeAttempt(command.data, s, requireInvoice(s));
      case 'EndChargeAttempt':
        return endChargeAttempt(command.data, s, requireInvoice(s));
      default:
        return assertNever(command);
    }
  },
};

/** Orders per InvoiceUsageRated event: keeps each event small while a 100,000-order month stays one append. */
export const ORDERS_PER_EVENT = 2000;

/**
 * A draft generated from usage, with the orders behind its metered lines, as one decision (one append: the
 * whole draft or none). Its id is derived from the subscription and period, so a retry finds it and changes nothing.
 */
function draftUsageInvoice(c: Extract<InvoiceCommand, { type: 'DraftUsageInvoice' }>['data'], s: InvoiceState): InvoiceEvent[] {
  if (s.exists) return [];
  const { now, lines, orders, memo, metadata, ...ref } = c;
  const total = checkLines(lines);
  const sums = lines.map(() => 0);
  for (const o of orders) {
    if (sums[o.line] === undefined) throw billingErrors.error('invalid_line', `Order ${o.order_id} names line ${o.line + 1}, which does not exist.`);
    sums[o.line] = (sums[o.line] ?? 0) + o.fee;
  }
  lines.forEach((l, i) => {
    if (l.kind !== 'metered' || !l.metered || l.amount !== sums[i]) throw billingErrors.error('invalid_line', `Line ${i + 1}: a metered line's amount is the sum of its orders' fees.`);
  });
  const parts: InvoiceEvent[] = [];
  for (let i = 0; i < orders.length; i += ORDERS_PER_EVENT) parts.push({ type: 'InvoiceUsageRated', data: { ...ref, first: i, orders: orders.slice(i, i + ORDERS_PER_EVENT) } });
  return [{ type: 'InvoiceDrafted', data: { ...ref, lines, subtotal: total, total, memo, metadata: metadata ?? {}, created_at: now } }, ...parts];
}

/** What can still be credited on the invoice: the remaining amount while it is owed, once paid what was paid and not yet credited; null when no credit is possible. */
export function creditable(s: InvoiceState): number | null {
  if (s.status === 'paid') return s.total - s.amount_credited;
  if (s.status === 'open' || s.status === 'uncollectible') return amountRemaining(s);
  return null;
}

// The command of a status change requested with edits.
function actionCommand(action: InvoiceAction, now: string): InvoiceCommand {
  switch (action.type) {
    case 'FinalizeInvoice':
      return { type: 'FinalizeInvoice', data: { ...action.data, now } };
    case 'VoidInvoice':
      return { type: 'VoidInvoice', data: { now } };
    case 'MarkInvoiceUncollectible':
      return { type: 'MarkInvoiceUncollectible', data: { now } };
    default:
      return assertNever(action);
  }
}

/** Validates lines (count, arithmetic, bounds) and returns their total. */
export function checkLines(lines: InvoiceLine[]): number {
  if (lines.length > MAX_INVOICE_LINES) throw billingErrors.error('too_many_lines', `An invoice has at most ${MAX_INVOICE_LINES} lines.`);
  lines.forEach((l, i) => {
    if (!Number.isSafeInteger(l.quantity) || l.quantity <= 0 || !Number.isSafeInteger(l.unit_amount) || l.amount !== l.quantity * l.unit_amount)
      throw billingErrors.error('invalid_line', `Line ${i + 1}: amount must equal quantity x unit_amount, in integer minor units.`);
  });
  const total = linesTotal(lines);
  if (!Number.isSafeInteger(total) || total > MAX_INVOICE_TOTAL) throw billingErrors.error('amount_too_large', 'The invoice total is too large.');
  if (total < 0) throw billingErrors.error('negative_total', 'The invoice total cannot be negative.');
  return total;
}

function updateInvoice(c: Omit<Extract<InvoiceCommand, { type: 'UpdateInvoice' }>['data'], 'action'>, s: InvoiceState): InvoiceEvent[] {
  const ref = requireInvoice(s);
  if (s.status === 'paid' || s.status === 'void') throw billingErrors.error('invoice_final', `The invoice is ${s.status}; paid and void invoices do not change.`);
  const events: InvoiceEvent[] = [];
  if (c.lines !== undefined && JSON.stringify(c.lines) !== JSON.stringify(s.lines)) {
    if (s.status !== 'draft') throw billingErrors.error('invoice_not_draft', `Only draft invoices change lines; this invoice is ${s.status}.`);
    if (s.lines.some((l) => l.kind === 'metered'))
      throw billingErrors.error('invoice_has_metered_lines', 'The lines of an invoice generated from usage come from its orders; they are not edited by hand.');
    const total = checkLines(c.lines);
    events.push({ type: 'InvoiceLinesReplaced', data: { ...ref, lines: c.lines, subtotal: total, total, updated_at: c.now } });
  }
  const memoChanged = c.memo !== undefined && c.memo !== s.memo;
  const metadataChanged = c.metadata !== undefined && JSON.stringify(c.metadata) !== JSON.stringify(s.metadata);
  if (memoChanged || metadataChanged)
    events.push({ type: 'InvoiceDetailsUpdated', data: { ...ref, ...(memoChanged ? { memo: c.memo } : {}), ...(metadataChanged ? { metadata: c.metadata } : {}), updated_at: c.now } });
  return events;
}

function updatePayment(c: Extract<InvoiceCommand, { type: 'UpdatePayment' }>['data'], s: InvoiceState): InvoiceEvent[] {
  const ref = requireInvoice(s);
  const p = requirePayment(s, c.payment_id);
  const { status: _status, ...previous } = p;
  const changes: Partial<PaymentDetails> = {};
  for (const k of ['amount', 'method', 'reference', 'received_on'] as const) {
    if (c.changes[k] !== undefined && c.changes[k] !== previous[k]) Object.assign(changes, { [k]: c.changes[k] });
  }
  if (Object.keys(changes).length === 0) return [];
  let delta = 0;
  if (changes.amount !== undefined) {
    positive(changes.amount);
    // Amounts only move while money is still owed: paid and void are final.
    if (s.status !== 'open' && s.status !== 'uncollectible') throw billingErrors.error('invoice_final', `The payment amount cannot change: the invoice is ${s.status}.`);
    delta = changes.amount - previous.amount;
    const remaining = amountRemaining(s);
    if (delta > remaining) throw billingErrors.error('amount_exceeds_remaining', `The new amount exceeds the ${remaining} ${ref.currency} remaining by ${delta - remaining}.`);
  }
  const updated: InvoiceEvent = { type: 'PaymentUpdated', data: { ...ref, payment_id: c.payment_id, changes, previous, amount_delta: delta, updated_at: c.now } };
  return delta > 0 ? settle(s, [updated], c.now) : [updated];
}

// Appends InvoicePaid when the events bring amount_remaining to 0: paid is caused, never set.
function settle(s: InvoiceState, events: InvoiceEvent[], now: string): InvoiceEvent[] {
  const after = events.reduce(invoiceDecider.evolve, s);
  if (amountRemaining(after) !== 0 || (after.status !== 'open' && after.status !== 'uncollectible')) return events;
  return after.ref ? [...events, paid(after, after.ref, now)] : events;
}

function paid(s: InvoiceState, ref: InvoiceRef, now: string): InvoiceEvent {
  return { type: 'InvoicePaid', data: { ...ref, number: numberOf(s), total: s.total, amount_paid: s.amount_paid, amount_credited: s.amount_credited, paid_at: now } };
}

// Every invoice past draft has the number InvoiceFinalized gave it.
function numberOf(s: InvoiceState): string {
  if (s.number === null) throw new Error('invariant broken: a finalized invoice without a number');
  return s.number;
}

function requireInvoice(s: InvoiceState): InvoiceRef {
  if (!s.exists || !s.ref) throw billingErrors.error('invoice_not_found', 'No such invoice.');
  return s.ref;
}

function requirePayment(s: InvoiceState, id: string) {
  const p = layeredGet(s.payments, id);
  if (!p) throw billingErrors.error('payment_not_found', `No payment ${id} on this invoice.`);
  if (p.status === 'voided') throw billingErrors.error('payment_voided', 'The payment is voided; voided payments do not change.');
  return p;
}

function sameCurrency(ref: InvoiceRef, currency: string): void {
  if (currency !== ref.currency) throw billingErrors.error('currency_mismatch', `The invoice is in ${ref.currency}, not ${currency}.`);
}

function positive(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw billingErrors.error('invalid_amount', 'Amounts are positive integers in minor units.');
}

function transition(action: string, status: InvoiceStatus): DomainError {
  return billingErrors.error('invalid_status_transition', `Cannot ${action.replace('_', ' ')} an invoice that is ${status}.`, { details: { status } });
}
