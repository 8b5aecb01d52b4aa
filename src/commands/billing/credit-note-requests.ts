// billing.credit-note-requests.insert and .update: requests, staff decisions, and issuing the credit onto the invoice.
import { operation } from '../../contract/operation.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasRole, type RequestContext } from '../../context.ts';
import { CreditNoteRequestCreateRequest, CreditNoteRequestDetail, CreditNoteRequestUpdateRequest } from '../../contract/schemas/billing-credit-notes.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { type CreditNoteRequestAction, type InvoiceFacts, assertIssuable } from '../../domain/billing/credit-note-request.ts';
import { creditable } from '../../domain/billing/invoice.ts';
import { billingCreditNoteRequestsProjection } from '../../projections/billing/credit-note-requests.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { visibleCreditNoteRequest } from '../../queries/billing/credit-note-requests.ts';
import type { InvoiceRef, InvoiceState } from '../../domain/billing/invoice-events.ts';
import { creditNoteRequests, invoices } from './handlers.ts';
import { readVisibleInvoice } from './invoices.ts';

/** The invoice as its stream says now: requests are decided on this, not on the read model. */
async function invoiceFacts(ctx: RequestContext, invoiceId: string): Promise<InvoiceFacts> {
  const s = await invoices.load(ctx, invoiceId);
  if (!s.ref) throw billingErrors.error('invoice_not_found', `No invoice ${invoiceId} in this organization.`);
  return factsOf(s.ref, s);
}

function factsOf(ref: InvoiceRef, s: InvoiceState): InvoiceFacts {
  return { ...ref, invoice_number: s.number, status: s.status, creditable: creditable(s) };
}

/** billing.credit-note-requests.insert */
export const creditNoteRequestsInsert = operation({
  id: 'billing.credit-note-requests.insert',
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', amount: 12000, currency: 'GBP', reason: 'duplicate', description: 'Monthly platform fee' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      invoice_number: 'INV-2026-0042',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      amount: 12000,
      currency: 'GBP',
      reason: 'duplicate',
      description: 'Monthly platform fee',
      status: 'pending',
      requested_by: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      applied_to_invoice: null,
      credited_to_balance: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      approved_at: null,
      issued_at: null,
      rejected_at: null,
      cancelled_at: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Asks for a credit note on a finalized invoice; billing staff approve and issue it.',
  request: CreditNoteRequestCreateRequest,
  response: CreditNoteRequestDetail,
  error: 'billing.CreditNoteRequestInsertError',
  errors: billingErrors.list('invalid_request', 'invoice_not_found', 'invoice_not_creditable', 'currency_mismatch', 'amount_exceeds_creditable'),
  access: 'org_admin',
  write: true,
  readModels: [billingCreditNoteRequestsProjection],
  async handle(ctx, req) {
    // One read of the invoice stream for the 404 (visibleInvoice's rule) and the facts the request is decided on.
    const { loaded, ref } = await readVisibleInvoice(ctx, req.invoice_id);
    const invoice = factsOf(ref, loaded.state);
    const id = ctx.ids.next();
    await creditNoteRequests.run(ctx, id, {
      type: 'RequestCreditNote',
      data: { credit_note_request_id: id, invoice, currency: req.currency, amount: req.amount, reason: req.reason, description: req.description },
    }, { orgId: invoice.organization_id });
    await ctx.readYourWrites();
    return visibleCreditNoteRequest(ctx, id);
  },
});

/**
 * Issues an approved request: first the credit on the invoice stream (checked against what is owed, deduplicated by
 * request id), then the request is marked issued. A retry after a crash in between re-applies nothing and finishes the mark.
 */
async function issue(ctx: RequestContext, id: string, orgId: string, reason: string | undefined): Promise<void> {
  const state = await creditNoteRequests.load(ctx, id);
  assertIssuable(state);
  const doc = await visibleCreditNoteRequest(ctx, id);
  const details = state.details;
  if (!details) throw billingErrors.error('credit_note_request_not_found', 'No such credit note request.');
  const credit = await invoices.run(ctx, doc.invoice_id, {
    type: 'IssueCreditNote',
    data: { credit_note_request_id: id, amount: details.amount, currency: doc.currency, reason: details.reason },
  }, { orgId, reason });
  const applied = credit.state.credit_notes[id] ?? { applied_to_invoice: 0, credited_to_balance: 0 };
  await creditNoteRequests.run(ctx, id, {
    type: 'MarkCreditNoteRequestIssued',
    data: { invoice_id: doc.invoice_id, amount: details.amount, currency: doc.currency, ...applied },
  }, { orgId, reason });
}

/** A reject or cancel must not land on a request whose credit is already on the invoice (an issue in flight). */
async function refuseIfCredited(ctx: RequestContext, invoiceId: string, id: string): Promise<void> {
  const state = await invoices.load(ctx, invoiceId);
  if (state.credit_notes[id]) throw billingErrors.error('invalid_status_transition', 'The credit note request is being issued; it can no longer be rejected or cancelled.');
}

const DECISIONS: Record<'approve' | 'reject' | 'cancel', CreditNoteRequestAction> = {
  approve: 'ApproveCreditNoteRequest',
  reject: 'RejectCreditNoteRequest',
  cancel: 'CancelCreditNoteRequest',
};

/** billing.credit-note-requests.update */
export const creditNoteRequestsUpdate = operation({
  id: 'billing.credit-note-requests.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      invoice_number: 'INV-2026-0042',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      amount: 12000,
      currency: 'GBP',
      reason: 'duplicate',
      description: 'Monthly platform fee',
      status: 'pending',
      requested_by: { type: 'user', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
      applied_to_invoice: null,
      credited_to_balance: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
      approved_at: null,
      issued_at: null,
      rejected_at: null,
      cancelled_at: null,
    },
  },
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
  readModels: [billingCreditNoteRequestsProjection, billingInvoicesProjection],
  async handle(ctx, req) {
    const doc = await visibleCreditNoteRequest(ctx, req.id);
    if (req.action && req.action !== 'cancel' && !hasRole(ctx.auth, 'billing_staff')) throw forbidden(`Only billing staff may ${req.action} a credit note request.`);
    const opts = { orgId: doc.organization_id, reason: req.comment };
    const changes = { amount: req.amount, reason: req.reason, description: req.description };
    const invoice = await invoiceFacts(ctx, doc.invoice_id);
    if (req.action === 'issue') {
      // Edits need a pending request and issuing an approved one: try the edits first, so a refusal writes nothing.
      if (Object.values(changes).some((v) => v !== undefined))
        creditNoteRequests.decide(ctx, { type: 'UpdateCreditNoteRequest', data: { changes, invoice } }, await creditNoteRequests.load(ctx, req.id));
      await issue(ctx, req.id, doc.organization_id, req.comment);
    } else {
      const action = req.action ? DECISIONS[req.action] : undefined;
      if (req.action && req.action !== 'approve') await refuseIfCredited(ctx, doc.invoice_id, req.id);
      await creditNoteRequests.run(ctx, req.id, { type: 'UpdateCreditNoteRequest', data: { changes, action, invoice } }, opts);
    }
    await ctx.readYourWrites();
    return visibleCreditNoteRequest(ctx, req.id);
  },
});

/** Write operations of credit note requests. */
export const billingCreditNoteRequestCommands = [creditNoteRequestsInsert, creditNoteRequestsUpdate];
