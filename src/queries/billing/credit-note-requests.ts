// billing.credit-note-requests.list, reading billing_credit_note_requests (written by projections/billing/credit-note-requests.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';

import { hasRole, type RequestContext } from '../../context.ts';
import { CreditNoteRequestListRequest, CreditNoteRequestPage } from '../../contract/schemas/billing-credit-notes.ts';
import type { CreditNoteRequestDoc } from '../../projections/billing/credit-note-requests.ts';
import { documentPage } from '../pagination.ts';
import { canSeeOrganization } from './customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

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
    request: {
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      status: 'pending',
      reason: 'duplicate',
    },
    response: {
      items: [
        {
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
      ],
      pagination: null,
    },
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
