// billing.credit-note-requests.insert and .update: requests, staff decisions, and issuing the credit onto the invoice.
import { operation } from '../../api/operation.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import { hasRole, type RequestContext } from '../../context.ts';
import { CreditNoteRequestCreateRequest, CreditNoteRequestDetail, CreditNoteRequestUpdateRequest } from '../../api/schemas/billing-credit-notes.ts';
import { assertIssuable, creditNoteRequestDecider } from '../../domain/billing/credit-note-request.ts';
import { invoiceDecider } from '../../domain/billing/invoice.ts';
import type { LogPosition } from '../../eventstore/port.ts';

import { type InvoiceDoc } from '../../projections/billing/invoices.ts';
import { visibleCreditNoteRequest } from '../../queries/billing/credit-note-requests.ts';
import { visibleInvoice } from '../../queries/billing/invoices.ts';
import { loadAggregate, runCommand } from '../run.ts';
import { INVOICE_ATTEMPTS, invoiceStream, laterPosition } from './invoices.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingCreditNoteRequestsProjection } from '../../projections/billing/credit-note-requests.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

function cnrStream(id: string): string {
  return `creditnoterequest-${id}`;
}

/** What can still be credited on the invoice now: the remaining amount, or once paid what was paid and not yet credited. */
function creditable(invoice: InvoiceDoc): number {
  if (invoice.status === 'paid') return invoice.total - invoice.amount_credited;
  if (invoice.status === 'open' || invoice.status === 'uncollectible') return invoice.amount_remaining;
  throw billingErrors.error('invoice_not_creditable', `A credit note cannot be requested: the invoice is ${invoice.status}.`);
}

/** billing.credit-note-requests.insert */
export const creditNoteRequestsInsert = operation({
  id: 'billing.credit-note-requests.insert',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Asks for a credit note on a finalized invoice; billing staff approve and issue it.',
  request: CreditNoteRequestCreateRequest,
  response: CreditNoteRequestDetail,
  error: 'billing.CreditNoteRequestInsertError',
  errors: billingErrors.list('invalid_request', 'invoice_not_found', 'invoice_not_creditable', 'currency_mismatch', 'amount_exceeds_creditable'),
  access: 'org_admin',
  write: true,
  async handle(ctx, req) {
    const invoice = await visibleInvoice(ctx, req.invoice_id);
    if (req.currency !== invoice.currency) throw billingErrors.error('currency_mismatch', `The invoice is in ${invoice.currency}, not ${req.currency}.`);
    const max = creditable(invoice);
    if (req.amount > max) throw billingErrors.error('amount_exceeds_creditable', `At most ${max} ${invoice.currency} of this invoice can be credited.`);
    const id = ctx.ids.next();
    const res = await runCommand(ctx, creditNoteRequestDecider, cnrStream(id), {
      type: 'RequestCreditNote',
      data: {
        credit_note_request_id: id, invoice_id: invoice.id, invoice_number: invoice.number, organization_id: invoice.organization_id, customer_id: invoice.customer_id,
        currency: invoice.currency, amount: req.amount, reason: req.reason, description: req.description, requested_at: ctx.now.toISOString(),
      },
    }, { orgId: invoice.organization_id });
    await ctx.waitFor(res.position, [billingCreditNoteRequestsProjection]);
    return visibleCreditNoteRequest(ctx, id);
  },
});

/**
 * Issues an approved request: first the credit on the invoice stream (checked against what is owed, deduplicated by
 * request id), then the request is marked issued. A retry after a crash in between re-applies nothing and finishes the mark.
 */
async function issue(ctx: RequestContext, id: string, orgId: string, reason: string | undefined): Promise<LogPosition | null> {
  const { state } = await loadAggregate(ctx.store, creditNoteRequestDecider, cnrStream(id));
  assertIssuable(state);
  const doc = await visibleCreditNoteRequest(ctx, id);
  const details = state.details!;
  const credit = await runCommand(ctx, invoiceDecider, invoiceStream(doc.invoice_id), {
    type: 'IssueCreditNote',
    data: { credit_note_request_id: id, amount: details.amount, currency: doc.currency, reason: details.reason, now: ctx.now.toISOString() },
  }, { orgId, reason, maxAttempts: INVOICE_ATTEMPTS });
  const applied = credit.state.credit_notes[id]!;
  const marked = await runCommand(ctx, creditNoteRequestDecider, cnrStream(id), {
    type: 'MarkCreditNoteRequestIssued',
    data: { invoice_id: doc.invoice_id, amount: details.amount, currency: doc.currency, ...applied, now: ctx.now.toISOString() },
  }, { orgId, reason });
  return laterPosition(credit.position, marked.position);
}

/** A reject or cancel must not land on a request whose credit is already on the invoice (an issue in flight). */
async function refuseIfCredited(ctx: RequestContext, invoiceId: string, id: string): Promise<void> {
  const { state } = await loadAggregate(ctx.store, invoiceDecider, invoiceStream(invoiceId));
  if (state.credit_notes[id]) throw billingErrors.error('invalid_status_transition', 'The credit note request is being issued; it can no longer be rejected or cancelled.');
}

/** billing.credit-note-requests.update */
export const creditNoteRequestsUpdate = operation({
  id: 'billing.credit-note-requests.update',
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes a pending request\'s details, or moves its status: approve, reject, issue (billing staff) or cancel.',
  description: 'Issuing reduces the invoice\'s amount_remaining (marking it paid when nothing is left), or, once the invoice is paid, becomes customer credit.',
  request: CreditNoteRequestUpdateRequest,
  response: CreditNoteRequestDetail,
  error: 'billing.CreditNoteRequestUpdateError',
  errors: billingErrors.list('invalid_request', 'forbidden', 'credit_note_request_not_found', 'invalid_status_transition', 'invoice_not_creditable', 'amount_exceeds_remaining', 'amount_exceeds_creditable'),
  access: 'org_admin',
  write: true,
  async handle(ctx, req) {
    const doc = await visibleCreditNoteRequest(ctx, req.id);
    if (req.action && req.action !== 'cancel' && !hasRole(ctx.auth, 'billing_staff')) throw forbidden(`Only billing staff may ${req.action} a credit note request.`);
    const opts = { orgId: doc.organization_id, reason: req.comment };
    const now = ctx.now.toISOString();
    let position: LogPosition | null = null;
    const changes = { amount: req.amount, reason: req.reason, description: req.description };
    if (Object.values(changes).some((v) => v !== undefined)) {
      if (req.amount !== undefined && req.amount > creditable(await visibleInvoice(ctx, doc.invoice_id)))
        throw billingErrors.error('amount_exceeds_creditable', 'The amount is more than can be credited on the invoice.');
      const res = await runCommand(ctx, creditNoteRequestDecider, cnrStream(req.id), { type: 'UpdateCreditNoteRequest', data: { changes, now } }, opts);
      position = laterPosition(position, res.position);
    }
    switch (req.action) {
      case undefined:
        break;
      case 'issue':
        position = laterPosition(position, await issue(ctx, req.id, doc.organization_id, req.comment));
        break;
      default: {
        if (req.action !== 'approve') await refuseIfCredited(ctx, doc.invoice_id, req.id);
        const type = req.action === 'approve' ? 'ApproveCreditNoteRequest' : req.action === 'reject' ? 'RejectCreditNoteRequest' : 'CancelCreditNoteRequest';
        const res = await runCommand(ctx, creditNoteRequestDecider, cnrStream(req.id), { type, data: { now } }, opts);
        position = laterPosition(position, res.position);
      }
    }
    await ctx.waitFor(position, [billingCreditNoteRequestsProjection, billingInvoicesProjection]);
    return visibleCreditNoteRequest(ctx, req.id);
  },
});

/** Write operations of credit note requests. */
export const billingCreditNoteRequestCommands = [creditNoteRequestsInsert, creditNoteRequestsUpdate];
