// billing.customers.get and .list, reading billing_customers (written by projections/billing/customers.ts).
import type { Knex } from 'knex';
import type { Db } from '../../db.ts';
import { documentById, documentByIdSql } from '../document.ts';
import { operation } from '../../contract/operation.ts';

import { hasRole, type RequestContext } from '../../context.ts';
import { CustomerDetailItem, CustomerGetRequest, CustomerListPage, CustomerListRequest } from '../../contract/schemas/billing-customers.ts';
import type { CustomerDoc } from '../../projections/billing/customers.ts';
import { recentDocument } from '../../projections/documents/cache.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { CREATED_AT, type SortKey, cursorParts, sortedDocumentPage, totalCount } from '../pagination.ts';

/** The sorts of billing.customers.list (extension). */
const CUSTOMER_SORTS: Record<string, SortKey> = { created_at: CREATED_AT, name: { column: 'name', part: cursorParts.name, value: (r) => String(r.name) } };
import { billingErrors } from '../../domain/billing/errors.ts';

/** SQL of a customer's document row (`$1`: the customer id), for a statement of another module that reads it in the same round trip. */
export const CUSTOMER_DOC_SQL = documentByIdSql('billing_customers');

/** Loads a customer document, or null. */
export function getCustomerDoc(db: Db, id: string): Promise<CustomerDoc | null> {
  return documentById<CustomerDoc>(db, 'billing_customers', id);
}

/** The customer of an organization (active or removed), or null. */
export async function customerOfOrganization(knex: Knex, organizationId: string): Promise<CustomerDoc | null> {
  const row = await knex('billing_customers').where({ organization_id: organizationId }).first('doc');
  return row ? (row.doc as CustomerDoc) : null;
}

/** A customer the caller may see; another organization's customer is 404, like a missing one. */
export async function visibleCustomer(ctx: RequestContext, id: string): Promise<CustomerDoc> {
  const doc = await getCustomerDoc(ctx.services.db, id);
  if (!doc || !canSeeOrganization(ctx, doc.organization_id)) throw billingErrors.error('customer_not_found', `No customer ${id} in this organization.`);
  return doc;
}

/** Billing staff see every organization; others only their own. */
export function canSeeOrganization(ctx: RequestContext, organizationId: string): boolean {
  return hasRole(ctx.auth, 'billing_staff') || (ctx.auth.kind !== 'anonymous' && ctx.auth.organizationId === organizationId);
}

export const customersGet = operation({
  id: 'billing.customers.get',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      name: 'Acme Repairs Ltd',
      email: 'billing@acme-repairs.example',
      billing_address: { line1: '1 High Street', line2: 'Unit 4', city: 'Leeds', postal_code: 'LS1 1AA', region: 'West Yorkshire', country: 'GB' },
      currency: 'GBP',
      payment_terms_days: 30,
      tax_id: '01932c1e-62c5-7557-8139-e2fb0e9c3195',
      metadata: {},
      status: 'active',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Returns one billing customer.',
  request: CustomerGetRequest,
  response: CustomerDetailItem,
  error: 'billing.CustomerGetError',
  errors: billingErrors.list('customer_not_found'),
  access: 'org_user',
  handle: (ctx, req) => visibleCustomer(ctx, req.id),
});

export const customersList = operation({
  id: 'billing.customers.list',
  examples: {
    request: { status: 'active', query: 'acme', organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          name: 'Acme Repairs Ltd',
          email: 'billing@acme-repairs.example',
          currency: 'GBP',
          status: 'active',
          created_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists billing customers visible to the caller, oldest first, with filters and keyset pagination.',
  request: CustomerListRequest,
  response: CustomerListPage,
  error: 'billing.CustomerListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_customers').select('id', 'created_at', 'doc');
    if (!hasRole(ctx.auth, 'billing_staff')) q.where('organization_id', ctx.auth.organizationId);
    if (req.organization_id) q.where('organization_id', req.organization_id);
    if (req.status) q.where('status', req.status);
    if (req.query) {
      const like = `%${req.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) => { w.whereILike('name', like).orWhereILike('email', like); });
    }
    const total = req.include_total_count ? await totalCount(q) : undefined;
    const res = await sortedDocumentPage<CustomerDoc>(q.select('name'), req, CUSTOMER_SORTS);
    return {
      ...(total === undefined ? {} : { total_count: total }),
      items: res.docs.map((d) => ({ id: d.id, organization_id: d.organization_id, name: d.name, email: d.email, currency: d.currency, status: d.status, created_at: d.created_at })),
      pagination: res.pagination,
    };
  },
});

/** Read operations of billing customers. */
export const billingCustomerQueries = [customersGet, customersList];

/** The customer document this process's projection committed at or after `position` (a write's own answer), or undefined to read the table. */
export function recentCustomer(knex: Knex, id: string, position: LogPosition | null): CustomerDoc | undefined {
  return recentDocument<CustomerDoc>(knex, 'billing_customers', id, position) ?? undefined;
}

/** `text` as a LIKE pattern of what starts with it (its own %, _ and \ matched literally). */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Customers whose name or email starts with `text` (case-insensitive; indexed by migration 0123), or whose id it is; by name. */
export async function searchCustomers(knex: Knex, text: string, limit: number): Promise<CustomerDoc[]> {
  const like = prefixPattern(text.toLowerCase());
  const q = knex('billing_customers').select('doc').orderByRaw('lower(name), id').limit(limit);
  q.where((w) => {
    w.whereRaw('lower(name) like ?', [like]).orWhereRaw('lower(email) like ?', [like]);
    if (isUuid(text)) w.orWhere('id', text.toLowerCase()).orWhere('organization_id', text.toLowerCase());
  });
  return ((await q) as { doc: CustomerDoc }[]).map((r) => r.doc);
}

/** Customers by id (a map of those found), for lists that show a customer's name. */
export async function customersByIds(knex: Knex, ids: readonly string[]): Promise<Map<string, CustomerDoc>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = (await knex('billing_customers').whereIn('id', unique).select('doc')) as { doc: CustomerDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

/** Customers of organizations (a map by organization id). */
export async function customersOfOrganizations(knex: Knex, organizationIds: readonly string[]): Promise<Map<string, CustomerDoc>> {
  const unique = [...new Set(organizationIds)];
  if (unique.length === 0) return new Map();
  const rows = (await knex('billing_customers').whereIn('organization_id', unique).select('doc')) as { doc: CustomerDoc }[];
  return new Map(rows.map((r) => [r.doc.organization_id, r.doc]));
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a whole UUID (so it may be compared with an id column). */
export function isUuid(text: string): boolean {
  return UUID_TEXT.test(text);
}
