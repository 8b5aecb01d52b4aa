// billing.search.list (extension, issue 28 §4): the console's search box. Each group reads its own read model through
// its query module, on the prefix indexes of migration 0123; invoices and payments name their customer.
import { operation } from '../../contract/operation.ts';
import { SearchListRequest, SearchListResponse } from '../../contract/schemas/billing-search.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { customersByIds, customersOfOrganizations, searchCustomers } from './customers.ts';
import { invoicesByIds, searchInvoices } from './invoices.ts';
import { searchPayments } from './payments.ts';
import { searchOrganizations } from '../identity/identity.ts';
import { exampleCustomer, exampleIds, examplePaidInvoice, examplePayment } from '../../contract/examples/billing.ts';

const customerRef = { id: exampleCustomer.id, name: exampleCustomer.name };

export const searchList = operation({
  id: 'billing.search.list',
  examples: {
    request: { query: 'acme' },
    response: {
      customers: [{ id: exampleCustomer.id, name: exampleCustomer.name, email: exampleCustomer.email, organization_id: exampleIds.organization, currency: 'GBP', status: 'active' }],
      invoices: [{
        id: exampleIds.invoice, number: examplePaidInvoice.number, status: examplePaidInvoice.status, customer: customerRef, currency: 'GBP',
        total: examplePaidInvoice.total, amount_remaining: examplePaidInvoice.amount_remaining, issue_date: examplePaidInvoice.issue_date,
      }],
      payments: [{
        id: examplePayment.id, reference: examplePayment.reference, status: examplePayment.status, invoice_id: exampleIds.invoice, invoice_number: examplePaidInvoice.number,
        customer: customerRef, amount: examplePayment.amount, currency: 'GBP', received_on: examplePayment.received_on,
      }],
      organizations: [{ id: exampleIds.organization, name: 'Acme Repairs', kind: 'repairer', customer: customerRef, created_at: '2026-01-05T09:00:00.000Z' }],
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
