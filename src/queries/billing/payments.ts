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
import { exampleIds, examplePayment } from '../../contract/examples/billing.ts';

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
    request: { invoice_id: exampleIds.invoice, status: 'recorded' },
    response: { items: [examplePayment], pagination: null },
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

/** The ids of a customer's payments (an erasure deletes their stored receipts). */
export async function paymentIdsOfCustomer(knex: Knex, customerId: string): Promise<string[]> {
  return ((await knex('billing_payments').where({ customer_id: customerId }).select('id')) as { id: string }[]).map((r) => r.id);
}
