// billing_charges (read model billing.charges, issue 26 section 2): one row per provider charge the service knows, keyed by the
// provider's charge reference, with what was charged, what of it was applied to its invoice, and how staff resolved the rest; the
// refunds-due list (queries/billing/charges.ts) is its rows with money due back. Every record of one charge reports the same charge
// (a charge attempt's end on the invoice, automatic collection's ChargeSucceeded, the payment page's outcome, reconciliation's find),
// so a row folds them in any order: the charged amount, the most any of them says was applied, the earliest moment it fell due.
// billing_charge_sources keeps what attributes a charge recorded without its customer (a page attempt's start, an invoice's number).
import type { Knex } from 'knex';
import { type ChargeEvent, type ChargeFacts, type RefundDueCode, type ResolutionKind, chargeCodec, refundDue } from '../../domain/billing/charge.ts';
import { collectionCodec } from '../../domain/billing/collection.ts';
import { invoiceCodec } from '../../domain/billing/invoice-events.ts';
import { paymentAttemptCodec } from '../../domain/billing/payment-attempt.ts';
import { currentType } from '../../domain/decider.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { AddStatement, Projection } from '../projection.ts';
import { readRecorded, streamCategory, streamKey } from '../recorded.ts';

/** One provider charge as the service knows it. */
export interface ChargeDoc extends ChargeFacts {
  charge_ref: string;
  /** The provider that reported it, when reconciliation found it (the others came through `services.payments`). */
  provider: string | null;
  organization_id: string | null;
  customer_id: string | null;
  invoice_id: string | null;
  invoice_number: string | null;
  currency: string | null;
  /** Since when money is due back on it: when the first record that showed it not fully applied was appended. */
  since: string | null;
  pending: { resolution_id: string; kind: ResolutionKind; amount: number; started_at: string } | null;
  resolved: {
    kind: ResolutionKind; resolution_id: string; amount: number; reason: string; at: string;
    refund_ref: string | null; invoice_id: string | null; payment_id: string | null;
  } | null;
  last_failure: { code: string; message: string; at: string } | null;
}

/** Where a charge stands in the list: due back (or being resolved), resolved one way or the other, or nothing due. */
export type ChargeStatus = 'due' | 'resolving' | 'refunded' | 'applied' | 'settled';

/** The status of a charge and, when money is due back, how much and why. */
export function chargeStatus(d: ChargeDoc): { status: ChargeStatus; due: { amount: number; code: RefundDueCode } | null } {
  const due = refundDue(d);
  if (due) return { status: d.pending ? 'resolving' : 'due', due };
  if (d.resolved) return { status: d.resolved.kind === 'refund' ? 'refunded' : 'applied', due: null };
  return { status: 'settled', due: null };
}

interface InvoiceSource { organization_id: string; customer_id: string; currency: string; number: string }
interface AttemptSource { invoice_id: string; customer_id: string; organization_id: string; amount: number; currency: string }

const INVOICE_TYPES = new Set(['InvoiceFinalized', 'ChargeAttemptEnded']);
const COLLECTION_TYPES = new Set(['ChargeSucceeded']);
const ATTEMPT_TYPES = new Set(['PaymentAttemptStarted', 'PaymentAttemptSucceeded']);
const CHARGE_TYPES = new Set(Object.keys(chargeCodec.schemas));

function relevant(e: RecordedEvent): boolean {
  switch (streamCategory(e.streamId)) {
    case 'invoice':
      return INVOICE_TYPES.has(currentType(invoiceCodec, e.type));
    case 'collection':
      return COLLECTION_TYPES.has(currentType(collectionCodec, e.type));
    case 'paymentattempt':
      return ATTEMPT_TYPES.has(currentType(paymentAttemptCodec, e.type));
    case 'charge':
      return CHARGE_TYPES.has(e.type);
    default:
      return false;
  }
}

const empty = (charge_ref: string): ChargeDoc => ({
  charge_ref, provider: null, organization_id: null, customer_id: null, invoice_id: null, invoice_number: null, currency: null, since: null,
  charged: null, applied: 0, recorded: false, found: false, pending: null, resolved: null, last_failure: null,
});

const earliest = (a: string | null, b: string): string => (a !== null && Date.parse(a) <= Date.parse(b) ? a : b);

/** One batch: the rows and sources it read or wrote, written back at the end (in the runner's transaction, or staged). */
class Batch {
  private readonly rows = new Map<string, ChargeDoc>();
  private readonly sources = new Map<string, unknown>();
  private readonly changedRows = new Set<string>();
  private readonly changedSources = new Set<string>();
  /** `trx` reads (and, for `write`, writes): the runner's transaction, or the root knex when staged (reads only). */
  constructor(private readonly trx: Knex) {}

  async row(ref: string): Promise<ChargeDoc> {
    let doc = this.rows.get(ref);
    if (!doc) {
      const stored = await this.trx('billing_charges').where({ id: ref }).first('doc');
      doc = stored ? (stored.doc as ChargeDoc) : empty(ref);
      this.rows.set(ref, doc);
    }
    this.changedRows.add(ref);
    return doc;
  }

  async source<T>(key: string): Promise<T | null> {
    if (!this.sources.has(key)) this.sources.set(key, (await this.trx('billing_charge_sources').where({ id: key }).first('doc'))?.doc ?? null);
    return (this.sources.get(key) as T | null) ?? null;
  }

  keep(key: string, doc: unknown): void {
    this.sources.set(key, doc);
    this.changedSources.add(key);
  }

  /** A service record of the charge: charged, applied of it, and who it belongs to. */
  async recorded(ref: string, f: { charged: number; applied: number; at: Date; organization_id: string; customer_id: string; invoice_id: string; currency: string }): Promise<void> {
    const doc = await this.row(ref);
    const invoice = await this.source<InvoiceSource>(`invoice:${f.invoice_id}`);
    doc.organization_id ??= f.organization_id;
    doc.customer_id ??= f.customer_id;
    doc.invoice_id ??= f.invoice_id;
    doc.currency ??= f.currency;
    doc.invoice_number ??= invoice?.number ?? null;
    doc.charged = Math.max(doc.charged ?? 0, f.charged);
    doc.applied = Math.max(doc.applied, f.applied);
    doc.recorded = true;
    if (f.applied < f.charged) doc.since = earliest(doc.since, f.at.toISOString());
  }

  private sourceRows(): { id: string; doc: unknown }[] {
    return [...this.changedSources].map((id) => ({ id, doc: this.sources.get(id) ?? null }));
  }

  private chargeRows(): { id: string; organization_id: string | null; customer_id: string | null; status: ChargeStatus; since: string | null; doc: ChargeDoc }[] {
    return [...this.changedRows].flatMap((ref) => {
      const doc = this.rows.get(ref);
      if (!doc) return [];
      const { status, due } = chargeStatus(doc);
      return [{ id: ref, organization_id: doc.organization_id, customer_id: doc.customer_id, status, since: due ? doc.since : null, doc }];
    });
  }

  async write(): Promise<void> {
    for (const r of this.sourceRows()) await this.trx('billing_charge_sources').insert({ ...r, doc: JSON.stringify(r.doc) }).onConflict('id').merge();
    for (const r of this.chargeRows()) await this.trx('billing_charges').insert({ ...r, doc: JSON.stringify(r.doc) }).onConflict('id').merge();
  }

  /** The same writes as CTEs of the runner's one-statement commit: one upsert per table, each row once. */
  staged(add: AddStatement): void {
    const upsert = (table: string, rows: Record<string, unknown>[], columns: string[]) => {
      if (rows.length === 0) return;
      const list = columns.map((c) => `"${c}"`).join(', ');
      const set = columns.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', ');
      add((guard) => `insert into "${table}" (${list}) select ${list} from jsonb_populate_recordset(null::"${table}", ?::jsonb) where ${guard} on conflict (id) do update set ${set}`, [JSON.stringify(rows)]);
    };
    upsert('billing_charge_sources', this.sourceRows(), ['id', 'doc']);
    upsert('billing_charges', this.chargeRows(), ['id', 'organization_id', 'customer_id', 'status', 'since', 'doc']);
  }
}

async function applyOne(b: Batch, e: RecordedEvent): Promise<void> {
  switch (streamCategory(e.streamId)) {
    case 'invoice': {
      const read = readRecorded(invoiceCodec, e);
      if (read.type === 'InvoiceFinalized') {
        const d = read.data;
        b.keep(`invoice:${d.invoice_id}`, { organization_id: d.organization_id, customer_id: d.customer_id, currency: d.currency, number: d.number } satisfies InvoiceSource);
      } else if (read.type === 'ChargeAttemptEnded' && read.data.outcome === 'succeeded' && read.data.charge_ref !== null) {
        const { charge_ref, ...d } = read.data;
        if (charge_ref === null) return;
        await b.recorded(charge_ref, { charged: d.charged, applied: d.applied, at: e.createdAt, organization_id: d.organization_id, customer_id: d.customer_id, invoice_id: d.invoice_id, currency: d.currency });
      }
      return;
    }
    case 'collection': {
      const read = readRecorded(collectionCodec, e);
      if (read.type !== 'ChargeSucceeded') return;
      const d = read.data;
      const invoice = await b.source<InvoiceSource>(`invoice:${d.invoice_id}`);
      if (!invoice) return; // an invoice never finalized is never charged: nothing to attribute
      await b.recorded(d.charge_ref, { charged: d.amount, applied: d.applied, at: e.createdAt, organization_id: invoice.organization_id, customer_id: invoice.customer_id, invoice_id: d.invoice_id, currency: invoice.currency });
      return;
    }
    case 'paymentattempt': {
      const read = readRecorded(paymentAttemptCodec, e);
      if (read.type === 'PaymentAttemptStarted') {
        const { invoice_id, customer_id, organization_id, amount, currency } = read.data;
        b.keep(`attempt:${streamKey(e)}`, { invoice_id, customer_id, organization_id, amount, currency } satisfies AttemptSource);
      } else if (read.type === 'PaymentAttemptSucceeded') {
        const started = await b.source<AttemptSource>(`attempt:${streamKey(e)}`);
        if (!started) return;
        await b.recorded(read.data.charge_ref, { ...started, charged: started.amount, applied: read.data.applied ? started.amount : 0, at: e.createdAt });
      }
      return;
    }
    case 'charge':
      await applyCharge(b, readRecorded(chargeCodec, e), e.createdAt);
      return;
    default:
      return;
  }
}

async function applyCharge(b: Batch, read: ChargeEvent, at: Date): Promise<void> {
  const doc = await b.row(read.data.charge_ref);
  switch (read.type) {
    case 'ProviderChargeFound': {
      const d = read.data;
      doc.provider = d.provider;
      doc.organization_id ??= d.organization_id;
      doc.customer_id ??= d.customer_id;
      doc.invoice_id ??= d.invoice_id;
      doc.currency ??= d.currency;
      if (doc.invoice_number === null && d.invoice_id !== null) doc.invoice_number = (await b.source<InvoiceSource>(`invoice:${d.invoice_id}`))?.number ?? null;
      doc.charged = Math.max(doc.charged ?? 0, d.amount);
      doc.found = true;
      doc.since = earliest(doc.since, at.toISOString());
      return;
    }
    case 'ChargeResolutionStarted': {
      const { resolution_id, kind, amount, started_at } = read.data;
      doc.pending = { resolution_id, kind, amount, started_at };
      return;
    }
    case 'ChargeRefunded': {
      const d = read.data;
      doc.pending = null;
      doc.resolved = { kind: 'refund', resolution_id: d.resolution_id, amount: d.amount, reason: d.reason, at: d.refunded_at, refund_ref: d.refund_ref, invoice_id: null, payment_id: null };
      return;
    }
    case 'ChargeAppliedToInvoice': {
      const d = read.data;
      doc.pending = null;
      doc.resolved = { kind: 'apply', resolution_id: d.resolution_id, amount: d.amount, reason: d.reason, at: d.applied_at, refund_ref: null, invoice_id: d.invoice_id, payment_id: d.payment_id };
      return;
    }
    case 'ChargeResolutionFailed': {
      const d = read.data;
      if (doc.pending?.resolution_id === d.resolution_id) doc.pending = null;
      doc.last_failure = { code: d.code, message: d.message, at: d.failed_at };
      return;
    }
    default:
      return;
  }
}

/** Builds billing_charges (and its sources) from invoice, collection, payment attempt and charge streams. */
export const billingChargesProjection: Projection = {
  name: 'billing.charges',
  version: 1,
  tables: ['billing_charges', 'billing_charge_sources'],
  handles: (type) =>
    INVOICE_TYPES.has(currentType(invoiceCodec, type)) || COLLECTION_TYPES.has(currentType(collectionCodec, type)) || ATTEMPT_TYPES.has(currentType(paymentAttemptCodec, type)) || CHARGE_TYPES.has(type),
  async apply(trx, events) {
    const b = new Batch(trx);
    for (const e of events) if (relevant(e)) await applyOne(b, e);
    await b.write();
  },
  // Live: the rows are read before the commit and written in the runner's one statement (no transaction of its own:
  // a finalized invoice's source row cost the tail a transaction of eight round trips per batch).
  async stage(knex, events) {
    const b = new Batch(knex);
    for (const e of events) if (relevant(e)) await applyOne(b, e);
    return { write: (add) => b.staged(add) };
  },
};
