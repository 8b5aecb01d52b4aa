// billing.payments.insert and .update: manual payments, recorded as events on the invoice stream (the consistency boundary).
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { PaymentInsertRequest, PaymentInsertResponse, PaymentUpdateRequest, PaymentUpdateResponse } from '../../contract/schemas/billing-invoices.ts';
import { isoDate } from '../../clock.ts';

import { recentInvoice, visibleInvoice } from '../../queries/billing/invoices.ts';
import { recentPayment, visiblePayment } from '../../queries/billing/payments.ts';
import type { LogPosition } from '../../eventstore/port.ts';
import { invoices } from './handlers.ts';
import { readVisibleInvoice } from './invoices.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPaymentsProjection } from '../../projections/billing/payments.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

function notInFuture(ctx: RequestContext, date: string | undefined): void {
  if (date !== undefined && date > isoDate(ctx.now))
    throw billingErrors.error('received_on_in_future', 'A payment cannot be received in the future.', { issues: [{ path: 'received_on', message: 'after today' }] });
}

// After a write at `position` (its invoice was found visible first), the documents its projection commits wrote are the answer.
async function paymentAndInvoice(ctx: RequestContext, paymentId: string, invoiceId: string, position: LogPosition | null) {
  const knex = ctx.services.knex;
  return {
    payment: recentPayment(knex, paymentId, position) ?? (await visiblePayment(ctx, paymentId)),
    invoice: recentInvoice(knex, invoiceId, position) ?? (await visibleInvoice(ctx, invoiceId)),
  };
}

/** billing.payments.insert */
export const paymentsInsert = operation({
  id: 'billing.payments.insert',
  examples: {
    request: {
      invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
      amount: 12000,
      currency: 'GBP',
      method: 'bank_transfer',
      reference: 'BACS 4411',
      received_on: '2026-01-15',
    },
    response: {
      payment: {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
        amount: 12000,
        currency: 'GBP',
        method: 'bank_transfer',
        reference: 'BACS 4411',
        received_on: '2026-01-15',
        status: 'recorded',
        void_reason: 'Issued in error',
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
      invoice: {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        number: 'INV-2026-0042',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
        status: 'draft',
        currency: 'GBP',
        lines: [
          {
            kind: 'manual',
            description: 'Monthly platform fee',
            quantity: 1,
            unit_amount: 12000,
            amount: 12000,
          },
        ],
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
      },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Records a manual payment against an open or uncollectible invoice; partial payments are allowed.',
  description: 'More than amount_remaining is 409; a currency other than the invoice\'s is 400. The payment that brings amount_remaining to 0 also marks the invoice paid.',
  request: PaymentInsertRequest,
  response: PaymentInsertResponse,
  error: 'billing.PaymentInsertError',
  errors: billingErrors.list('invalid_request', 'invoice_not_found', 'invoice_not_payable', 'amount_exceeds_remaining', 'currency_mismatch', 'received_on_in_future', 'concurrency_conflict'),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoicesProjection, billingPaymentsProjection],
  async handle(ctx, req) {
    const { loaded, ref } = await readVisibleInvoice(ctx, req.invoice_id);
    notInFuture(ctx, req.received_on);
    const paymentId = ctx.ids.next();
    const { invoice_id: _i, ...details } = req;
    const res = await invoices.run(ctx, ref.invoice_id, { type: 'RecordPayment', data: { ...details, payment_id: paymentId } }, { orgId: ref.organization_id, loaded });
    await ctx.readYourWrites();
    return paymentAndInvoice(ctx, paymentId, ref.invoice_id, res.position);
  },
});

/** billing.payments.update */
export const paymentsUpdate = operation({
  id: 'billing.payments.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70', reason: 'Agreed with the customer by phone' },
    response: {
      payment: {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
        amount: 12000,
        currency: 'GBP',
        method: 'bank_transfer',
        reference: 'BACS 4411',
        received_on: '2026-01-15',
        status: 'recorded',
        void_reason: 'Issued in error',
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
      invoice: {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        number: 'INV-2026-0042',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
        status: 'draft',
        currency: 'GBP',
        lines: [
          {
            kind: 'manual',
            description: 'Monthly platform fee',
            quantity: 1,
            unit_amount: 12000,
            amount: 12000,
          },
        ],
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
      },
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Edits or voids a manually recorded payment, with a reason; each change is an event on the invoice.',
  description: 'Amounts change and payments are voided only while the invoice is open or uncollectible (paid and void are final); method, reference and date can always be corrected.',
  request: PaymentUpdateRequest,
  response: PaymentUpdateResponse,
  error: 'billing.PaymentUpdateError',
  errors: billingErrors.list('invalid_request', 'payment_not_found', 'payment_voided', 'invoice_final', 'amount_exceeds_remaining', 'received_on_in_future', 'concurrency_conflict'),
  access: 'billing_staff',
  write: true,
  readModels: [billingInvoicesProjection, billingPaymentsProjection],
  async handle(ctx, req) {
    const payment = await visiblePayment(ctx, req.id);
    notInFuture(ctx, req.received_on);
    const { id, void: voiding, reason, ...changes } = req;
    const res = await invoices.run(
      ctx,
      payment.invoice_id,
      voiding ? { type: 'VoidPayment', data: { payment_id: id, reason } } : { type: 'UpdatePayment', data: { payment_id: id, changes } },
      { orgId: payment.organization_id, reason },
    );
    await ctx.readYourWrites();
    return paymentAndInvoice(ctx, id, payment.invoice_id, res.position);
  },
});

/** Write operations of payments. */
export const billingPaymentCommands = [paymentsInsert, paymentsUpdate];
