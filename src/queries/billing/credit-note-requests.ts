// billing.credit-note-requests.list, reading billing_credit_note_requests (written by projections/billing/credit-note-requests.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';

import { hasRole, type RequestContext } from '../../context.ts';
import { CreditNoteRequestListRequest, CreditNoteRequestPage } from '../../contract/schemas/billing-credit-notes.ts';
import type { CreditNoteRequestDoc } from '../../projections/billing/credit-note-requests.ts';
import { documentPage } from '../pagination.ts';
import { canSeeOrganization } from './customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { exampleCreditNoteRequest, exampleIds } from '../../contract/examples/billing.ts';

/** Loads a credit note request document, or null. */
export async function getCreditNoteRequestDoc(knex: Knex, id: string): Promise<CreditNoteRequestDoc | null> {
  const row = await knex('billing_credit_note_requests').where({ id }).first('doc');
  return row ? (row.doc as CreditNoteRequestDoc) : null;
}

/** The issued credit notes of an invoice, oldest first. */
export async function issuedCreditNotesOf(knex: Knex, invoiceId: string): Promise<CreditNoteRequestDoc[]> {
  return (await knex('billing_credit_note_requests').where({ invoice_id: invoiceId, status: 'issued' }).orderBy(['created_at', 'id']).pluck('doc')) as CreditNoteRequestDoc[];
}

/** A request the caller may see; another organization's is 404. */
export async function visibleCreditNoteRequest(ctx: RequestContext, id: string): Promise<CreditNoteRequestDoc> {
  const doc = await getCreditNoteRequestDoc(ctx.services.knex, id);
  if (!doc || !canSeeOrganization(ctx, doc.organization_id)) throw billingErrors.error('credit_note_request_not_found', `No credit note request ${id} in this organization.`);
  return doc;
}

/** billing.credit-note-requests.list */
export const creditNoteRequestsList = operation({
  id: 'billing.credit-note-requests.list',
  examples: {
    request: { invoice_id: exampleIds.invoice, status: 'pending' },
    response: { items: [exampleCreditNoteRequest], pagination: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists credit note requests visible to the caller, oldest first, with filters and keyset pagination.',
  request: CreditNoteRequestListRequest,
  response: CreditNoteRequestPage,
  error: 'billing.CreditNoteRequestListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_credit_note_requests').select('id', 'created_at', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) q.where('organization_id', ctx.auth.organizationId);
    if (req.organization_id) q.where('organization_id', req.organization_id);
    if (req.invoice_id) q.where('invoice_id', req.invoice_id);
    if (req.customer_id) q.where('customer_id', req.customer_id);
    if (req.status) q.where('status', req.status);
    if (req.reason) q.where('reason', req.reason);
    const res = await documentPage<CreditNoteRequestDoc>(q, req);
    return { items: res.docs, pagination: res.pagination };
  },
});

/** Read operations of credit note requests. */
export const billingCreditNoteRequestQueries = [creditNoteRequestsList];

/** Credit notes issued at or after `since`: the messages worker's credit note emails, oldest request first. */
export async function creditNotesIssuedSince(knex: Knex, since: Date, limit = 5000): Promise<CreditNoteRequestDoc[]> {
  const docs = (await knex('billing_credit_note_requests').where('status', 'issued').orderBy(['created_at', 'id']).whereRaw(`(doc->>'issued_at')::timestamptz >= ?`, [since.toISOString()]).limit(limit).pluck('doc')) as CreditNoteRequestDoc[];
  return docs;
}

/** The ids of a customer's credit note requests (an erasure deletes their stored PDFs). */
export async function creditNoteRequestIdsOfCustomer(knex: Knex, customerId: string): Promise<string[]> {
  return ((await knex('billing_credit_note_requests').where({ customer_id: customerId }).select('id')) as { id: string }[]).map((r) => r.id);
}
