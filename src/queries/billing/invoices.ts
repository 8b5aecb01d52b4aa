// billing.invoices.get and .list, reading billing_invoices (written by projections/billing/invoices.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';

import { hasRole, type RequestContext } from '../../context.ts';
import { Uuid } from '../../contract/schemas/common.ts';
import { InvoiceDetail, InvoiceListPage, InvoiceListRequest } from '../../contract/schemas/billing-invoices.ts';
import { isoDate } from '../../clock.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import { CREATED_AT, type SortKey, cursorParts, sortedDocumentPage, totalCount } from '../pagination.ts';

/** The sorts of billing.invoices.list (extension): NOT NULL columns of billing_invoices. */
const INVOICE_SORTS: Record<string, SortKey> = {
  created_at: CREATED_AT,
  total: { column: 'total', part: cursorParts.minor, value: (r) => Number(r.total) },
  amount_remaining: { column: 'amount_remaining', part: cursorParts.minor, value: (r) => Number(r.amount_remaining) },
};
import { documentById } from '../document.ts';
import type { Db } from '../../db.ts';
import { canSeeOrganization, isUuid, prefixPattern } from './customers.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { recentDocument } from '../../projections/documents/cache.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { exampleIds, exampleInvoiceRow, exampleOpenInvoice } from '../../contract/examples/billing.ts';

/** Loads an invoice document, or null. */
export function getInvoiceDoc(db: Db, id: string): Promise<InvoiceDoc | null> {
  return documentById<InvoiceDoc>(db, 'billing_invoices', id);
}

/** Which of `ids` are invoices (any status). */
export async function existingInvoices(knex: Knex, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = (await knex('billing_invoices').whereIn('id', ids).select('id')) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/**
 * An invoice the caller may see: staff see all; an organization sees its own once finalized (drafts are
 * the biller's work in progress, as in Stripe). Anything else is 404, like a missing one.
 */
export async function visibleInvoice(ctx: RequestContext, id: string): Promise<InvoiceDoc> {
  const doc = await getInvoiceDoc(ctx.services.db, id);
  const staff = hasRole(ctx.auth, 'billing_staff');
  if (!doc || !canSeeOrganization(ctx, doc.organization_id) || (!staff && doc.status === 'draft'))
    throw billingErrors.error('invoice_not_found', `No invoice ${id} in this organization.`);
  return doc;
}

/** The invoice document this process's projection committed at or after `position` (a write's own answer), or undefined to read the table. */
export function recentInvoice(knex: Knex, id: string, position: LogPosition | null): InvoiceDoc | undefined {
  return recentDocument<InvoiceDoc>(knex, 'billing_invoices', id, position) ?? undefined;
}

/** billing.invoices.get */
export const invoicesGet = operation({
  id: 'billing.invoices.get',
  examples: {
    request: exampleIds.invoice,
    response: exampleOpenInvoice,
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Returns one invoice. The request body is the invoice id as a JSON string.',
  request: Uuid,
  response: InvoiceDetail,
  error: 'billing.InvoiceGetError',
  errors: billingErrors.list('invoice_not_found'),
  access: 'org_user',
  handle: (ctx, id) => visibleInvoice(ctx, id),
});

/** billing.invoices.list */
export const invoicesList = operation({
  id: 'billing.invoices.list',
  examples: {
    request: { customer_id: exampleIds.customer, status: 'open', issue_date_from: '2026-01-01', issue_date_to: '2026-01-31' },
    response: { items: [exampleInvoiceRow(exampleOpenInvoice)], pagination: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists invoices visible to the caller, oldest first, with filters and keyset pagination.',
  request: InvoiceListRequest,
  response: InvoiceListPage,
  error: 'billing.InvoiceListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_invoices').select('id', 'created_at', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) {
      q.where('organization_id', ctx.auth.organizationId).whereNot('status', 'draft');
    }
    if (req.organization_id) q.where('organization_id', req.organization_id);
    if (req.customer_id) q.where('customer_id', req.customer_id);
    if (req.status) q.where('status', req.status);
    if (req.currency) q.where('currency', req.currency);
    if (req.issue_date_from) q.where('issue_date', '>=', req.issue_date_from);
    if (req.issue_date_to) q.where('issue_date', '<=', req.issue_date_to);
    if (req.due_date_from) q.where('due_date', '>=', req.due_date_from);
    if (req.due_date_to) q.where('due_date', '<=', req.due_date_to);
    const today = isoDate(ctx.now);
    if (req.overdue === true) q.where('status', 'open').where('due_date', '<', today);
    if (req.overdue === false) q.where((w) => { w.whereNot('status', 'open').orWhereNull('due_date').orWhere('due_date', '>=', today); });
    const total = req.include_total_count ? await totalCount(q) : undefined;
    const res = await sortedDocumentPage<InvoiceDoc>(q.select('total', 'amount_remaining'), req, INVOICE_SORTS);
    return {
      ...(total === undefined ? {} : { total_count: total }),
      items: res.docs.map((d) => ({
        id: d.id, number: d.number, organization_id: d.organization_id, customer_id: d.customer_id, status: d.status, currency: d.currency,
        total: d.total, amount_remaining: d.amount_remaining, issue_date: d.issue_date, due_date: d.due_date, created_at: d.created_at,
      })),
      pagination: res.pagination,
    };
  },
});

/** Read operations of invoices. */
export const billingInvoiceQueries = [invoicesGet, invoicesList];

/** How many of the customer's invoices are open or uncollectible: customers.remove is refused while any are. */
export async function openInvoiceCount(knex: Knex, customerId: string): Promise<number> {
  const row = await knex('billing_invoices').where({ customer_id: customerId }).whereIn('status', ['open', 'uncollectible']).count<{ count: string }[]>('* as count');
  return Number(row[0]?.count ?? 0);
}

/** Invoices whose number starts with `text` (case-insensitive; indexed by migration 0123), or whose id it is; by number. */
export async function searchInvoices(knex: Knex, text: string, limit: number): Promise<InvoiceDoc[]> {
  const q = knex('billing_invoices').select('doc').orderBy([{ column: 'number' }, { column: 'id' }]).limit(limit);
  q.where((w) => {
    w.whereRaw('upper(number) like ?', [prefixPattern(text.toUpperCase())]);
    if (isUuid(text)) w.orWhere('id', text.toLowerCase());
  });
  return ((await q) as { doc: InvoiceDoc }[]).map((r) => r.doc);
}

/** Invoices by id (a map of those found). */
export async function invoicesByIds(knex: Knex, ids: readonly string[]): Promise<Map<string, InvoiceDoc>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = (await knex('billing_invoices').whereIn('id', unique).select('doc')) as { doc: InvoiceDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

/** Invoices issued on or after `since` (YYYY-MM-DD) that are not drafts: the messages worker's finalize emails, oldest first. */
export async function invoicesIssuedSince(knex: Knex, since: string, limit = 5000): Promise<InvoiceDoc[]> {
  return (await knex('billing_invoices').whereNot('status', 'draft').andWhere('issue_date', '>=', since).orderBy(['created_at', 'id']).limit(limit).pluck('doc')) as InvoiceDoc[];
}

/** Open invoices with something owed and a due date from `from` to `to` (YYYY-MM-DD): the payment reminders' work list. */
export async function openInvoicesDueBetween(knex: Knex, from: string, to: string, limit = 5000): Promise<InvoiceDoc[]> {
  return (await knex('billing_invoices').where('status', 'open').andWhere('amount_remaining', '>', 0).andWhere('due_date', '>=', from).andWhere('due_date', '<=', to)
    .orderBy(['due_date', 'id']).limit(limit).pluck('doc')) as InvoiceDoc[];
}

/** The issue date (`YYYY-MM-DD`) of the customer's last issued invoice (open, paid, void or uncollectible), or null: the invoice retention period runs from it. */
export async function lastIssueDate(knex: Knex, customerId: string): Promise<string | null> {
  const row = (await knex('billing_invoices').where({ customer_id: customerId }).whereNot('status', 'draft').whereNotNull('issue_date').first(knex.raw(`to_char(max(issue_date), 'YYYY-MM-DD') as last`))) as { last: string | null } | undefined;
  return row?.last ?? null;
}

/** The ids of a customer's invoices (an erasure deletes their stored PDFs). */
export async function invoiceIdsOfCustomer(knex: Knex, customerId: string): Promise<string[]> {
  return ((await knex('billing_invoices').where({ customer_id: customerId }).select('id')) as { id: string }[]).map((r) => r.id);
}
