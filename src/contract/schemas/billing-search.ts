// billing.search.list (extension, issue 28): one box that finds a customer, an invoice, a payment or an organization.
import { z } from 'zod';
import { MinorUnits, Timestamp, Uuid } from './common.ts';
import { CustomerStatus } from './billing-customers.ts';
import { InvoiceStatus } from './billing-invoices.ts';

export const SEARCH_KINDS = ['customers', 'invoices', 'payments', 'organizations'] as const;

export const SearchListRequest = z
  .strictObject({
    query: z.string().trim().min(2, 'type at least 2 characters').max(200).describe(
      'What was typed: the start of a customer\'s name or email, of an invoice number or of a payment reference, or of an organization\'s name ' +
        '(case-insensitive); a whole id finds that customer, invoice, payment or organization.',
    ),
    kinds: z.array(z.enum(SEARCH_KINDS)).min(1).max(SEARCH_KINDS.length).optional().describe('Only these groups (default: all).'),
    limit: z.int().min(1).max(50).default(10).describe('Most results of each group, 1-50 (default 10).'),
  })
  .meta({ id: 'billing.SearchListRequest' });

const CustomerRef = z.object({ id: Uuid, name: z.string() }).describe('The customer, by id and name.');

export const SearchCustomer = z
  .object({ id: Uuid, name: z.string(), email: z.string(), organization_id: Uuid, currency: z.string(), status: CustomerStatus })
  .meta({ id: 'billing.SearchCustomer' });

export const SearchInvoice = z
  .object({ id: Uuid, number: z.string().nullable(), status: InvoiceStatus, customer: CustomerRef.nullable(), currency: z.string(), total: MinorUnits, amount_remaining: MinorUnits, issue_date: z.string().nullable() })
  .meta({ id: 'billing.SearchInvoice' });

export const SearchPayment = z
  .object({
    id: Uuid, reference: z.string(), status: z.enum(['recorded', 'voided']), invoice_id: Uuid, invoice_number: z.string().nullable(), customer: CustomerRef.nullable(),
    amount: MinorUnits, currency: z.string(), received_on: z.string(),
  })
  .meta({ id: 'billing.SearchPayment' });

export const SearchOrganization = z
  .object({ id: Uuid, name: z.string(), kind: z.string(), customer: CustomerRef.nullable().describe('Its billing customer, if it has one.'), created_at: Timestamp })
  .meta({ id: 'billing.SearchOrganization' });

export const SearchListResponse = z
  .object({
    customers: z.array(SearchCustomer).describe('Customers, by name.'),
    invoices: z.array(SearchInvoice).describe('Invoices, by number.'),
    payments: z.array(SearchPayment).describe('Payments, newest first.'),
    organizations: z.array(SearchOrganization).describe('Organizations, by name.'),
  })
  .meta({ id: 'billing.SearchListResponse', description: 'What matched, grouped by kind (an empty array for a group not asked for or with no match).' });
