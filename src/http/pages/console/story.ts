// History as a clerk reads it: one sentence per recorded event ("Payment of GBP 1,000.00 recorded"), changed fields
// labelled in words with money formatted, never raw JSON or internal event and field names. Every event type the
// history can show has its sentence here (test/http/console-story.test.ts checks each aggregate's types against it),
// and so does every type of the billing event feed (the activity page), so a new event is never silently unrendered.
import { type Html, type SafeHtml, html, join } from '../html.ts';
import type { FeedEventType } from '../../../contract/schemas/billing-events.ts';
import { money } from './format.ts';

/** What a sentence reads: the event's data, and the currency of its subject (from the data or the replayed state). */
export interface StoryInput {
  data: Record<string, unknown>;
  currency: string | null;
}

type Sentence = (x: StoryInput) => string;

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const words = (v: unknown): string => str(v).replaceAll('_', ' ');
/** An amount of the data, formatted in the subject's currency (a money object `{amount, currency}` too). */
function amount(x: StoryInput, key: string): string {
  const v = x.data[key];
  if (v && typeof v === 'object' && 'amount' in v && 'currency' in v) return money(Number(v.amount), String(v.currency));
  const n = num(v);
  const cur = str(x.data.currency) || x.currency;
  return n === null ? 'an amount' : cur ? money(n, cur) : String(n);
}
const ref = (x: StoryInput) => (str(x.data.reference) ? ` (reference ${str(x.data.reference)})` : '');
const method = (x: StoryInput) => (str(x.data.method) ? ` by ${words(x.data.method)}` : '');
const count = (v: unknown, one: string) => {
  const n = Array.isArray(v) ? v.length : 0;
  return `${n} ${one}${n === 1 ? '' : 's'}`;
};
const listed = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).map((k) => labelOf(k).toLowerCase()).join(', ') : '');

/** The sentence of every stored event type billing.history.get can show, keyed by type. */
export const HISTORY_SENTENCES: Record<string, Sentence> = {
  CustomerCreated: (x) => `Customer ${str(x.data.name)} created (billing email ${str(x.data.email)}, ${str(x.data.currency)})`,
  CustomerUpdated: (x) => `Customer details changed: ${listed(x.data.changes) || 'nothing'}`,
  CustomerRemoved: () => 'Customer removed',
  // Crypto-shredding (issue 32): personal details erased for good; what tax law keeps, until its date.
  DataSubjectErased: (x) =>
    `Personal data erased (legal basis: ${words(x.data.legal_basis)}; reason: ${str(x.data.reason)})${str(x.data.retained_until) ? `; invoice particulars kept until ${str(x.data.retained_until)}` : ''}`,
  RetainedDataErased: () => 'Invoice particulars kept for tax law erased at the end of their retention period',
  InvoiceDrafted: (x) => `Draft invoice created with ${count(x.data.lines, 'line')}, total ${amount(x, 'total')}`,
  InvoiceLinesReplaced: (x) => `Draft lines replaced: ${count(x.data.lines, 'line')}, total now ${amount(x, 'total')}`,
  InvoiceDetailsUpdated: (x) => `Invoice ${[x.data.memo !== undefined ? 'memo' : '', x.data.metadata !== undefined ? 'metadata' : ''].filter(Boolean).join(' and ') || 'details'} changed`,
  InvoiceFinalized: (x) => `Invoice finalized as ${str(x.data.number)} for ${amount(x, 'total')}, issued ${str(x.data.issue_date)}, due ${str(x.data.due_date)}`,
  InvoiceVoided: (x) => `Invoice ${str(x.data.number)} voided with ${amount(x, 'amount_remaining')} unpaid`,
  InvoiceMarkedUncollectible: (x) => `Invoice ${str(x.data.number)} marked uncollectible with ${amount(x, 'amount_remaining')} unpaid`,
  InvoicePaid: (x) => `Invoice ${str(x.data.number)} paid in full (${amount(x, 'amount_paid')} paid, ${amount(x, 'amount_credited')} credited)`,
  PaymentRecorded: (x) => `Payment of ${amount(x, 'amount')}${method(x)} received ${str(x.data.received_on)}${ref(x)} recorded`,
  PaymentUpdated: (x) => {
    const delta = num(x.data.amount_delta) ?? 0;
    const cur = str(x.data.currency) || x.currency;
    return `Payment changed: ${listed(x.data.changes) || 'nothing'}${delta && cur ? ` (amount ${delta > 0 ? 'up' : 'down'} by ${money(Math.abs(delta), cur)})` : ''}`;
  },
  PaymentVoided: (x) => `Payment of ${amount(x, 'amount')}${ref(x)} voided`,
  InvoiceUsageRated: (x) => `Usage rated: ${count(x.data.orders, 'order')} priced on the invoice`,
  CreditNoteIssued: (x) => `Credit note of ${amount(x, 'amount')} issued (${words(x.data.reason)}): ${amount(x, 'applied_to_invoice')} off the invoice, ${amount(x, 'credited_to_balance')} to the customer's balance`,
  ChargeAttemptStarted: (x) => `Card or debit charge of ${amount(x, 'amount')} started`,
  ChargeAttemptEnded: (x) => `Charge attempt ended: ${words(x.data.outcome)}${num(x.data.charged) ? `, ${amount(x, 'charged')} taken` : ''}${str(x.data.code) ? ` (${words(x.data.code)})` : ''}`,
  CreditNoteRequested: (x) => `Credit note of ${amount(x, 'amount')} requested on invoice ${str(x.data.invoice_number) || 'draft'} (${words(x.data.reason)})`,
  CreditNoteRequestUpdated: (x) => `Credit note request changed: ${listed(x.data.changes) || 'nothing'}`,
  CreditNoteRequestApproved: () => 'Credit note request approved',
  CreditNoteRequestRejected: () => 'Credit note request rejected',
  CreditNoteRequestCancelled: () => 'Credit note request cancelled',
  CreditNoteRequestIssued: (x) => `Credit note of ${amount(x, 'amount')} issued: ${amount(x, 'applied_to_invoice')} off the invoice, ${amount(x, 'credited_to_balance')} to the customer's balance`,
  NoteAdded: () => 'Note added',
  NoteEdited: () => 'Note edited',
  NoteRemoved: () => 'Note removed',
  NoteErased: (x) => `Note text erased with its customer (reason: ${str(x.data.reason)})`,
  AttachmentPrepared: (x) => `Upload of ${str(x.data.filename)} started`,
  AttachmentCommitted: (x) => `Attachment saved (${x.data.is_internal === true ? 'internal' : 'shared with the customer'})`,
  AttachmentRemoved: () => 'Attachment removed',
  AttachmentExpired: () => 'Unfinished upload expired',
  AttachmentPurged: (x) => `Attachment deleted after ${str(x.data.retention_days)} days' retention`,
  EmailClaimReleased: () => 'Email address released for a new sign-up (its user was erased)',
  AttachmentNameErased: (x) => `Attachment file name erased with its customer (reason: ${str(x.data.reason)})`,
  RelationshipRegistered: () => 'Buyer relationship registered',
  RelationshipClaimed: () => 'Buyer relationship claimed as pre-existing',
  RelationshipClaimDecided: (x) => `Claim ${str(x.data.decision)}`,
  RelationshipEvidenceCommitted: () => 'Evidence added to the claim',
  BaselineRevisionRecorded: (x) => `Baseline revision recorded: ${amount(x, 'monthly_exempt_amount')} a month exempt from ${str(x.data.effective_from).slice(0, 10)}`,
  PricingRevisionRecorded: (x) => {
    const r = x.data.rates_bps && typeof x.data.rates_bps === 'object' ? (x.data.rates_bps as Record<string, unknown>) : {};
    return `Pricing revision recorded: ${pct(r.platform_introduced)} on platform-introduced and ${pct(r.pre_existing)} on pre-existing buyers, minimum ${amount(x, 'minimum_fee')}, from ${str(x.data.effective_from).slice(0, 10)}`;
  },
};

const pct = (bps: unknown) => (typeof bps === 'number' ? `${(bps / 100).toLocaleString('en-GB', { maximumFractionDigits: 2 })}%` : 'an unknown rate');

/** The sentence of every billing feed event type (the activity page). */
export const FEED_SENTENCES: Record<FeedEventType, Sentence> = {
  'customer.created': (x) => {
    const c = (x.data.customer ?? {}) as Record<string, unknown>;
    return `Customer ${str(c.name) || ''} created`.replace('  ', ' ');
  },
  'customer.updated': (x) => `Customer details changed: ${listed(x.data.changes) || 'nothing'}`,
  'customer.removed': () => 'Customer removed',
  'customer.access_suspended': () => 'Access suspended for non-payment',
  'customer.access_restored': () => 'Access restored',
  'invoice.created': (x) => {
    const i = (x.data.invoice ?? {}) as Record<string, unknown>;
    return `Draft invoice created for ${amount({ data: i, currency: x.currency }, 'total')}`;
  },
  'invoice.updated': (x) => `Invoice changed: ${listed(x.data.changes) || 'nothing'}`,
  'invoice.finalized': (x) => `Invoice ${str(x.data.number)} finalized for ${amount(x, 'total')}, due ${str(x.data.due_date)}`,
  'invoice.voided': (x) => `Invoice ${str(x.data.number)} voided with ${amount(x, 'amount_remaining')} unpaid`,
  'invoice.marked_uncollectible': (x) => `Invoice ${str(x.data.number)} marked uncollectible with ${amount(x, 'amount_remaining')} unpaid`,
  'invoice.paid': (x) => `Invoice ${str(x.data.number)} paid in full (${amount(x, 'total')})`,
  'invoice.credited': (x) => `Credit note of ${amount(x, 'amount')} issued (${words(x.data.reason)})`,
  'payment.recorded': (x) => `Payment of ${amount(x, 'amount')}${method(x)}${ref(x)} recorded`,
  'payment.updated': (x) => `Payment changed: ${listed(x.data.changes) || 'nothing'}`,
  'payment.voided': (x) => `Payment of ${amount(x, 'amount')}${ref(x)} voided`,
  'credit_note_request.created': (x) => `Credit note of ${amount(x, 'amount')} requested`,
  'credit_note_request.updated': (x) => `Credit note request changed: ${listed(x.data.changes) || 'nothing'}`,
  'credit_note_request.approved': () => 'Credit note request approved',
  'credit_note_request.rejected': () => 'Credit note request rejected',
  'credit_note_request.cancelled': () => 'Credit note request cancelled',
  'credit_note_request.issued': (x) => `Credit note of ${amount(x, 'amount')} issued`,
};

/** The sentence of a history event; an unknown type still reads as words, never as its internal name. */
export function historySentence(type: string, x: StoryInput): string {
  const say = Object.hasOwn(HISTORY_SENTENCES, type) ? HISTORY_SENTENCES[type] : undefined;
  return say ? say(x) : 'A change of a kind this console cannot describe yet was recorded';
}

/** The sentence of a feed event. */
export function feedSentence(type: string, x: StoryInput): string {
  const say = Object.hasOwn(FEED_SENTENCES, type) ? FEED_SENTENCES[type as FeedEventType] : undefined;
  return say ? say(x) : 'A change of a kind this console cannot describe yet was recorded';
}

/** Field names a clerk would not recognise, in words. */
const LABELS: Record<string, string> = {
  amount_remaining: 'Amount remaining', amount_paid: 'Amount paid', amount_credited: 'Amount credited', credited_to_balance: 'Credited to balance',
  applied_to_invoice: 'Applied to the invoice', unit_amount: 'Unit price', received_on: 'Received on', payment_terms_days: 'Payment terms (days)',
  tax_id: 'Tax id', billing_address: 'Billing address', line1: 'Address line 1', line2: 'Address line 2', postal_code: 'Postal code',
  is_internal: 'Internal only', monthly_exempt_amount: 'Monthly exempt amount', minimum_fee: 'Minimum fee', rates_bps: 'Rates',
  effective_from: 'Effective from', effective_to: 'Effective to', claim_status: 'Claim', void_reason: 'Reason voided', previous_body: 'Previous text',
  body: 'Text', memo: 'Memo', metadata: 'Metadata', open_charge_attempt: 'Charge in progress',
};

/** Fields that are the machinery of the record, not facts a clerk reads (whether the entity exists, its reference block, charge attempt keys). */
const HIDDEN = new Set(['exists', 'ref', 'charge_attempts', 'credit_notes', 'open_charge_attempt', 'version', 'object_key', 'committed_key', 'provider_key']);

/** Keys whose numbers are money in minor units. */
const MONEY = new Set(['amount', 'total', 'subtotal', 'amount_remaining', 'amount_paid', 'amount_credited', 'credited_to_balance', 'applied_to_invoice', 'unit_amount', 'monthly_exempt_amount', 'minimum_fee', 'amount_delta', 'charged', 'applied']);

/** A field's name in words: "amount_remaining" -> "Amount remaining". */
export function labelOf(key: string): string {
  if (Object.hasOwn(LABELS, key)) return LABELS[key] ?? key;
  const t = key.replaceAll('_', ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A dotted path in words: "lines.0.amount" -> "Line 1 amount"; "payments.<id>.amount" -> "Payment amount". */
export function pathLabel(path: string): string {
  const parts = path.split('.');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] ?? '';
    const next = parts[i + 1];
    if (next !== undefined && /^\d+$/.test(next)) {
      out.push(`${labelOf(p).replace(/s$/, '')} ${Number(next) + 1}`);
      i++;
    } else if (p === 'payments' || p === 'credit_notes') {
      out.push(p === 'payments' ? 'Payment' : 'Credit note');
      if (next !== undefined) i++;
    } else out.push(i === 0 ? labelOf(p) : labelOf(p).toLowerCase());
  }
  return out.join(' ');
}

/** Whether a changed field is one a clerk reads (not the record's machinery). */
export function shownPath(path: string): boolean {
  return !HIDDEN.has(path.split('.')[0] ?? '') && !/(^|\.)(created_at|updated_at)$/.test(path);
}

/** A value as words: money formatted, booleans yes/no, lists and records counted, never JSON. */
export function valueText(key: string, v: unknown, currency: string | null): Html {
  if (v === null || v === undefined || v === '') return html`<span class="muted">none</span>`;
  if (typeof v === 'number') return MONEY.has(key) && currency ? money(v, currency) : v.toLocaleString('en-GB');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /^[a-z]+(_[a-z]+)+$/.test(v) ? v.replaceAll('_', ' ') : v.replace(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}).*Z$/, '$1 $2 UTC');
  if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? '' : 's'}`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    // Records keyed by id (an invoice's payments) are counted: their ids are not for reading.
    if (entries.length && entries.every(([k]) => /^[0-9a-f]{8}-/.test(k))) return `${entries.length} ${labelOf(key).toLowerCase()}`;
    if ('amount' in v && 'currency' in v) return money(Number((v as { amount: unknown }).amount), String((v as { currency: unknown }).currency));
    return join(entries.slice(0, 6).map(([k, x]) => html`${labelOf(k)}: ${valueText(k, x, currency)}`), '; ');
  }
  return typeof v === 'bigint' ? v.toString() : '';
}

/** The last key of a dotted path (what decides how its value is written). */
export function leafKey(path: string): string {
  return path.split('.').at(-1) ?? path;
}

/** A list of changed fields in words ("Status: draft → open"), at most `max` of them. */
export function changeList(changes: { path: string; before: unknown; after: unknown }[], currency: string | null, max = 12): SafeHtml {
  const shown = changes.filter((c) => shownPath(c.path));
  if (shown.length === 0) return html``;
  const items = shown.slice(0, max).map((c) => html`<li>${pathLabel(c.path)}: ${valueText(leafKey(c.path), c.before, currency)} → ${valueText(leafKey(c.path), c.after, currency)}</li>`);
  return html`<ul class="changes">${items}${shown.length > max ? html`<li class="muted">and ${shown.length - max} more</li>` : ''}</ul>`;
}
