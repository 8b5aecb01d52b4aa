// Ids and one invoice's life (drafted, finalized, paid in parts, a payment bounced, credited, settled) shared by the billing projection specs.
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import type { CustomerEvent } from '../../../src/domain/billing/customer.ts';
import type { CreditNoteRequestEvent } from '../../../src/domain/billing/credit-note-request.ts';

/** Fixed ids (payments sort P1 < P2 < P3). */
export const ORG = '0190c6a2-0000-7000-8000-0000000000a1';
export const ORG2 = '0190c6a2-0000-7000-8000-0000000000a2';
export const CUS = '0190c6a2-0000-7000-8000-0000000000c1';
export const CUS2 = '0190c6a2-0000-7000-8000-0000000000c2';
export const INV = '0190c6a2-0000-7000-8000-0000000000b1';
export const P1 = '0190c6a2-0000-7000-8000-000000000e01';
export const P2 = '0190c6a2-0000-7000-8000-000000000e02';
export const P3 = '0190c6a2-0000-7000-8000-000000000e03';
export const CNR = '0190c6a2-0000-7000-8000-000000000d01';
export const CNR2 = '0190c6a2-0000-7000-8000-000000000d02';
export const NUMBER = 'INV-2026-000001';

/** The id the spec store gives the n-th given event (1-based). */
export const eventId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const ref = { invoice_id: INV, organization_id: ORG, customer_id: CUS, currency: 'GBP' };
/** The invoice's lines: 2 x 15.00 and 1 x 20.00. */
export const LINES = [
  { kind: 'manual' as const, description: 'Panel repair', quantity: 2, unit_amount: 1500, amount: 3000 },
  { kind: 'manual' as const, description: 'Paint', quantity: 1, unit_amount: 2000, amount: 2000 },
];

/** The customer the invoice is for. */
export const customerCreated: Extract<CustomerEvent, { type: 'CustomerCreated' }> = {
  type: 'CustomerCreated',
  data: {
    customer_id: CUS, organization_id: ORG, name: 'Acme Repairs', email: 'ap@acme.example', billing_address: { line1: '1 High St', city: 'Leeds', country: 'GB' },
    currency: 'GBP', payment_terms_days: 30, tax_id: 'GB123', metadata: {}, created_at: '2026-01-14T09:00:00.000Z',
  },
};

/** Drafted, memo added, finalized. */
export const opened: InvoiceEvent[] = [
  { type: 'InvoiceDrafted', data: { ...ref, lines: LINES, subtotal: 5000, total: 5000, memo: null, metadata: {}, created_at: '2026-01-15T09:00:00.000Z' } },
  { type: 'InvoiceDetailsUpdated', data: { ...ref, memo: 'Thanks', metadata: { po: '42' }, updated_at: '2026-01-15T10:00:00.000Z' } },
  { type: 'InvoiceFinalized', data: { ...ref, number: NUMBER, issue_date: '2026-01-16', due_date: '2026-02-15', payment_terms_days: 30, subtotal: 5000, total: 5000, finalized_at: '2026-01-16T09:00:00.000Z' } },
];

/** Then: 20.00 paid and corrected to 25.00, a 10.00 cheque bounced, 5.00 credited, the last 20.00 paid by card. */
export const settled: InvoiceEvent[] = [
  { type: 'PaymentRecorded', data: { ...ref, payment_id: P1, amount: 2000, method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20', recorded_at: '2026-01-20T09:00:00.000Z' } },
  {
    type: 'PaymentUpdated',
    data: { ...ref, payment_id: P1, changes: { amount: 2500 }, previous: { amount: 2000, method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20' }, amount_delta: 500, updated_at: '2026-01-21T09:00:00.000Z' },
  },
  { type: 'PaymentRecorded', data: { ...ref, payment_id: P2, amount: 1000, method: 'cheque', reference: 'CHQ 7', received_on: '2026-01-22', recorded_at: '2026-01-22T09:00:00.000Z' } },
  { type: 'PaymentVoided', data: { ...ref, payment_id: P2, amount: 1000, method: 'cheque', reference: 'CHQ 7', received_on: '2026-01-22', reason: 'bounced', voided_at: '2026-01-25T09:00:00.000Z' } },
  { type: 'CreditNoteIssued', data: { ...ref, credit_note_request_id: CNR, amount: 500, reason: 'order_change', applied_to_invoice: 500, credited_to_balance: 0, issued_at: '2026-01-26T09:00:00.000Z' } },
  { type: 'PaymentRecorded', data: { ...ref, payment_id: P3, amount: 2000, method: 'card', reference: 'CARD 9', received_on: '2026-01-27', recorded_at: '2026-01-27T09:00:00.000Z' } },
  { type: 'InvoicePaid', data: { ...ref, number: NUMBER, total: 5000, amount_paid: 4500, amount_credited: 500, paid_at: '2026-01-27T09:00:00.000Z' } },
];

/** A credit note request: asked for 5.00, lowered to 4.00, approved, issued. */
export const requestIssued: CreditNoteRequestEvent[] = [
  {
    type: 'CreditNoteRequested',
    data: {
      credit_note_request_id: CNR, invoice_id: INV, invoice_number: NUMBER, organization_id: ORG, customer_id: CUS, currency: 'GBP', amount: 500, reason: 'order_change',
      description: 'One panel not painted', requested_at: '2026-01-23T09:00:00.000Z',
    },
  },
  { type: 'CreditNoteRequestUpdated', data: { changes: { amount: 400 }, updated_at: '2026-01-24T09:00:00.000Z' } },
  { type: 'CreditNoteRequestApproved', data: { approved_at: '2026-01-25T09:00:00.000Z' } },
  { type: 'CreditNoteRequestIssued', data: { invoice_id: INV, amount: 400, currency: 'GBP', applied_to_invoice: 400, credited_to_balance: 0, issued_at: '2026-01-26T09:00:00.000Z' } },
];
