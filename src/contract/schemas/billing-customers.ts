// Schemas of billing customers and notes, named as the spec names them.
import { z } from 'zod';
import { CurrencyCode, Metadata, PageRequest, Timestamp, TotalCountRequest, Uuid, countedPage, page, sortParam } from './common.ts';

export const BillingAddress = z
  .strictObject({
    line1: z.string().min(1).max(200).describe('First address line.'),
    line2: z.string().max(200).optional().describe('Second address line.'),
    city: z.string().min(1).max(100).describe('City or town.'),
    postal_code: z.string().max(20).optional().describe('Postal code.'),
    region: z.string().max(100).optional().describe('State, county or region.'),
    country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').describe('ISO 3166-1 alpha-2 country code.'),
  })
  .meta({ id: 'billing.BillingAddress' });

const CustomerName = z.string().trim().min(1).max(200).describe('Legal or trading name on invoices.');
const CustomerEmail = z.email().max(320).describe('Where invoices are sent.');
const PaymentTerms = z.int().min(0).max(365).describe('Days from issue to due date (default 30).');
const TaxId = z.string().trim().min(1).max(50).describe('VAT or tax registration number.');

export const CustomerCreateRequest = z
  .strictObject({
    organization_id: Uuid.optional().describe('The organization to bill; the caller\'s organization when omitted. Billing staff may name any.'),
    name: CustomerName,
    email: CustomerEmail,
    billing_address: BillingAddress.optional(),
    currency: CurrencyCode.describe('Currency invoices are issued in.'),
    payment_terms_days: PaymentTerms.default(30),
    tax_id: TaxId.optional(),
    metadata: Metadata.default({}),
  })
  .meta({ id: 'billing.CustomerCreateRequest' });

export const CustomerGetRequest = z.strictObject({ id: Uuid.describe('Customer id.') }).meta({ id: 'billing.CustomerGetRequest' });
export const CustomerRemoveRequest = z.strictObject({ id: Uuid.describe('Customer id.') }).meta({ id: 'billing.CustomerRemoveRequest' });

export const CustomerUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Customer id.'),
    name: CustomerName.optional(),
    email: CustomerEmail.optional(),
    billing_address: BillingAddress.nullable().optional().describe('null removes the address.'),
    currency: CurrencyCode.optional(),
    payment_terms_days: PaymentTerms.optional(),
    tax_id: TaxId.nullable().optional().describe('null removes the tax id.'),
    metadata: Metadata.optional().describe('Replaces the metadata.'),
  })
  .meta({ id: 'billing.CustomerUpdateRequest' });

export const CustomerStatus = z.enum(['active', 'removed']).describe('removed customers keep their history.');

export const CustomerDetailItem = z
  .object({
    id: Uuid,
    organization_id: Uuid.describe('The organization billed.'),
    name: z.string(),
    email: z.string(),
    billing_address: BillingAddress.nullable(),
    currency: z.string().describe('ISO 4217.'),
    payment_terms_days: z.int(),
    tax_id: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    status: CustomerStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.CustomerDetailItem' });

export const CustomerListItem = z
  .object({ id: Uuid, organization_id: Uuid, name: z.string(), email: z.string(), currency: z.string(), status: CustomerStatus, created_at: Timestamp })
  .meta({ id: 'billing.CustomerListItem' });

export const CustomerListRequest = z
  .strictObject({
    ...PageRequest,
    status: CustomerStatus.optional().describe('Only customers in this status (default: all).'),
    query: z.string().trim().min(1).max(200).optional().describe('Case-insensitive text search in name and email.'),
    organization_id: Uuid.optional().describe('Billing staff: only this organization\'s customer.'),
    sort: sortParam(['created_at', 'name']),
    ...TotalCountRequest,
  })
  .meta({ id: 'billing.CustomerListRequest' });

export const CustomerListPage = countedPage(CustomerListItem, 'billing.CustomerListPage');

export const NoteSubject = z
  .strictObject({ type: z.enum(['customer', 'invoice']).describe('What the note is on.'), id: Uuid.describe('Id of the customer or invoice.') })
  .meta({ id: 'billing.NoteSubject' });

const NoteBody = z.string().trim().min(1).max(10_000).describe('Text of the note (1-10,000 characters).');

export const NoteInsertRequest = z.strictObject({ subject: NoteSubject, body: NoteBody }).meta({ id: 'billing.NoteInsertRequest' });
export const NoteUpdateRequest = z.strictObject({ id: Uuid.describe('Note id.'), body: NoteBody }).meta({ id: 'billing.NoteUpdateRequest' });
export const NoteRemoveRequest = z.strictObject({ id: Uuid.describe('Note id.') }).meta({ id: 'billing.NoteRemoveRequest' });
export const NoteListRequest = z.strictObject({ subject: NoteSubject, ...PageRequest }).meta({ id: 'billing.NoteListRequest' });

export const Actor = z.object({ type: z.enum(['user', 'staff', 'integration', 'system']), id: z.string() }).meta({ id: 'Actor' });

export const Note = z
  .object({
    id: Uuid,
    subject: NoteSubject,
    body: z.string(),
    author: Actor.describe('Who wrote the note.'),
    created_at: Timestamp,
    updated_at: Timestamp,
    history: z.array(z.object({ body: z.string(), replaced_at: Timestamp, editor: Actor })).describe('Earlier bodies, oldest first.'),
  })
  .meta({ id: 'billing.Note' });

export const NoteInsertResponse = Note.meta({ id: 'billing.NoteInsertResponse' });
export const NoteUpdateResponse = Note.meta({ id: 'billing.NoteUpdateResponse' });
export const NoteListResponse = page(Note, 'billing.NoteListResponse');
