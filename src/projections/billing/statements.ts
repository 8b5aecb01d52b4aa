// billing_ledger_entries and billing_receivables: the customer's account as statements and overdue status read it
// (queries/billing/statements.ts, queries/billing/overdue.ts). Dates are UTC calendar dates from event data.
import type { Knex } from 'knex';
import { type InvoiceEvent, type InvoiceStatus, invoiceCodec } from '../../domain/billing/invoice-events.ts';
import { currentType } from '../../domain/decider.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { type DocumentTable, type TableWriter, replacing } from '../documents/declaration.ts';
import { applyDocuments, stageDocuments } from '../documents/paths.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { knownDocument } from '../documents/cache.ts';
import { readRecorded } from '../recorded.ts';

/** One dated line of a customer's account. */
export interface LedgerEntryDoc {
  id: string;
  customer_id: string;
  organization_id: string;
  currency: string;
  kind: 'invoice' | 'payment' | 'credit' | 'adjustment';
  date: string;
  /** Log position of the event that created the line: orders lines within a day. */
  seq: string;
  description: string;
  invoice_id: string;
  invoice_number: string | null;
  payment_id: string | null;
  debit: number;
  credit: number;
  /** Signed change of the invoice's amount remaining (ageing). */
  item_effect: number;
  /** Part of a credit that became customer credit instead of reducing an invoice. */
  balance_credit: number;
}

/** A finalized invoice as a receivable: what is owed on it and when it is due. */
export interface ReceivableDoc {
  id: string;
  organization_id: string;
  customer_id: string;
  currency: string;
  number: string;
  status: InvoiceStatus;
  issue_date: string;
  due_date: string;
  total: number;
  amount_remaining: number;
}

const day = (timestamp: string) => timestamp.slice(0, 10);

const receivables = documentTable<ReceivableDoc, InvoiceEvent>({
  table: 'billing_receivables',
  events: invoiceCodec,
  columns: (d) => ({ organization_id: d.organization_id, customer_id: d.customer_id, currency: d.currency, status: d.status, due_date: d.due_date, amount_remaining: d.amount_remaining }),
  handlers: {
    InvoiceFinalized: replacing((d) => ({
      id: d.invoice_id, organization_id: d.organization_id, customer_id: d.customer_id, currency: d.currency, number: d.number,
      status: 'open', issue_date: d.issue_date, due_date: d.due_date, total: d.total, amount_remaining: d.total,
    })),
    InvoiceVoided: (doc) => doc && { ...doc, status: 'void', amount_remaining: 0 },
    InvoiceMarkedUncollectible: (doc) => doc && { ...doc, status: 'uncollectible' },
    InvoicePaid: (doc) => doc && { ...doc, status: 'paid', amount_remaining: 0 },
    PaymentRecorded: (doc, d) => doc && { ...doc, amount_remaining: doc.amount_remaining - d.amount },
    PaymentUpdated: (doc, d) => doc && { ...doc, amount_remaining: doc.amount_remaining - d.amount_delta },
    PaymentVoided: (doc, d) => doc && { ...doc, amount_remaining: doc.amount_remaining + d.amount },
    CreditNoteIssued: (doc, d) => doc && { ...doc, amount_remaining: doc.amount_remaining - d.applied_to_invoice },
  },
});

// A payment is one line, corrected in place by later edits (edits fix data entry); voids and credits are lines of their own.
function entryKey(e: RecordedEvent, read: InvoiceEvent = readRecorded(invoiceCodec, e)): string {
  switch (read.type) {
    case 'InvoiceFinalized':
      return `invoice:${read.data.invoice_id}`;
    case 'PaymentRecorded':
    case 'PaymentUpdated':
      return `payment:${read.data.payment_id}`;
    default:
      return `event:${e.id}`;
  }
}

function entriesTable(numbers: Map<string, string>): DocumentTable<LedgerEntryDoc, InvoiceEvent> {
  const base = (d: { invoice_id: string; organization_id: string; customer_id: string; currency: string }, e: RecordedEvent) => ({
    id: entryKey(e), customer_id: d.customer_id, organization_id: d.organization_id, currency: d.currency, invoice_id: d.invoice_id,
    invoice_number: numbers.get(d.invoice_id) ?? null, seq: e.position, payment_id: null, debit: 0, credit: 0, item_effect: 0, balance_credit: 0,
  });
  const paymentText = (reference: string, method: string, invoiceId: string) => `Payment ${reference} (${method.replace('_', ' ')})${numbers.has(invoiceId) ? ` for ${numbers.get(invoiceId)}` : ''}`;
  return {
    table: 'billing_ledger_entries',
    events: invoiceCodec,
    keyOf: entryKey,
    columns: (d) => ({
      customer_id: d.customer_id, organization_id: d.organization_id, invoice_id: d.invoice_id, currency: d.currency, entry_date: d.date, seq: d.seq,
      debit: d.debit, credit: d.credit, item_effect: d.item_effect, balance_credit: d.balance_credit,
    }),
    handlers: {
      InvoiceFinalized: replacing((d, e) => ({ ...base(d, e), invoice_number: d.number, kind: 'invoice', date: d.issue_date, description: `Invoice ${d.number}`, debit: d.total, item_effect: d.total })),
      PaymentRecorded: replacing((d, e) => ({
        ...base(d, e), kind: 'payment', date: d.received_on, payment_id: d.payment_id, description: paymentText(d.reference, d.method, d.invoice_id),
        credit: d.amount, item_effect: -d.amount,
      })),
      PaymentUpdated: (doc, d) => {
        if (!doc) return undefined;
        const p = { ...d.previous, ...d.changes };
        return { ...doc, date: p.received_on, description: paymentText(p.reference, p.method, d.invoice_id), credit: p.amount, item_effect: -p.amount };
      },
      PaymentVoided: replacing((d, e) => ({
        ...base(d, e), kind: 'adjustment', date: day(d.voided_at), payment_id: d.payment_id,
        description: `Payment ${d.reference} reversed${numbers.has(d.invoice_id) ? ` on ${numbers.get(d.invoice_id)}` : ''}`, debit: d.amount, item_effect: d.amount,
      })),
      CreditNoteIssued: replacing((d, e) => ({
        ...base(d, e), kind: 'credit', date: day(d.issued_at), description: `Credit note${numbers.has(d.invoice_id) ? ` on ${numbers.get(d.invoice_id)}` : ''} (${d.reason.replace('_', ' ')})`,
        credit: d.amount, item_effect: -d.applied_to_invoice, balance_credit: d.credited_to_balance,
      })),
      InvoiceVoided: (_doc, d, e) =>
        d.amount_remaining === 0
          ? undefined
          : { ...base(d, e), invoice_number: d.number, kind: 'adjustment', date: day(d.voided_at), description: `Invoice ${d.number} voided`, credit: d.amount_remaining, item_effect: -d.amount_remaining },
    },
  };
}

// Runs after receivables in the same transaction, so invoice numbers finalized earlier in the batch are found.
const entryTypes = new Set(Object.keys(entriesTable(new Map()).handlers));
const entries: TableWriter = {
  table: 'billing_ledger_entries',
  handles: (type) => entryTypes.has(currentType(invoiceCodec, type)),
  async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
    await applyDocuments(trx, entriesTable(numbersOf(await invoiceRefs(trx, events, false))), invoiceEvents(events));
  },
  // Staged before the receivables are written: numbers finalized in this batch come from its own events
  // (a receivable's number is set by InvoiceFinalized only), the others from the stored receivables.
  async stage(knex: Knex, events: RecordedEvent[]) {
    return stageDocuments(knex, entriesTable(numbersOf(await invoiceRefs(knex, events, true))), invoiceEvents(events));
  },
};

const invoiceEvents = (events: RecordedEvent[]) => events.filter((e) => e.streamId.startsWith('invoice-'));

/** What the entries and totals need of an invoice's receivable. */
interface InvoiceRef {
  number: string;
  due_date: string;
}

const numbersOf = (refs: Map<string, InvoiceRef>) => new Map([...refs].map(([id, r]) => [id, r.number]));

/** The numbers and due dates of the invoices the batch's entries name: from billing_receivables, and with `fromBatch` first from the batch's InvoiceFinalized events. */
async function invoiceRefs(knex: Knex, events: RecordedEvent[], fromBatch: boolean): Promise<Map<string, InvoiceRef>> {
  const numbers = new Map<string, InvoiceRef>();
  if (fromBatch) {
    for (const e of events) {
      if (currentType(invoiceCodec, e.type) !== 'InvoiceFinalized') continue;
      const read = readRecorded(invoiceCodec, e);
      if (read.type === 'InvoiceFinalized') numbers.set(read.data.invoice_id, { number: read.data.number, due_date: read.data.due_date });
    }
  }
  const ids = [...new Set(events.filter((e) => entryTypes.has(currentType(invoiceCodec, e.type))).map((e) => readRecorded(invoiceCodec, e).data.invoice_id))].filter((id) => !numbers.has(id));
  if (fromBatch) {
    // Receivables this projection's live commits wrote last are the stored rows.
    for (const id of ids) {
      const known = knownDocument<ReceivableDoc>(knex, 'billing_receivables', id);
      if (known?.doc) numbers.set(id, { number: known.doc.number, due_date: known.doc.due_date });
    }
  }
  const missing = ids.filter((id) => !numbers.has(id));
  for (let i = 0; i < missing.length; i += 5000) {
    const rows = (await knex('billing_receivables').whereIn('id', missing.slice(i, i + 5000)).select('id', 'due_date', knex.raw("doc->>'number' as number"))) as ({ id: string } & InvoiceRef)[];
    for (const r of rows) numbers.set(r.id, { number: r.number, due_date: r.due_date });
  }
  return numbers;
}

/** The sums of a customer's entries of one currency, entry date and due date (billing_ledger_totals). */
interface LedgerTotal {
  id: string;
  customer_id: string;
  currency: string;
  entry_date: string;
  /** Of the entry's invoice; null when it has no receivable (ageing leaves such entries out, as the join on receivables did). */
  due_date: string | null;
  /** Debit minus credit. */
  net: number;
  item_effect: number;
  balance_credit: number;
}

/**
 * What each event changes of billing_ledger_totals: the same amounts, dates and signs the entries table's handlers give
 * its lines (a payment's correction moves its line from the previous date and amount to the new ones), summed per cell.
 */
function totalDeltas(events: RecordedEvent[], refs: Map<string, InvoiceRef>): LedgerTotal[] {
  const cells = new Map<string, LedgerTotal>();
  const add = (d: { customer_id: string; currency: string; invoice_id: string }, date: string, net: number, itemEffect: number, balanceCredit = 0, dueDate = refs.get(d.invoice_id)?.due_date ?? null) => {
    const id = `${d.customer_id}/${d.currency}/${date}/${dueDate ?? ''}`;
    const cell = cells.get(id) ?? { id, customer_id: d.customer_id, currency: d.currency, entry_date: date, due_date: dueDate, net: 0, item_effect: 0, balance_credit: 0 };
    cell.net += net;
    cell.item_effect += itemEffect;
    cell.balance_credit += balanceCredit;
    cells.set(id, cell);
  };
  for (const e of invoiceEvents(events)) {
    if (!entryTypes.has(currentType(invoiceCodec, e.type))) continue;
    const read = readRecorded(invoiceCodec, e);
    switch (read.type) {
      case 'InvoiceFinalized':
        add(read.data, read.data.issue_date, read.data.total, read.data.total, 0, read.data.due_date);
        break;
      case 'PaymentRecorded':
        add(read.data, read.data.received_on, -read.data.amount, -read.data.amount);
        break;
      case 'PaymentUpdated': {
        const { previous, changes } = read.data;
        const now = { ...previous, ...changes };
        add(read.data, previous.received_on, previous.amount, previous.amount);
        add(read.data, now.received_on, -now.amount, -now.amount);
        break;
      }
      case 'PaymentVoided':
        add(read.data, day(read.data.voided_at), read.data.amount, read.data.amount);
        break;
      case 'CreditNoteIssued':
        add(read.data, day(read.data.issued_at), -read.data.amount, -read.data.applied_to_invoice, read.data.credited_to_balance);
        break;
      case 'InvoiceVoided':
        if (read.data.amount_remaining !== 0) add(read.data, day(read.data.voided_at), -read.data.amount_remaining, -read.data.amount_remaining);
        break;
      default:
        break;
    }
  }
  // Every cell an event touched, sums of zero included: a payment and its void in one batch cancel here but in two
  // batches leave a row of zeros, so dropping zero cells made the table depend on where batches fell (a rebuild
  // lacked rows the live projection had).
  return [...cells.values()];
}

// The doc repeats the columns (every read-model row has one); the sums are added to in both.
const TOTALS_UPSERT = (guard: string) =>
  `insert into billing_ledger_totals (id, customer_id, currency, entry_date, due_date, net, item_effect, balance_credit, doc)
   select id, customer_id, currency, entry_date, due_date, net, item_effect, balance_credit, to_jsonb(r) - 'doc' from jsonb_populate_recordset(null::billing_ledger_totals, ?::jsonb) r where ${guard}
   on conflict (id) do update set net = billing_ledger_totals.net + excluded.net, item_effect = billing_ledger_totals.item_effect + excluded.item_effect,
     balance_credit = billing_ledger_totals.balance_credit + excluded.balance_credit,
     doc = billing_ledger_totals.doc || jsonb_build_object('net', billing_ledger_totals.net + excluded.net, 'item_effect', billing_ledger_totals.item_effect + excluded.item_effect,
       'balance_credit', billing_ledger_totals.balance_credit + excluded.balance_credit)`;

// Added to (never replaced), like analytics_daily_counts: each event is applied once, with the checkpoint it moves.
const totals: TableWriter = {
  table: 'billing_ledger_totals',
  handles: (type) => entryTypes.has(currentType(invoiceCodec, type)),
  async apply(trx: Knex.Transaction, events: RecordedEvent[]) {
    const rows = totalDeltas(events, await invoiceRefs(trx, events, false));
    for (let i = 0; i < rows.length; i += 5000) await trx.raw(TOTALS_UPSERT('true'), [JSON.stringify(rows.slice(i, i + 5000))]);
  },
  async stage(knex: Knex, events: RecordedEvent[]) {
    const rows = totalDeltas(events, await invoiceRefs(knex, events, true));
    return { write: (add) => void (rows.length && add(TOTALS_UPSERT, [JSON.stringify(rows)])) };
  },
};

/** Builds billing_receivables, then billing_ledger_entries and their sums, from invoice-stream events. */
export const billingStatementsProjection = documentProjection({ name: 'billing.statements', version: 2, tables: [receivables, entries, totals] });
