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
