// billing_payments: one document per payment, built from invoice-stream events, read by queries/billing/payments.ts.
import { type InvoiceEvent, type PaymentMethod, invoiceCodec } from '../../domain/billing/invoice.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { replacing } from '../documents/declaration.ts';

/** The stored payment: exactly the billing.Payment body. */
export interface PaymentDoc {
  id: string;
  invoice_id: string;
  organization_id: string;
  customer_id: string;
  amount: number;
  currency: string;
  method: PaymentMethod;
  reference: string;
  received_on: string;
  status: 'recorded' | 'voided';
  void_reason: string | null;
  created_at: string;
  updated_at: string;
}

function paymentKey(_e: RecordedEvent, read: InvoiceEvent): string | null {
  return read.type === 'PaymentRecorded' || read.type === 'PaymentUpdated' || read.type === 'PaymentVoided' ? read.data.payment_id : null;
}

/** Builds billing_payments from the payment events of invoice streams. */
export const billingPaymentsProjection = documentProjection({
  name: 'billing.payments',
  version: 1,
  tables: [
    documentTable<PaymentDoc, InvoiceEvent>({
      table: 'billing_payments',
      events: invoiceCodec,
      keyOf: paymentKey,
      columns: (d) => ({ invoice_id: d.invoice_id, organization_id: d.organization_id, customer_id: d.customer_id, status: d.status, created_at: d.created_at }),
      handlers: {
        PaymentRecorded: replacing((d) => ({
          id: d.payment_id, invoice_id: d.invoice_id, organization_id: d.organization_id, customer_id: d.customer_id, amount: d.amount, currency: d.currency,
          method: d.method, reference: d.reference, received_on: d.received_on, status: 'recorded', void_reason: null, created_at: d.recorded_at, updated_at: d.recorded_at,
        })),
        PaymentUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        PaymentVoided: (doc, d) => doc && { ...doc, status: 'voided', void_reason: d.reason, updated_at: d.voided_at },
      },
    }),
  ],
});
