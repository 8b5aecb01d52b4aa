// Requests and answers of billing's internal operations (surface `internal`): called in process by workers, the payment webhook
// and the payment page through invoke, never over HTTP, so they are in no OpenAPI document.
import { z } from 'zod';
import { Uuid } from './common.ts';

/** billing.invoices.generate-due: one subscription's usage invoice of one ended month (the usage invoice worker). */
export const UsageInvoiceDueRequest = z.strictObject({ subscription_id: Uuid, period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/) });
export const UsageInvoiceDueResult = z.object({ invoice_id: Uuid });

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
