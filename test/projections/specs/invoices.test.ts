// Invoice-stream read models, given one invoice's life: the invoice and payment bodies, statement lines and receivables, credit note requests.
import { backends } from '../../support/db.ts';
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import type { CreditNoteRequestEvent } from '../../../src/domain/billing/credit-note-request.ts';
import { billingInvoicesProjection } from '../../../src/projections/billing/invoices.ts';
import { billingPaymentsProjection } from '../../../src/projections/billing/payments.ts';
import { billingStatementsProjection } from '../../../src/projections/billing/statements.ts';
import { billingCreditNoteRequestsProjection } from '../../../src/projections/billing/credit-note-requests.ts';
import { SPEC_ACTOR, on, projectionSpec } from '../spec.ts';
import { CNR, CNR2, CUS, INV, LINES, NUMBER, ORG, P1, P2, P3, eventId, opened, requestIssued, settled } from './fixtures.ts';

const owner = { organization_id: ORG, customer_id: CUS, currency: 'GBP' };
const payment = { invoice_id: INV, ...owner };
const total = (date: string, net: number, itemEffect: number) => ({
  id: `${CUS}/GBP/${date}/2026-02-15`, customer_id: CUS, currency: 'GBP', entry_date: date, due_date: '2026-02-15', net, item_effect: itemEffect, balance_credit: 0,
});
const line = { customer_id: CUS, organization_id: ORG, currency: 'GBP', invoice_id: INV, invoice_number: NUMBER, payment_id: null, debit: 0, credit: 0, item_effect: 0, balance_credit: 0 };

for (const backend of backends()) {
  describe(`billing invoice projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.invoices and billing.payments: a settled invoice with its amounts and dates; each payment as last corrected or voided', async () => {
      await spec.given(billingInvoicesProjection, on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled])).then({
        billing_invoices: [
          {
            id: INV, number: NUMBER, ...owner, status: 'paid', lines: LINES, subtotal: 5000, total: 5000, amount_paid: 4500, amount_credited: 500, amount_credited_to_balance: 0,
            amount_remaining: 0, memo: 'Thanks', metadata: { po: '42' }, issue_date: '2026-01-16', due_date: '2026-02-15', created_at: '2026-01-15T09:00:00.000Z',
            updated_at: '2026-01-27T09:00:00.000Z', finalized_at: '2026-01-16T09:00:00.000Z', paid_at: '2026-01-27T09:00:00.000Z', voided_at: null, marked_uncollectible_at: null,
          },
        ],
      });
      await spec.given(billingPaymentsProjection, on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled])).then({
        billing_payments: [
          {
            id: P1, ...payment, amount: 2500, method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20', status: 'recorded', void_reason: null,
            created_at: '2026-01-20T09:00:00.000Z', updated_at: '2026-01-21T09:00:00.000Z',
          },
          {
            id: P2, ...payment, amount: 1000, method: 'cheque', reference: 'CHQ 7', received_on: '2026-01-22', status: 'voided', void_reason: 'bounced',
            created_at: '2026-01-22T09:00:00.000Z', updated_at: '2026-01-25T09:00:00.000Z',
          },
          {
            id: P3, ...payment, amount: 2000, method: 'card', reference: 'CARD 9', received_on: '2026-01-27', status: 'recorded', void_reason: null,
            created_at: '2026-01-27T09:00:00.000Z', updated_at: '2026-01-27T09:00:00.000Z',
          },
        ],
      });
    });

    it('billing.invoices and billing.payments: an open invoice owes what is left after payments', async () => {
      await spec.given(billingInvoicesProjection, on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled.slice(0, 2)])).then({
        billing_invoices: [
          {
            id: INV, number: NUMBER, ...owner, status: 'open', lines: LINES, subtotal: 5000, total: 5000, amount_paid: 2500, amount_credited: 0, amount_credited_to_balance: 0,
            amount_remaining: 2500, memo: 'Thanks', metadata: { po: '42' }, issue_date: '2026-01-16', due_date: '2026-02-15', created_at: '2026-01-15T09:00:00.000Z',
            updated_at: '2026-01-21T09:00:00.000Z', finalized_at: '2026-01-16T09:00:00.000Z', paid_at: null, voided_at: null, marked_uncollectible_at: null,
          },
        ],
      });
      await spec.given(billingPaymentsProjection, on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled.slice(0, 2)])).then({
        billing_payments: [
          {
            id: P1, ...payment, amount: 2500, method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20', status: 'recorded', void_reason: null,
            created_at: '2026-01-20T09:00:00.000Z', updated_at: '2026-01-21T09:00:00.000Z',
          },
        ],
      });
    });

    it('billing.invoices and billing.payments: charge attempts on the invoice stream (issue 26) change no row; the payments do', async () => {
      const attempt = { ...payment, attempt_id: 'att-1', provider_key: 'att-1', amount: 5000, started_by: 'payment_page' as const };
      const attempts: InvoiceEvent[] = [
        { type: 'ChargeAttemptStarted', data: { ...attempt, started_at: '2026-01-19T09:00:00.000Z', expires_at: '2026-01-19T09:15:00.000Z' } },
        { type: 'ChargeAttemptEnded', data: { ...payment, attempt_id: 'att-1', outcome: 'failed', charge_ref: 'ch-1', charged: 0, applied: 0, code: 'card_declined', ended_at: '2026-01-19T09:00:01.000Z' } },
      ];
      const events = on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...attempts, ...settled.slice(0, 2)]);
      await spec.given(billingInvoicesProjection, events).then({
        billing_invoices: [
          {
            id: INV, number: NUMBER, ...owner, status: 'open', lines: LINES, subtotal: 5000, total: 5000, amount_paid: 2500, amount_credited: 0, amount_credited_to_balance: 0,
            amount_remaining: 2500, memo: 'Thanks', metadata: { po: '42' }, issue_date: '2026-01-16', due_date: '2026-02-15', created_at: '2026-01-15T09:00:00.000Z',
            updated_at: '2026-01-21T09:00:00.000Z', finalized_at: '2026-01-16T09:00:00.000Z', paid_at: null, voided_at: null, marked_uncollectible_at: null,
          },
        ],
      });
      await spec.given(billingPaymentsProjection, events).then({
        billing_payments: [
          {
            id: P1, ...payment, amount: 2500, method: 'bank_transfer', reference: 'BACS 1', received_on: '2026-01-20', status: 'recorded', void_reason: null,
            created_at: '2026-01-20T09:00:00.000Z', updated_at: '2026-01-21T09:00:00.000Z',
          },
        ],
      });
    });

    it('billing.statements: one dated line per invoice, payment (as corrected), bounce and credit; the receivable is settled', async () => {
      // Given events 1-3 open the invoice; 7 voids the cheque and 8 issues the credit (their lines are keyed by event id).
      await spec.given(billingStatementsProjection, on<InvoiceEvent>(`invoice-${INV}`, [...opened, ...settled])).then(
        {
          billing_receivables: [{ id: INV, ...owner, number: NUMBER, status: 'paid', issue_date: '2026-01-16', due_date: '2026-02-15', total: 5000, amount_remaining: 0 }],
          billing_ledger_entries: [
            { ...line, id: `event:${eventId(7)}`, kind: 'adjustment', date: '2026-01-25', payment_id: P2, description: `Payment CHQ 7 reversed on ${NUMBER}`, debit: 1000, item_effect: 1000 },
            { ...line, id: `event:${eventId(8)}`, kind: 'credit', date: '2026-01-26', description: `Credit note on ${NUMBER} (order change)`, credit: 500, item_effect: -500 },
            { ...line, id: `invoice:${INV}`, kind: 'invoice', date: '2026-01-16', description: `Invoice ${NUMBER}`, debit: 5000, item_effect: 5000 },
            { ...line, id: `payment:${P1}`, kind: 'payment', date: '2026-01-20', payment_id: P1, description: `Payment BACS 1 (bank transfer) for ${NUMBER}`, credit: 2500, item_effect: -2500 },
            { ...line, id: `payment:${P2}`, kind: 'payment', date: '2026-01-22', payment_id: P2, description: `Payment CHQ 7 (cheque) for ${NUMBER}`, credit: 1000, item_effect: -1000 },
            { ...line, id: `payment:${P3}`, kind: 'payment', date: '2026-01-27', payment_id: P3, description: `Payment CARD 9 (card) for ${NUMBER}`, credit: 2000, item_effect: -2000 },
          ],
          // The lines summed per day (and the invoice's due date): the corrected payment counts at its new amount only.
          billing_ledger_totals: [
            total('2026-01-16', 5000, 5000),
            total('2026-01-20', -2500, -2500),
            total('2026-01-22', -1000, -1000),
            total('2026-01-25', 1000, 1000),
            total('2026-01-26', -500, -500),
            total('2026-01-27', -2000, -2000),
          ],
        },
        { without: ['seq'] },
      );
    });

    it('billing.credit-note-requests: an issued request with its final amount and dates; a rejected one', async () => {
      await spec.given(billingCreditNoteRequestsProjection, [
        ...on<CreditNoteRequestEvent>(`creditnoterequest-${CNR}`, requestIssued),
        ...on<CreditNoteRequestEvent>(`creditnoterequest-${CNR2}`, [
          {
            type: 'CreditNoteRequested',
            data: {
              credit_note_request_id: CNR2, invoice_id: INV, invoice_number: NUMBER, ...owner, amount: 500, reason: 'duplicate', description: 'Billed twice',
              requested_at: '2026-01-23T09:00:00.000Z',
            },
          },
          { type: 'CreditNoteRequestRejected', data: { rejected_at: '2026-01-24T12:00:00.000Z' } },
        ]),
      ]).then({
        billing_credit_note_requests: [
          {
            id: CNR, invoice_id: INV, invoice_number: NUMBER, ...owner, amount: 400, reason: 'order_change', description: 'One panel not painted', status: 'issued',
            requested_by: SPEC_ACTOR, applied_to_invoice: 400, credited_to_balance: 0, created_at: '2026-01-23T09:00:00.000Z', updated_at: '2026-01-26T09:00:00.000Z',
            approved_at: '2026-01-25T09:00:00.000Z', issued_at: '2026-01-26T09:00:00.000Z', rejected_at: null, cancelled_at: null,
          },
          {
            id: CNR2, invoice_id: INV, invoice_number: NUMBER, ...owner, amount: 500, reason: 'duplicate', description: 'Billed twice', status: 'rejected',
            requested_by: SPEC_ACTOR, applied_to_invoice: null, credited_to_balance: null, created_at: '2026-01-23T09:00:00.000Z', updated_at: '2026-01-24T12:00:00.000Z',
            approved_at: null, issued_at: null, rejected_at: '2026-01-24T12:00:00.000Z', cancelled_at: null,
          },
        ],
      });
    });
  });
}
