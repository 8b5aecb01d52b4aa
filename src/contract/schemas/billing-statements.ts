// Schemas of customer statements and overdue status.
import { z } from 'zod';
import { CalendarDate, CurrencyCode, RequestDate, Uuid } from './common.ts';

// Like billing.InvoiceDetail: amounts are integer minor units of the resource's one `currency`.
const Amount = z.int().describe('Integer minor units of `currency`.');
// Where amounts of several currencies meet, each carries its currency.
const Money = z.object({ amount: z.int().describe('Integer minor units.'), currency: z.string().describe('ISO 4217.') });

export const CustomerStatementGetRequest = z
  .strictObject({
    customer_id: Uuid.describe('Customer id.'),
    from: RequestDate.describe('First day of the period (inclusive).'),
    to: RequestDate.describe('Last day of the period (inclusive); ageing is as of this day.'),
    currency: CurrencyCode.optional().describe("Statement currency; the customer's currency when omitted. Only activity in this currency is shown."),
  })
  .refine((r) => r.from <= r.to, { path: ['to'], message: 'must not be before from' })
  .refine((r) => Date.parse(r.to) - Date.parse(r.from) <= 3660 * 86_400_000, { path: ['to'], message: 'a statement covers at most 10 years' })
  .meta({ id: 'billing.CustomerStatementGetRequest' });

export const StatementLine = z
  .object({
    date: CalendarDate.describe('Invoice issue date, payment received date, or the day a credit or adjustment was made.'),
    kind: z.enum(['invoice', 'payment', 'credit', 'adjustment']).describe('invoice: debit; payment and credit: credit; adjustment: void of an invoice (credit) or reversal of a payment (debit).'),
    description: z.string(),
    invoice_id: Uuid.describe('The invoice the line belongs to.'),
    invoice_number: z.string().nullable(),
    payment_id: Uuid.nullable().describe('The payment, for payment lines and payment reversals.'),
    debit: Amount.describe('Increase of what the customer owes.'),
    credit: Amount.describe('Decrease of what the customer owes.'),
    balance: Amount.describe('Running balance after this line.'),
  })
  .meta({ id: 'billing.StatementLine' });

export const AgeingBuckets = z
  .object({
    current: Amount.describe('Not yet due (or due on the statement date).'),
    days_1_30: Amount.describe('1-30 days past due.'),
    days_31_60: Amount.describe('31-60 days past due.'),
    days_61_90: Amount.describe('61-90 days past due.'),
    days_over_90: Amount.describe('More than 90 days past due.'),
  })
  .meta({ id: 'billing.AgeingBuckets' });

export const CustomerStatementResponse = z
  .object({
    customer_id: Uuid,
    currency: z.string().describe('ISO 4217; every amount of the statement is in it.'),
    from: CalendarDate,
    to: CalendarDate,
    opening_balance: Amount.describe('Balance at the start of `from`: positive means the customer owes.'),
    lines: z.array(StatementLine).describe('Dated activity of the period, oldest first.'),
    total_debits: Amount,
    total_credits: Amount,
    closing_balance: Amount.describe('opening_balance + total_debits - total_credits; equals the invoices still owed as of `to` minus unapplied credit.'),
    unapplied_credit: Amount.describe('Customer credit (credit notes on paid invoices) not yet used, as of `to`.'),
    ageing: AgeingBuckets.describe('Amounts still owed as of `to`, by days past the due date.'),
  })
  .meta({ id: 'billing.CustomerStatementResponse' });

export const InvoiceOverdueStatusRequest = z
  .strictObject({ organization_id: Uuid.optional().describe("Billing staff: another organization's status. Others get their own organization's.") })
  .meta({ id: 'billing.InvoiceOverdueStatusRequest' });

export const OverdueInvoice = z
  .object({
    id: Uuid,
    number: z.string(),
    due_date: CalendarDate,
    days_past_due: z.int(),
    currency: z.string().describe('ISO 4217.'),
    amount_remaining: Amount,
  })
  .meta({ id: 'billing.OverdueInvoice' });

export const InvoiceOverdueStatusResponse = z
  .object({
    organization_id: Uuid,
    customer_id: Uuid.nullable().describe('null when the organization has no billing customer.'),
    as_of: CalendarDate.describe("Today (UTC): an invoice is past due when it is open and its due date is before this day."),
    past_due: z.boolean().describe('Whether any open invoice is past due.'),
    invoices: z.array(OverdueInvoice).describe('Past-due invoices, oldest due date first.'),
    amount_past_due: z.array(Money).describe('Total past due, one entry per currency (usually one); empty when nothing is past due.'),
    grace_days: z.int().describe('Days after the oldest past-due due date before access is suspended.'),
    suspension_date: CalendarDate.nullable().describe('Day access is (or was) suspended for non-payment: oldest past-due due date + grace_days; null when nothing is past due.'),
    suspended: z.boolean().describe('Whether access is suspended for non-payment now.'),
    suspended_at: z.iso.datetime().nullable().describe('When the current suspension was recorded.'),
    payment_url: z.string().nullable().describe('Where to pay; null when the organization has no billing customer.'),
  })
  .meta({ id: 'billing.InvoiceOverdueStatusResponse' });
