// Requests and answers of billing's internal operations (surface `internal`): called in process by workers, the payment webhook
// and the payment page through invoke, never over HTTP, so they are in no OpenAPI document.
import { z } from 'zod';
import { Uuid } from './common.ts';
import { CurrencyExchangeRateInsertRequest } from './billing-catalogue.ts';

/** billing.invoices.generate-due: one subscription's usage invoice of one ended month (the usage invoice worker). */
export const UsageInvoiceDueRequest = z.strictObject({ subscription_id: Uuid, period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/) });
export const UsageInvoiceDueResult = z.object({
  invoice_id: Uuid,
  /** The month's invoice, its next supplementary invoice, or nothing new to bill (the month's last document). */
  kind: z.enum(['regular', 'supplementary', 'unchanged']),
});
/** billing.usage.refusals.record: why the worker could not invoice a subscription month (issue 26). */
export const UsageRefusalRecordRequest = z.strictObject({
  subscription_id: Uuid,
  period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
  code: z.string().min(1).max(100),
  message: z.string().max(2000),
  issues: z.array(z.strictObject({ path: z.string().max(300), message: z.string().max(2000) })).max(100),
});

/** billing.invoices.collect: one open invoice of an auto-collected customer, charged to its default method when due. */
export const InvoiceCollectRequest = z.strictObject({
  invoice_id: Uuid,
  currency: z.string().min(3).max(3),
  method: z.strictObject({ id: z.string().min(1).max(200), type: z.enum(['card', 'bank_debit']), provider_ref: z.string().min(1).max(500) }),
});
export const InvoiceCollectResult = z.object({ outcome: z.enum(['charged', 'declined', 'in_progress', 'not_due']) });

const Ref = z.string().min(1).max(1000);

/** billing.payment-notifications.apply: a provider notification whose signature the webhook verified (a hint: the provider's record is applied). */
export const PaymentNotificationApplyRequest = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('setup'), notification_id: Ref, ref: Ref, status: Ref,
    owner: z.strictObject({ setup_id: Ref, customer_id: Ref, organization_id: Ref }),
  }),
  z.strictObject({
    kind: z.literal('payment'), notification_id: Ref, ref: Ref, status: Ref,
    owner: z.strictObject({ attempt_id: Ref, invoice_id: Ref, customer_id: Ref, organization_id: Ref }),
  }),
]);
/** The provider record's status (the one applied) and what the notification claimed. */
export const PaymentNotificationApplied = z.object({ status: z.string(), claimed: z.string() });

/** billing.payment-attempts.resume: asks the provider about a pending page attempt whose notification may be lost. */
export const PaymentAttemptResumeRequest = z.strictObject({
  attempt_id: Uuid,
  /** Answer only once the invoice, payment and statement read models show what was applied (the result page); false inside another charge's start. */
  visible: z.boolean(),
});
export const PaymentAttemptResumed = z.object({ applied: z.boolean() });

/** The payment page of a billing customer (`/billing/pay/<customer id>`): the signed-in member's organization must own it. */
export const PaymentPageRequest = z.strictObject({ customer_id: Uuid });
/** What the payment page shows: the customer, its open invoices still owed and its saved methods. */
export const PaymentPageView = z.object({
  customer: z.object({ id: Uuid, name: z.string(), organization_id: z.string() }),
  invoices: z.array(z.object({ invoice_id: Uuid, number: z.string().nullable(), due_date: z.string(), amount_remaining: z.number().int(), currency: z.string() })),
  methods: z.array(z.object({ id: z.string(), type: z.enum(['card', 'bank_debit']), brand: z.string().nullable(), last4: z.string(), bank_name: z.string().nullable() })),
  default_payment_method_id: z.string().nullable(),
});

/** billing.payment-attempts.pay: a payment form sent (its attempt id is made with the form, so sending it again continues it). */
export const PaymentAttemptPayRequest = z.strictObject({
  customer_id: Uuid,
  invoice_id: Uuid,
  attempt_id: Uuid,
  /** A saved method's id, or `new` (a new card on the provider's page); another value is payment_method_not_found. */
  method: z.string().max(200),
  /** Where the provider returns the payer: the attempt's result page. */
  return_url: z.string().min(1).max(2000),
});
/** Where the payer goes next: the provider's page, or the attempt's result page. */
export const PaymentAttemptPayResult = z.object({ redirect: z.string() });

/** billing.payment-attempts.get: a payment-page attempt's outcome (after asking the provider about one still pending). */
export const PaymentAttemptGetRequest = z.strictObject({ customer_id: Uuid, attempt_id: Uuid });
export const PaymentAttemptView = z.object({
  status: z.enum(['none', 'pending', 'succeeded', 'failed']),
  applied: z.boolean(),
  amount: z.number().int(),
  currency: z.string(),
  invoice_number: z.string().nullable(),
  failure_message: z.string().nullable(),
  /** Still pending past its hold: the invoice may be paid again; a late confirmation is applied or becomes a refund due. */
  expired: z.boolean(),
});

/** billing.customer-access.review: the overdue policy applied to one customer (the overdue worker). */
export const CustomerAccessReviewRequest = z.strictObject({ customer_id: Uuid });
export const CustomerAccessReviewed = z.object({ changed: z.enum(['suspended', 'restored']).nullable() });

/** billing.attachments.expire / billing.attachments.purge: one stale upload, or one removed attachment past its retention. */
export const AttachmentExpiryRequest = z.strictObject({ attachment_id: Uuid, object_key: z.string().min(1).max(1000) });
export const AttachmentExpiryDone = z.object({ changed: z.boolean() });

/** billing.exchange-rates.import (internal): the rows of a rates file (`core-server rates import`), each checked like billing.currencies.exchange-rates.insert. */
export const ExchangeRatesImportRequest = z.strictObject({ rows: z.array(CurrencyExchangeRateInsertRequest).max(100_000) });
export const ExchangeRatesImported = z.object({ recorded: z.number().int(), unchanged: z.number().int() });
