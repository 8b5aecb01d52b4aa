// Schemas of billing invoices and payments, named as the spec names them.
import { z } from 'zod';
import { CalendarDate, CurrencyCode, Metadata, PageRequest, RequestDate, Timestamp, TotalCountRequest, Uuid, countedPage, sortParam } from './common.ts';

/** Most lines on one invoice. */
const MAX_LINES = 500;

/** billing.InvoiceDetail.status */
export const InvoiceStatus = z.enum(['draft', 'open', 'paid', 'void', 'uncollectible']).describe('draft -> open -> paid | void | uncollectible; uncollectible -> paid | void.');
/** billing.Payment.method */
export const PaymentMethod = z.enum(['bank_transfer', 'bank_debit', 'card', 'cash', 'cheque', 'other']).describe('How the money arrived.');

const Amount = z.int().min(0).max(1e15);
const PositiveAmount = z.int().min(1).max(1e15).describe('Positive integer amount in minor units of the invoice currency.');

/** A line as the caller writes it. */
export const InvoiceLineInput = z
  .strictObject({
    kind: z.literal('manual').default('manual').describe('Lines written by hand are `manual`; `metered` lines come only from usage.'),
    description: z.string().trim().min(1).max(500).describe('What is charged.'),
    quantity: z.int().min(1).max(1_000_000).default(1).describe('Whole units (default 1).'),
    unit_amount: z.int().min(0).max(1e12).describe('Price of one unit in minor units.'),
    amount: z.int().min(0).optional().describe('quantity x unit_amount; computed when omitted, must match when given.'),
  })
  .refine((l) => l.amount === undefined || l.amount === l.quantity * l.unit_amount, { message: 'amount must equal quantity x unit_amount', path: ['amount'] })
  .meta({ id: 'billing.InvoiceLineInput' });

const Lines = z.array(InvoiceLineInput).max(MAX_LINES, `at most ${MAX_LINES} lines`).describe(`Invoice lines (at most ${MAX_LINES}).`);
const Memo = z.string().max(5000).nullable().describe('Free text printed on the invoice; null clears it.');
const Reason = z.string().trim().min(1).max(500).describe('Why: kept with the change in the audit trail.');

/** A stored line. */
export const InvoiceLine = z
  .object({
    kind: z.enum(['manual', 'metered']),
    description: z.string(),
    quantity: z.int(),
    unit_amount: z.int().describe('Minor units.'),
    amount: z.int().describe('quantity x unit_amount, minor units.'),
    metered: z
      .object({
        subscription_id: Uuid.describe('The subscription whose usage the line charges.'),
        period: z.string().describe('Calendar month of the orders, YYYY-MM (UTC).'),
        classification: z.enum(['platform_introduced', 'pre_existing']).describe('Classification of every order of the line.'),
        rate_bps: z.int().describe('Fee rate in basis points of the chargeable amount.'),
        minimum_fee: z.int().describe('Minimum fee per order with a chargeable part, minor units.'),
        pricing_revision_id: Uuid.describe('The pricing revision that rated the orders.'),
        baseline_revision_id: Uuid.nullable().describe('The baseline revision that exempted part of them (pre_existing lines), or null.'),
        order_count: z.int().describe('Orders behind the line (billing.invoices.orders.list).'),
        order_amount: z.int().describe('Sum of the orders\' amounts, minor units.'),
        exempt_amount: z.int().describe('Part of order_amount exempt under the baseline.'),
        chargeable_amount: z.int().describe('order_amount - exempt_amount.'),
      })
      .optional()
      .describe('Metered lines only: what rated their orders. Their amount is the exact sum of those orders\' fees.'),
  })
  .meta({ id: 'billing.InvoiceLine' });

/** billing.invoices.insert request. */
export const InvoiceCreateRequest = z
  .strictObject({
    customer_id: Uuid.describe('The billing customer to invoice.'),
    currency: CurrencyCode.optional().describe("ISO 4217; the customer's currency when omitted."),
    lines: Lines.default([]),
    memo: Memo.optional(),
    metadata: Metadata.default({}),
  })
  .meta({ id: 'billing.InvoiceCreateRequest' });

/** billing.invoices.update request. */
export const InvoiceUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Invoice id.'),
    lines: Lines.optional().describe('Replaces every line; drafts only.'),
    memo: Memo.optional(),
    metadata: Metadata.optional().describe('Replaces the metadata.'),
    action: z
      .enum(['finalize', 'void', 'mark_uncollectible'])
      .optional()
      .describe('Status transition, applied after the other changes: finalize (draft -> open, allocates the number), void, mark_uncollectible. `paid` is reached only by payments and credits.'),
    reason: Reason.optional(),
  })
  .meta({ id: 'billing.InvoiceUpdateRequest' });

/** billing.invoices.get response (and of every invoice write). */
export const InvoiceDetail = z
  .object({
    id: Uuid,
    number: z.string().nullable().describe('INV-<year>-<6 digits>, allocated at finalize; null on drafts.'),
    organization_id: Uuid,
    customer_id: Uuid,
    status: InvoiceStatus,
    currency: z.string().describe('ISO 4217; every amount is in it.'),
    lines: z.array(InvoiceLine),
    subtotal: Amount.describe('Sum of line amounts.'),
    total: Amount.describe('Amount invoiced (no tax yet, so equal to subtotal).'),
    amount_paid: Amount.describe('Sum of recorded, not voided payments.'),
    amount_credited: Amount.describe('Sum of issued credit notes.'),
    amount_credited_to_balance: Amount.describe('Part of amount_credited issued after payment, which became customer credit.'),
    amount_remaining: Amount.describe('Still owed: total - amount_paid - credits applied; 0 once paid or void.'),
    memo: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    issue_date: CalendarDate.nullable().describe('Set at finalize.'),
    due_date: CalendarDate.nullable().describe('issue_date + the customer\'s payment terms.'),
    created_at: Timestamp,
    updated_at: Timestamp,
    finalized_at: Timestamp.nullable(),
    paid_at: Timestamp.nullable(),
    voided_at: Timestamp.nullable(),
    marked_uncollectible_at: Timestamp.nullable(),
  })
  .meta({ id: 'billing.InvoiceDetail' });

/** One row of billing.invoices.list. */
export const InvoiceListItem = z
  .object({
    id: Uuid,
    number: z.string().nullable(),
    organization_id: Uuid,
    customer_id: Uuid,
    status: InvoiceStatus,
    currency: z.string(),
    total: Amount,
    amount_remaining: Amount,
    issue_date: CalendarDate.nullable(),
    due_date: CalendarDate.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'billing.InvoiceListItem' });

/** billing.invoices.list request: filters and page. */
export const InvoiceListRequest = z
  .strictObject({
    ...PageRequest,
    customer_id: Uuid.optional().describe('Only this customer\'s invoices.'),
    organization_id: Uuid.optional().describe('Billing staff: only this organization\'s invoices.'),
    status: InvoiceStatus.optional(),
    currency: CurrencyCode.optional(),
    issue_date_from: RequestDate.optional().describe('Issued on or after.'),
    issue_date_to: RequestDate.optional().describe('Issued on or before.'),
    due_date_from: RequestDate.optional().describe('Due on or after.'),
    due_date_to: RequestDate.optional().describe('Due on or before.'),
    overdue: z.boolean().optional().describe('true: open invoices whose due date is before today; false: all others.'),
    sort: sortParam(['created_at', 'total', 'amount_remaining']),
    ...TotalCountRequest,
  })
  .meta({ id: 'billing.InvoiceListRequest' });

/** billing.invoices.list response. */
export const InvoiceListPage = countedPage(InvoiceListItem, 'billing.InvoiceListPage');

/** billing.payments.insert request. */
export const PaymentInsertRequest = z
  .strictObject({
    invoice_id: Uuid.describe('The invoice paid.'),
    amount: PositiveAmount.describe('At most the invoice\'s amount_remaining.'),
    currency: CurrencyCode.describe('Must be the invoice currency.'),
    method: PaymentMethod,
    reference: z.string().trim().min(1).max(200).describe('Bank reference, cheque number, receipt...'),
    received_on: RequestDate.describe('When the money arrived; not in the future.'),
  })
  .meta({ id: 'billing.PaymentInsertRequest' });

/** billing.payments.update request: edit or void, always with a reason. */
export const PaymentUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Payment id.'),
    amount: PositiveAmount.optional(),
    method: PaymentMethod.optional(),
    reference: z.string().trim().min(1).max(200).optional(),
    received_on: RequestDate.optional(),
    void: z.literal(true).optional().describe('true voids the payment (no other changes allowed with it).'),
    reason: Reason.describe('Why the payment is changed or voided (required).'),
  })
  .refine((r) => !r.void || (r.amount === undefined && r.method === undefined && r.reference === undefined && r.received_on === undefined), {
    message: 'void takes no other changes',
    path: ['void'],
  })
  .meta({ id: 'billing.PaymentUpdateRequest' });

/** A manual payment. */
export const Payment = z
  .object({
    id: Uuid,
    invoice_id: Uuid,
    organization_id: Uuid,
    customer_id: Uuid,
    amount: PositiveAmount,
    currency: z.string(),
    method: PaymentMethod,
    reference: z.string(),
    received_on: CalendarDate,
    status: z.enum(['recorded', 'voided']),
    void_reason: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.Payment' });

/** billing.payments.insert response: the payment and the invoice after it. */
export const PaymentInsertResponse = z
  .object({ payment: Payment, invoice: InvoiceDetail.describe('The invoice after the payment.') })
  .meta({ id: 'billing.PaymentInsertResponse' });

/** billing.payments.update response: the payment and the invoice after it. */
export const PaymentUpdateResponse = z
  .object({ payment: Payment, invoice: InvoiceDetail.describe('The invoice after the change.') })
  .meta({ id: 'billing.PaymentUpdateResponse' });

/** billing.payments.list request. */
export const PaymentListRequest = z
  .strictObject({
    ...PageRequest,
    invoice_id: Uuid.optional().describe('Payments of this invoice.'),
    customer_id: Uuid.optional().describe('Payments of this customer.'),
    status: z.enum(['recorded', 'voided']).optional(),
    sort: sortParam(['created_at']),
    ...TotalCountRequest,
  })
  .meta({ id: 'billing.PaymentListRequest' });

/** billing.payments.list response. */
export const PaymentListResponse = countedPage(Payment, 'billing.PaymentListResponse');
