// billing.payments.list, reading billing_payments (written by projections/billing/invoices.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';

import { hasRole, type RequestContext } from '../../context.ts';
import { PaymentListRequest, PaymentListResponse } from '../../contract/schemas/billing-invoices.ts';
import type { PaymentDoc } from '../../projections/billing/payments.ts';
import { CREATED_AT, sortedDocumentPage, totalCount } from '../pagination.ts';
import { canSeeOrganization, isUuid, prefixPattern } from './customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { documentById } from '../document.ts';
import type { Db } from '../../db.ts';
import { recentDocument } from '../../projections/documents/cache.ts';
import type { LogPosition } from '../../eventstore/port.ts';

/** Loads a payment document, or null. */
export function getPaymentDoc(db: Db, id: string): Promise<PaymentDoc | null> {
  return documentById<PaymentDoc>(db, 'billing_payments', id);
}

/** A payment the caller may see; another organization's is 404. */
export async function visiblePayment(ctx: RequestContext, id: string): Promise<PaymentDoc> {
  const doc = await getPaymentDoc(ctx.services.db, id);
  if (!doc || !canSeeOrganization(ctx, doc.organization_id)) throw billingErrors.error('payment_not_found', `No payment ${id} in this organization.`);
  return doc;
}

/** The payments of an invoice (voided ones too), in the order they were recorded. */
export async function paymentsOfInvoice(knex: Knex, invoiceId: string): Promise<PaymentDoc[]> {
  return (await knex('billing_payments').where({ invoice_id: invoiceId }).orderBy(['created_at', 'id']).pluck('doc')) as PaymentDoc[];
}

/** The payment document this process's projection committed at or after `position` (a write's own answer), or undefined to read the table. */
export function recentPayment(knex: Knex, id: string, position: LogPosition | null): PaymentDoc | undefined {
  return recentDocument<PaymentDoc>(knex, 'billing_payments', id, position) ?? undefined;
}

/** billing.payments.list */
export const paymentsList = operation({
  id: 'billing.payments.list',
  examples: {
    request: { invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185', customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', status: 'recorded' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
          amount: 12000,
          currency: 'GBP',
          method: 'bank_transfer',
          reference: 'BACS 4411',
          received_on: '2026-01-15',
          status: 'recorded',
          void_reason: 'Issued in error',
          created_at: '2026-01-15T09:30:00.000Z',
          updated_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the payments of a customer or an invoice (or every visible payment), oldest first, with keyset pagination.',
  request: PaymentListRequest,
  response: PaymentListResponse,
  error: 'billing.PaymentListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_payments').select('id', 'created_at', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) q.where('organization_id', ctx.auth.organizationId);
    if (req.invoice_id) q.where('invoice_id', req.invoice_id);
    if (req.customer_id) q.where('customer_id', req.customer_id);
    if (req.status) q.where('status', req.status);
    const total = req.include_total_count ? await totalCount(q) : undefined;
    const res = await sortedDocumentPage<PaymentDoc>(q, req, { created_at: CREATED_AT });
    return { ...(total === undefined ? {} : { total_count: total }), items: res.docs, pagination: res.pagination };
  },
});

/** Read operations of payments. */
export const billingPaymentQueries = [paymentsList];

/** Whether a payment (recorded or voided) names `reference`: a provider charge recorded as a payment (reconciliation's check). */
export async function paymentWithReference(knex: Knex, reference: string): Promise<boolean> {
  return (await knex('billing_payments').whereRaw(`doc->>'reference' = ?`, [reference]).first('id')) !== undefined;
}

/** Payments whose reference starts with `text` (case-insensitive; indexed by migration 0123), or whose id it is; newest first. */
export async function searchPayments(knex: Knex, text: string, limit: number): Promise<PaymentDoc[]> {
  const q = knex('billing_payments').select('doc').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
  q.where((w) => {
    w.whereRaw(`lower(doc->>'reference') like ?`, [prefixPattern(text.toLowerCase())]);
    if (isUuid(text)) w.orWhere('id', text.toLowerCase());
  });
  return ((await q) as { doc: PaymentDoc }[]).map((r) => r.doc);
}

/** Payments recorded at or after `since` and not voided: the messages worker's receipts, oldest first. */
export async function paymentsRecordedSince(knex: Knex, since: Date, limit = 5000): Promise<PaymentDoc[]> {
  return (await knex('billing_payments').where('status', 'recorded').andWhere('created_at', '>=', since).orderBy(['created_at', 'id']).limit(limit).pluck('doc')) as PaymentDoc[];
}
