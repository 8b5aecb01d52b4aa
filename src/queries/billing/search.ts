// billing.search.list (extension, issue 28 §4): the console's search box. Each group reads its own read model through
// its query module, on the prefix indexes of migration 0123; invoices and payments name their customer.
import { operation } from '../../contract/operation.ts';
import { SearchListRequest, SearchListResponse } from '../../contract/schemas/billing-search.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { customersByIds, customersOfOrganizations, searchCustomers } from './customers.ts';
import { invoicesByIds, searchInvoices } from './invoices.ts';
import { searchPayments } from './payments.ts';
import { searchOrganizations } from '../identity/identity.ts';

export const searchList = operation({
  id: 'billing.search.list',
  examples: {
    request: { query: 'acme' },
    response: {
      customers: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          name: 'Acme Repairs Ltd',
          email: 'billing@acme-repairs.example',
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          currency: 'GBP',
          status: 'active',
        },
      ],
      invoices: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          number: 'INV-2026-0042',
          status: 'draft',
          customer: null,
          currency: 'GBP',
          total: 12000,
          amount_remaining: 12000,
          issue_date: 'issue date',
        },
      ],
      payments: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          reference: 'BACS 4411',
          status: 'recorded',
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          invoice_number: 'INV-2026-0042',
          customer: null,
          amount: 12000,
          currency: 'GBP',
          received_on: 'received on',
        },
      ],
      organizations: [{ id: '019387ea-5dfc-7b8e-884d-848979496e70', name: 'Acme Repairs Ltd', kind: 'kind', customer: null, created_at: '2026-01-15T09:30:00.000Z' }],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Finds customers (name or email), invoices (number), payments (reference) and organizations (name) from the start of what was typed, grouped by kind.',
  description: 'Billing staff. Matching is case-insensitive and from the start of the text; a whole id finds what it names. Extension operation (the console\'s search box).',
  request: SearchListRequest,
  response: SearchListResponse,
  error: 'billing.SearchListError',
  errors: billingErrors.list(),
  access: 'billing_staff',
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const want = (k: (typeof req.kinds & object)[number]) => !req.kinds || req.kinds.includes(k);
    const [customers, invoices, payments, organizations] = await Promise.all([
      want('customers') ? searchCustomers(knex, req.query, req.limit) : [],
      want('invoices') ? searchInvoices(knex, req.query, req.limit) : [],
      want('payments') ? searchPayments(knex, req.query, req.limit) : [],
      want('organizations') ? searchOrganizations(knex, req.query, req.limit) : [],
    ]);
    const [names, paidInvoices, orgCustomers] = await Promise.all([
      customersByIds(knex, [...invoices.map((i) => i.customer_id), ...payments.map((p) => p.customer_id)]),
      invoicesByIds(knex, payments.map((p) => p.invoice_id)),
      customersOfOrganizations(knex, organizations.map((o) => o.id)),
    ]);
    const ref = (id: string) => {
      const c = names.get(id);
      return c ? { id: c.id, name: c.name } : null;
    };
    return {
      customers: customers.map((c) => ({ id: c.id, name: c.name, email: c.email, organization_id: c.organization_id, currency: c.currency, status: c.status })),
      invoices: invoices.map((i) => ({ id: i.id, number: i.number, status: i.status, customer: ref(i.customer_id), currency: i.currency, total: i.total, amount_remaining: i.amount_remaining, issue_date: i.issue_date })),
      payments: payments.map((p) => ({
        id: p.id, reference: p.reference, status: p.status, invoice_id: p.invoice_id, invoice_number: paidInvoices.get(p.invoice_id)?.number ?? null, customer: ref(p.customer_id),
        amount: p.amount, currency: p.currency, received_on: p.received_on,
      })),
      organizations: organizations.map((o) => {
        const c = orgCustomers.get(o.id);
        return { id: o.id, name: o.name, kind: o.kind, customer: c ? { id: c.id, name: c.name } : null, created_at: o.created_at };
      }),
    };
  },
});

/** Read operations of the search. */
export const billingSearchQueries = [searchList];
