// billing.invoices.rerate.apply (extension, issue 26 section 5): a re-rating diff becomes documents in one step. The
// correction (its lines and the orders behind them, both ratings of each) is recorded on `invoicecorrections-<invoice
// id>`, decided against the number of corrections the diff was computed on; then the money moves through the existing
// documents: an overcharge is an issued credit note on the invoice (so it reaches the statement and the balance), an
// undercharge a draft correction invoice of the same customer and currency. Every id is derived from the invoice and
// the diff, so a retry, a second tab or a crash between the writes finishes the first result and adds nothing.
import { operation } from '../../contract/operation.ts';
import { InvoiceCorrection, InvoiceRerateApplyRequest } from '../../contract/schemas/billing-corrections.ts';
import { ProjectionLagError, type RequestContext } from '../../context.ts';
import { type InvoiceFacts } from '../../domain/billing/credit-note-request.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import {
  type CorrectionCredit, type CorrectionLine, type CorrectionOrder, type CorrectionRating, type RecordedCorrection, invoiceCorrectionDecider,
} from '../../domain/billing/invoice-correction.ts';
import { type InvoiceLine, creditable } from '../../domain/billing/invoice.ts';
import { DomainError } from '../../domain/errors.ts';
import { nameId } from '../../ids.ts';
import { billingCreditNoteRequestsProjection } from '../../projections/billing/credit-note-requests.ts';
import { billingInvoiceCorrectionsProjection } from '../../projections/billing/invoice-corrections.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { customerOfOrganization } from '../../queries/billing/customers.ts';
import { type OrderChange, correctionBody, correctionDoc, correctionInvoiceIds, meteredSubscription, rerateDiff } from '../../queries/billing/invoice-corrections.ts';
import { visibleInvoice } from '../../queries/billing/invoices.ts';
import { commandHandler } from '../run.ts';
import { INVOICE_ATTEMPTS, creditNoteRequests, invoices } from './handlers.ts';

/** `invoicecorrections-<invoice id>`: the re-rating corrections of one invoice, in order. */
export const invoiceCorrections = commandHandler(invoiceCorrectionDecider, (invoiceId) => `invoicecorrections-${invoiceId}`, { maxAttempts: INVOICE_ATTEMPTS });

/** The id of the correction of `invoiceId` by the diff `diffHash`: the same diff is the same correction. */
export function correctionIdOf(invoiceId: string, diffHash: string): string {
  return nameId('billing-rerate-correction', `${invoiceId}/${diffHash}`);
}

const MAX_INVOICE_LINES = 500;
const short = (id: string) => `…${id.slice(-8)}`;
const percent = (bps: number) => `${Math.trunc(bps / 100)}.${String(bps % 100).padStart(2, '0')}%`;

function ratingKey(r: CorrectionRating): string {
  return [r.classification, r.rate_bps, r.minimum_fee, r.pricing_revision_id, r.baseline_revision_id ?? ''].join('|');
}

function ratingOnly(r: OrderChange['old']): CorrectionRating {
  return { classification: r.classification, rate_bps: r.rate_bps, minimum_fee: r.minimum_fee, pricing_revision_id: r.pricing_revision_id, baseline_revision_id: r.baseline_revision_id };
}

// What a correction line says: the invoice line, the orders, and what rated them before and now.
function describe(number: string, l: Omit<CorrectionLine, 'description'>): string {
  const side = (r: CorrectionRating) => `${percent(r.rate_bps)} (pricing ${short(r.pricing_revision_id)}${r.baseline_revision_id ? `, baseline ${short(r.baseline_revision_id)}` : ''})`;
  return `Re-rating of ${number} line ${l.source_line_index + 1}: ${l.order_count} ${l.old.classification.replace('_', '-')} order(s), ${side(l.old)} -> ${side(l.new)}`;
}

/** Correction lines (orders of one invoice line rated alike before and alike now), in order of their first order, and each order's row. */
export function correctionLines(number: string, changes: readonly OrderChange[]): { lines: CorrectionLine[]; orders: CorrectionOrder[] } {
  const index = new Map<string, number>();
  const lines: CorrectionLine[] = [];
  const orders: CorrectionOrder[] = [];
  for (const c of changes) {
    const old = ratingOnly(c.old);
    const fresh = ratingOnly(c.new);
    const key = `${c.source_line_index}|${ratingKey(old)}|${ratingKey(fresh)}`;
    let line = index.get(key);
    if (line === undefined) {
      line = lines.length;
      index.set(key, line);
      lines.push({ source_line_index: c.source_line_index, description: '', amount: 0, order_count: 0, old_fees: 0, new_fees: 0, old, new: fresh });
    }
    const l = lines[line];
    if (!l) continue;
    l.order_count++;
    l.old_fees += c.old.fee;
    l.new_fees += c.new.fee;
    l.amount = l.new_fees - l.old_fees;
    orders.push({
      order_id: c.order_id, line,
      old: { relationship_id: c.old.relationship_id, exempt_amount: c.old.exempt_amount, fee: c.old.fee },
      new: { relationship_id: c.new.relationship_id, exempt_amount: c.new.exempt_amount, fee: c.new.fee },
    });
  }
  for (const l of lines) l.description = describe(number, l);
  return { lines, orders };
}

/** The invoice lines of a correction invoice: one manual line per correction line that moves money (signed; the total is the undercharge). */
function correctionInvoiceLines(c: RecordedCorrection): InvoiceLine[] {
  return c.lines.filter((l) => l.amount !== 0).map((l) => ({ kind: 'manual', description: l.description, quantity: 1, unit_amount: l.amount, amount: l.amount }));
}

// Runs a write whose only possible refusal under a race is `code` (a concurrent apply of the same correction wrote it first).
async function tolerating(write: () => Promise<unknown>, code: string): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!(err instanceof DomainError && err.code === code)) throw err;
  }
}

/**
 * Writes the documents of a recorded correction that are not written yet: each credit note request (requested, approved,
 * issued onto its invoice: the credit note machinery's own steps) or the draft correction invoice.
 */
async function issueDocuments(ctx: RequestContext, invoice: InvoiceDoc, c: RecordedCorrection): Promise<void> {
  const orgId = invoice.organization_id;
  const opts = { orgId, reason: c.reason };
  const label = `${invoice.number ?? invoice.id} (correction ${c.basis + 1})`;
  for (const credit of c.credit_notes) {
    const creditId = credit.credit_note_request_id;
    const { amount } = credit;
    let s = await creditNoteRequests.load(ctx, creditId);
    if (s.status === 'none') {
      const state = await invoices.load(ctx, credit.invoice_id);
      const facts: InvoiceFacts = { invoice_id: credit.invoice_id, invoice_number: state.number, organization_id: orgId, customer_id: invoice.customer_id, currency: invoice.currency, creditable: creditable(state), status: state.status };
      await tolerating(() => creditNoteRequests.run(ctx, creditId, {
        type: 'RequestCreditNote',
        data: { credit_note_request_id: creditId, invoice: facts, currency: invoice.currency, amount, reason: 'other', description: `Re-rating correction of ${label}: ${c.reason}` },
      }, opts), 'credit_note_request_exists');
      s = await creditNoteRequests.load(ctx, creditId);
    }
    if (s.status === 'pending') await tolerating(() => creditNoteRequests.run(ctx, creditId, { type: 'ApproveCreditNoteRequest', data: {} }, opts), 'invalid_status_transition');
    if (s.status !== 'issued') {
      const issued = await invoices.run(ctx, credit.invoice_id, { type: 'IssueCreditNote', data: { credit_note_request_id: creditId, amount, currency: invoice.currency, reason: 'other' } }, opts);
      const applied = issued.state.credit_notes[creditId] ?? { applied_to_invoice: 0, credited_to_balance: 0 };
      await creditNoteRequests.run(ctx, creditId, { type: 'MarkCreditNoteRequestIssued', data: { invoice_id: credit.invoice_id, amount, currency: invoice.currency, ...applied } }, opts);
    }
  }
  const invoiceId = c.correction_invoice_id;
  if (invoiceId && !(await invoices.load(ctx, invoiceId)).exists) {
    await tolerating(() => invoices.run(ctx, invoiceId, {
      type: 'DraftInvoice',
      data: {
        invoice_id: invoiceId, organization_id: orgId, customer_id: invoice.customer_id, currency: invoice.currency, lines: correctionInvoiceLines(c),
        memo: `Re-rating correction of ${label}: ${c.reason}`,
        metadata: { corrected_invoice_id: invoice.id, correction_id: c.correction_id },
      },
    }, opts), 'invoice_exists');
  }
}

/**
 * The credit notes of an overcharge: on the corrected invoice as far as it can still be credited, then on its earlier correction
 * invoices that are finalized, oldest first. 409 amount_exceeds_creditable, before anything is written, when they cannot take it all.
 */
async function creditPlan(ctx: RequestContext, invoice: InvoiceDoc, correctionId: string, amount: number): Promise<CorrectionCredit[]> {
  if (amount <= 0) return [];
  const plan: CorrectionCredit[] = [];
  let left = amount;
  for (const target of [invoice.id, ...(await correctionInvoiceIds(ctx.services.knex, invoice.id))]) {
    const take = Math.min(left, creditable(await invoices.load(ctx, target)) ?? 0);
    if (take > 0) plan.push({ invoice_id: target, credit_note_request_id: nameId('billing-rerate-correction-credit', `${correctionId}/${target}`), amount: take });
    left -= take;
    if (left === 0) return plan;
  }
  throw ctx.errors.error('amount_exceeds_creditable',
    `The overcharge of ${amount} is more than the ${amount - left} ${invoice.currency} that this invoice and its finalized correction invoices can still be credited (a draft correction invoice is finalized first).`);
}

/** Refuses, before anything is written, an undercharge whose correction invoice could not be drafted now. */
async function checkDraftable(ctx: RequestContext, invoice: InvoiceDoc, moneyLines: number): Promise<void> {
  const customer = await customerOfOrganization(ctx.services.knex, invoice.organization_id);
  if (!customer || customer.status === 'removed') throw ctx.errors.error('customer_removed', 'The invoice\'s customer was removed; a correction invoice cannot be drafted.');
  if (moneyLines > MAX_INVOICE_LINES) throw ctx.errors.error('too_many_lines', `The correction would need ${moneyLines} invoice lines; an invoice has at most ${MAX_INVOICE_LINES}.`);
}

/** billing.invoices.rerate.apply */
export const invoicesRerateApply = operation({
  id: 'billing.invoices.rerate.apply',
  examples: {
    request: {
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      diff_hash: 'df087996d45b03e7eb8c133c0298fd98d35113fca26aaba58612fef3cc212cad',
      reason: 'Agreed with the customer by phone',
    },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      currency: 'GBP',
      sequence: 1,
      diff_hash: 'diff hash',
      reason: 'Agreed with the customer by phone',
      as_of: '2026-01-15T09:30:00.000Z',
      difference: 1,
      order_count: 1,
      credit_notes: [{ invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', credit_note_request_id: '01938121-50f1-741f-8357-7b9a90440d9f', amount: 12000 }],
      correction_invoice_id: null,
      lines: [
        {
          line_index: 1,
          source_line_index: 1,
          description: 'Monthly platform fee',
          order_count: 1,
          old_fees: 1,
          new_fees: 1,
          amount: 12000,
          old: {
            classification: 'platform_introduced',
            rate_bps: 1,
            minimum_fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
          },
          new: {
            classification: 'platform_introduced',
            rate_bps: 1,
            minimum_fee: 1,
            pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625',
            baseline_revision_id: null,
          },
        },
      ],
      recorded_at: '2026-01-15T09:30:00.000Z',
      recorded_by: { type: 'type', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Issues the correction of a re-rating diff in one step: a credit note for an overcharge or a draft correction invoice for an undercharge (extension). Billing staff only.',
  description:
    'Takes the `diff_hash` of a billing.invoices.rerate.preview answer and a reason. The correction records, per line, the orders and the pricing and baseline revisions before and now '
    + '(billing.invoices.corrections.list, billing.invoices.corrections.orders.list). A net overcharge is credited by issued credit notes: on the invoice as far as it can still be credited '
    + '(reducing what is owed, or, once paid, becoming customer credit), the rest on its earlier finalized correction invoices; a net undercharge is billed on a new draft invoice of the same customer and currency, one line per correction line. '
    + 'The same diff applied again answers the same correction and writes nothing. If the diff is not the one previewed any more, 409 `rerate_diff_changed` (preview again); '
    + 'with no difference, 409 `nothing_to_correct`. Only finalized invoices (open, paid, uncollectible) are corrected. After it, the preview of the invoice shows no difference.',
  request: InvoiceRerateApplyRequest,
  response: InvoiceCorrection,
  error: 'billing.InvoiceRerateApplyError',
  errors: billingErrors.list(
    'invalid_request', 'invoice_not_found', 'invoice_not_metered', 'invoice_not_correctable', 'usage_unrateable', 'rerate_diff_changed', 'nothing_to_correct',
    'amount_exceeds_creditable', 'amount_exceeds_remaining', 'customer_removed', 'too_many_lines', 'projection_lag',
  ),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoiceCorrectionsProjection, billingInvoicesProjection, billingCreditNoteRequestsProjection],
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    meteredSubscription(invoice);
    const id = correctionIdOf(invoice.id, req.diff_hash);
    let recorded = (await invoiceCorrections.load(ctx, invoice.id)).corrections[id];
    if (!recorded) {
      if (invoice.status !== 'open' && invoice.status !== 'paid' && invoice.status !== 'uncollectible')
        throw ctx.errors.error('invoice_not_correctable', `The invoice is ${invoice.status}: only finalized invoices (open, paid, uncollectible) are corrected.`);
      const diff = await rerateDiff(ctx, invoice);
      if (diff.hash !== req.diff_hash)
        throw ctx.errors.error('rerate_diff_changed', 'The re-rating diff is not the one previewed any more (the configuration or the invoice\'s corrections changed since): preview it again.', { details: { diff_hash: diff.hash } });
      if (diff.changes.length === 0) throw ctx.errors.error('nothing_to_correct', 'No order differs: rating now gives what the invoice and its corrections bill.');
      const { lines, orders } = correctionLines(invoice.number ?? invoice.id, diff.changes);
      const difference = lines.reduce((t, l) => t + l.amount, 0);
      const credits = await creditPlan(ctx, invoice, id, -difference);
      if (difference > 0) await checkDraftable(ctx, invoice, lines.filter((l) => l.amount !== 0).length);
      const res = await invoiceCorrections.run(ctx, invoice.id, {
        type: 'RecordInvoiceCorrection',
        data: {
          invoice_id: invoice.id, organization_id: invoice.organization_id, customer_id: invoice.customer_id, currency: invoice.currency,
          correction_id: id, basis: diff.basis, diff_hash: diff.hash, reason: req.reason, as_of: diff.as_of, difference, order_count: orders.length, lines, orders,
          credit_notes: credits,
          correction_invoice_id: difference > 0 ? nameId('billing-rerate-correction-invoice', id) : null,
        },
      }, { orgId: invoice.organization_id, reason: req.reason });
      recorded = res.state.corrections[id];
      if (!recorded) throw new Error(`invariant broken: correction ${id} not in the state after it was recorded`);
    }
    await issueDocuments(ctx, invoice, recorded);
    await ctx.readYourWrites();
    const doc = await correctionDoc(ctx.services.knex, id);
    if (!doc) throw new ProjectionLagError([billingInvoiceCorrectionsProjection.name]);
    return correctionBody(doc);
  },
});

/** Write operations of re-rating corrections. */
export const billingInvoiceCorrectionCommands = [invoicesRerateApply];
