// Schemas of refunds due (issue 26, section 2): provider charges taken but not (fully) applied, and how staff resolve them.
import { z } from 'zod';
import { PageRequest, Timestamp, Uuid, page } from './common.ts';

/** A provider's charge reference (what the provider issued: ch_..., py_...). */
export const ChargeRef = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'must be 1-200 letters, digits, _ . : or -').describe("The provider's charge reference.");
const Reason = z.string().trim().min(1).max(500).describe('Why (required): kept on the event and shown in the history.');

/** One charge due back (or resolved, in a resolution's answer). */
export const RefundDue = z
  .object({
    charge_ref: ChargeRef,
    provider: z.string().nullable().describe('The provider that reported it, when reconciliation found it.'),
    customer: z.object({ id: Uuid, name: z.string().nullable() }).nullable().describe('Whose money it is; null when the provider named nobody.'),
    organization_id: Uuid.nullable(),
    invoice: z.object({ id: Uuid, number: z.string().nullable() }).nullable().describe('The invoice it was charged for, when known.'),
    amount_charged: z.int().describe('What the provider took, minor units.'),
    amount_applied: z.int().describe('What of it was recorded as a payment of its invoice.'),
    amount_due: z.int().describe('charged - applied: what is owed back to the customer (0 once resolved).'),
    currency: z.string(),
    why: z
      .object({ code: z.enum(['not_applied', 'partly_applied', 'unknown_at_service']), text: z.string() })
      .nullable()
      .describe('not_applied: the invoice no longer owed it; partly_applied: it owed less; unknown_at_service: found only at the provider. Null once nothing is due.'),
    since: Timestamp.nullable().describe('Since when it is due back.'),
    status: z.enum(['due', 'resolving', 'refunded', 'applied', 'settled']).describe('due; resolving (a resolution in flight); refunded or applied (resolved); settled (nothing due).'),
    resolution: z
      .object({
        kind: z.enum(['refund', 'apply']),
        amount: z.int(),
        reason: z.string(),
        at: Timestamp,
        refund_ref: z.string().nullable().describe("The provider's refund (refund)."),
        invoice_id: Uuid.nullable().describe('The invoice it was applied to (apply).'),
        payment_id: Uuid.nullable().describe('The payment recorded on that invoice (apply).'),
      })
      .nullable(),
  })
  .meta({ id: 'billing.RefundDue' });
/** One charge due back, as answered. */
export type RefundDueItem = z.output<typeof RefundDue>;

/** billing.refunds-due.list request. */
export const RefundDueListRequest = z
  .strictObject({ ...PageRequest, customer_id: Uuid.optional().describe("Only this customer's charges.") })
  .meta({ id: 'billing.RefundDueListRequest' });

/** billing.refunds-due.list response: oldest due first. */
export const RefundDueListResponse = page(RefundDue, 'billing.RefundDueListResponse');

/** billing.refunds-due.refund request. */
export const RefundDueRefundRequest = z.strictObject({ charge_ref: ChargeRef, reason: Reason }).meta({ id: 'billing.RefundDueRefundRequest' });

/** billing.refunds-due.apply request. */
export const RefundDueApplyRequest = z
  .strictObject({ charge_ref: ChargeRef, invoice_id: Uuid.describe('An open invoice of the same customer, in the same currency, owing at least the amount due.'), reason: Reason })
  .meta({ id: 'billing.RefundDueApplyRequest' });

/** billing.provider-charges.reconcile (internal) request: one pass, from the checkpoint. */
export const ReconcileRequest = z.strictObject({}).meta({ id: 'billing.ReconcileRequest' });

/** billing.provider-charges.reconcile (internal) answer: what one pass compared and found. */
export const ReconcileResult = z
  .object({
    listed: z.int().describe("The provider's charges compared (made in [since, until))."),
    found: z.array(ChargeRef).describe('Charges recorded as found only at the provider.'),
    until: Timestamp.nullable().describe('The checkpoint after the pass: the next one lists from here.'),
  })
  .meta({ id: 'billing.ReconcileResult' });
