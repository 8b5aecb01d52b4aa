// The billing examples shown in OpenAPI and /docs: one customer, its invoice through draft -> open -> paid, and the
// payment that paid it. Operations reference these (spreading and overriding where a state differs) so the same
// story is told everywhere, ids agree between requests and answers, and the types keep every example valid.
import type { z } from 'zod';
import type { CustomerDetailItem, CustomerListItem } from '../schemas/billing-customers.ts';
import type { RefundDue } from '../schemas/billing-charges.ts';
import type { InvoiceCorrection, RevisionImpact } from '../schemas/billing-corrections.ts';
import type { CreditNoteRequestDetail } from '../schemas/billing-credit-notes.ts';
import type { WebhookEndpoint } from '../schemas/billing-webhooks.ts';
import type { InvoiceDetail, InvoiceLine, InvoiceListItem, Payment } from '../schemas/billing-invoices.ts';

/** The ids of the story. */
export const exampleIds = {
  organization: '0193472c-1f99-732d-8f1b-0abb219cd679',
  customer: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
  invoice: '019315d2-5c20-7d9b-8d8a-33f698daf185',
  payment: '019387ea-5dfc-7b8e-884d-848979496e70',
  subscription: '01938c3e-00eb-7021-83ca-a1174cd5d9dd',
  webhookEndpoint: '01938f51-7a2e-7c41-9b0d-5e7f2a6c3d18',
} as const;

/** Where the customer pays (paymentUrl of the service at app.example.com). */
export const examplePaymentUrl = `https://app.example.com/billing/pay/${exampleIds.customer}`;

export const exampleCustomer = {
  id: exampleIds.customer,
  organization_id: exampleIds.organization,
  name: 'Acme Repairs Ltd',
  email: 'billing@acme-repairs.example',
  billing_address: { line1: '1 High Street', line2: 'Unit 4', city: 'Leeds', postal_code: 'LS1 1AA', region: 'West Yorkshire', country: 'GB' },
  currency: 'GBP',
  payment_terms_days: 30,
  tax_id: 'GB123456789',
  metadata: {},
  status: 'active',
  created_at: '2026-01-05T10:00:00.000Z',
  updated_at: '2026-01-05T10:00:00.000Z',
} satisfies z.output<typeof CustomerDetailItem>;

/** A customer as a list row. */
export const exampleCustomerRow = {
  id: exampleCustomer.id,
  organization_id: exampleCustomer.organization_id,
  name: exampleCustomer.name,
  email: exampleCustomer.email,
  currency: exampleCustomer.currency,
  status: exampleCustomer.status,
  created_at: exampleCustomer.created_at,
} satisfies z.output<typeof CustomerListItem>;

/** A draft: no number, no dates yet. */
export const exampleDraftInvoice = {
  id: exampleIds.invoice,
  number: null,
  organization_id: exampleIds.organization,
  customer_id: exampleIds.customer,
  status: 'draft',
  currency: 'GBP',
  lines: [{ kind: 'manual', description: 'Monthly platform fee', quantity: 1, unit_amount: 12000, amount: 12000 }],
  subtotal: 12000,
  total: 12000,
  amount_paid: 0,
  amount_credited: 0,
  amount_credited_to_balance: 0,
  amount_remaining: 12000,
  memo: 'Thank you for your business.',
  metadata: {},
  issue_date: null,
  due_date: null,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
  finalized_at: null,
  paid_at: null,
  voided_at: null,
  marked_uncollectible_at: null,
} satisfies z.output<typeof InvoiceDetail>;

/** The draft finalized: numbered, issued, due after the customer's 30 days. */
export const exampleOpenInvoice = {
  ...exampleDraftInvoice,
  number: 'INV-2026-000042',
  status: 'open',
  issue_date: '2026-01-15',
  due_date: '2026-02-14',
  updated_at: '2026-01-15T09:45:00.000Z',
  finalized_at: '2026-01-15T09:45:00.000Z',
} satisfies z.output<typeof InvoiceDetail>;

/** The open invoice paid in full by examplePayment. */
export const examplePaidInvoice = {
  ...exampleOpenInvoice,
  status: 'paid',
  amount_paid: 12000,
  amount_remaining: 0,
  updated_at: '2026-02-03T11:00:00.000Z',
  paid_at: '2026-02-03T11:00:00.000Z',
} satisfies z.output<typeof InvoiceDetail>;

/** An invoice as a list row. */
export function exampleInvoiceRow(invoice: z.output<typeof InvoiceDetail>): z.output<typeof InvoiceListItem> {
  const { id, number, organization_id, customer_id, status, currency, total, amount_remaining, issue_date, due_date, created_at } = invoice;
  return { id, number, organization_id, customer_id, status, currency, total, amount_remaining, issue_date, due_date, created_at };
}

/** The bank transfer that paid the open invoice. */
export const examplePayment = {
  id: exampleIds.payment,
  invoice_id: exampleIds.invoice,
  organization_id: exampleIds.organization,
  customer_id: exampleIds.customer,
  amount: 12000,
  currency: 'GBP',
  method: 'bank_transfer',
  reference: 'BACS 4411',
  received_on: '2026-02-03',
  status: 'recorded',
  void_reason: null,
  created_at: '2026-02-03T11:00:00.000Z',
  updated_at: '2026-02-03T11:00:00.000Z',
} satisfies z.output<typeof Payment>;

/** The line usage generates for a month: 40 orders of 120.00 at 2.50%. */
export const exampleMeteredLine = {
  kind: 'metered',
  description: 'Marketplace fees 2026-01: 40 platform-introduced order(s) at 2.50%',
  quantity: 1,
  unit_amount: 12000,
  amount: 12000,
  metered: {
    subscription_id: exampleIds.subscription,
    period: '2026-01',
    classification: 'platform_introduced',
    rate_bps: 250,
    minimum_fee: 50,
    pricing_revision_id: '0193a0b4-7e21-7c3d-9f4e-5b6a7c8d9e0f',
    baseline_revision_id: null,
    order_count: 40,
    order_amount: 480000,
    exempt_amount: 0,
    chargeable_amount: 480000,
  },
} satisfies z.output<typeof InvoiceLine>;

/** A customer user's request to credit part of the open invoice, before staff decide on it. */
export const exampleCreditNoteRequest = {
  id: '0193b2c4-51d7-7e08-a9f3-6c2d8e4b7a15',
  invoice_id: exampleIds.invoice,
  invoice_number: exampleOpenInvoice.number,
  organization_id: exampleIds.organization,
  customer_id: exampleIds.customer,
  amount: 3000,
  currency: 'GBP',
  reason: 'order_change',
  description: 'Two seats were removed on 10 January; the fee was for five.',
  status: 'pending',
  requested_by: { type: 'user', id: '0193472d-8a10-7b2c-9d3e-4f5a6b7c8d9e' },
  applied_to_invoice: null,
  credited_to_balance: null,
  created_at: '2026-01-20T10:00:00.000Z',
  updated_at: '2026-01-20T10:00:00.000Z',
  approved_at: null,
  issued_at: null,
  rejected_at: null,
  cancelled_at: null,
} satisfies z.output<typeof CreditNoteRequestDetail>;

/** What a revision would change on the month's usage invoice (exampleMeteredLine's 40 orders). */
export function exampleRevisionImpact(newTotal: number): z.output<typeof RevisionImpact> {
  return {
    subscription_id: exampleIds.subscription,
    currency: 'GBP',
    effective_from: '2026-01-01T00:00:00.000Z',
    effective_to: null,
    months: { from: '2026-01', to: '2026-01' },
    items: [{
      invoice_id: exampleIds.invoice, number: exampleOpenInvoice.number, status: 'open', period: '2026-01',
      old_total: exampleMeteredLine.amount, new_total: newTotal, difference: newTotal - exampleMeteredLine.amount, changed_order_count: 40, unrateable_order_count: 0,
    }],
    examined: 1,
    pagination: null,
  };
}

/** A card charge taken on the payment page after the bank transfer had already paid the invoice: all of it is due back. */
export const exampleRefundDue = {
  charge_ref: 'ch_sandbox_7Hk2Lm',
  provider: 'sandbox',
  customer: { id: exampleIds.customer, name: exampleCustomer.name },
  organization_id: exampleIds.organization,
  invoice: { id: exampleIds.invoice, number: exampleOpenInvoice.number },
  amount_charged: 12000,
  amount_applied: 0,
  amount_due: 12000,
  currency: 'GBP',
  why: { code: 'not_applied', text: 'The invoice was already paid when the charge arrived.' },
  since: '2026-02-03T11:05:00.000Z',
  status: 'due',
  resolution: null,
} satisfies z.output<typeof RefundDue>;

/** The January usage invoice corrected after its pricing was revised down to 2.00%: the 24.00 overcharge is credited. */
export const exampleCorrection = {
  id: '0193d1a2-4b3c-7d5e-8f60-7a8b9c0d1e2f',
  invoice_id: exampleIds.invoice,
  organization_id: exampleIds.organization,
  customer_id: exampleIds.customer,
  currency: 'GBP',
  sequence: 1,
  diff_hash: 'df087996d45b03e7eb8c133c0298fd98d35113fca26aaba58612fef3cc212cad',
  reason: 'Pricing revised to 2% from January, as agreed',
  as_of: '2026-02-10T12:00:00.000Z',
  difference: -2400,
  order_count: 40,
  credit_notes: [{ invoice_id: exampleIds.invoice, credit_note_request_id: '01938121-50f1-741f-8357-7b9a90440d9f', amount: 2400 }],
  correction_invoice_id: null,
  lines: [{
    line_index: 0,
    source_line_index: 0,
    description: 'Marketplace fees 2026-01: 40 platform-introduced order(s) at 2.00%',
    order_count: 40,
    old_fees: 12000,
    new_fees: 9600,
    amount: -2400,
    old: { classification: 'platform_introduced', rate_bps: 250, minimum_fee: 50, pricing_revision_id: exampleMeteredLine.metered.pricing_revision_id, baseline_revision_id: null },
    new: { classification: 'platform_introduced', rate_bps: 200, minimum_fee: 50, pricing_revision_id: '0193faaa-2633-7562-8a93-a1eece8a0625', baseline_revision_id: null },
  }],
  recorded_at: '2026-02-10T12:00:00.000Z',
  recorded_by: { type: 'staff', id: '0193472e-3c5d-7e6f-8a9b-0c1d2e3f4a5b' },
} satisfies z.output<typeof InvoiceCorrection>;

/** The organization's webhook endpoint (its secret is never shown again after insert and rotate-secret). */
export const exampleWebhookEndpoint = {
  id: exampleIds.webhookEndpoint,
  organization_id: exampleIds.organization,
  url: 'https://hooks.acme-repairs.example/billing',
  event_types: ['invoice.finalized', 'invoice.paid'],
  description: 'ERP sync',
  status: 'enabled',
  disabled_reason: null,
  disabled_at: null,
  secret_rotated_at: null,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
} satisfies z.output<typeof WebhookEndpoint>;

/** The open invoice's finalization as billing.events.get (and a webhook delivery) shows it. */
export const exampleFinalizedEvent = {
  id: '0193c0de-4a51-7b2e-9d3f-6a8b1c2e4f90',
  type: 'invoice.finalized',
  occurred_at: exampleOpenInvoice.finalized_at,
  subject: { type: 'invoice', id: exampleIds.invoice },
  data: { number: exampleOpenInvoice.number, issue_date: exampleOpenInvoice.issue_date, due_date: exampleOpenInvoice.due_date, total: { amount: exampleOpenInvoice.total, currency: exampleOpenInvoice.currency } },
} as const;
