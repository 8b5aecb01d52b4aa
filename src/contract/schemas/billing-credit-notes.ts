// Schemas of billing credit note requests, named as the spec names them.
import { z } from 'zod';
import { CurrencyCode, PageRequest, Timestamp, Uuid, page } from './common.ts';

/** Why a credit note is asked for. */
export const CreditNoteReason = z
  .enum(['duplicate', 'order_change', 'order_cancellation', 'product_unsatisfactory', 'fraudulent', 'other'])
  .describe('Why the credit is asked for.');
/** billing.CreditNoteRequestDetail.status */
export const CreditNoteRequestStatus = z.enum(['pending', 'approved', 'issued', 'rejected', 'cancelled']).describe('pending -> approved -> issued, or rejected | cancelled.');

const PositiveAmount = z.int().min(1).max(1e15).describe('Positive integer amount in minor units of the invoice currency.');
const Description = z.string().trim().min(1).max(2000).describe('What happened (1-2,000 characters).');

/** billing.credit-note-requests.insert request. */
export const CreditNoteRequestCreateRequest = z
  .strictObject({
    invoice_id: Uuid.describe('The finalized invoice to credit.'),
    amount: PositiveAmount,
    currency: CurrencyCode.describe('Must be the invoice currency.'),
    reason: CreditNoteReason,
    description: Description,
  })
  .meta({ id: 'billing.CreditNoteRequestCreateRequest' });

/** billing.credit-note-requests.update request: details while pending, or an action. */
export const CreditNoteRequestUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Credit note request id.'),
    action: z
      .enum(['approve', 'reject', 'cancel', 'issue'])
      .optional()
      .describe('approve, reject and issue: billing staff. cancel: the requesting organization or staff. issue applies the credit to the invoice.'),
    amount: PositiveAmount.optional().describe('While pending.'),
    reason: CreditNoteReason.optional().describe('While pending.'),
    description: Description.optional().describe('While pending.'),
    comment: z.string().trim().min(1).max(500).optional().describe('Why: kept with the change in the audit trail.'),
  })
  .meta({ id: 'billing.CreditNoteRequestUpdateRequest' });

const Actor = z.object({ type: z.enum(['user', 'staff', 'integration', 'system']), id: z.string() });

/** A credit note request (response of every credit note request operation). */
export const CreditNoteRequestDetail = z
  .object({
    id: Uuid,
    invoice_id: Uuid,
    invoice_number: z.string().nullable(),
    organization_id: Uuid,
    customer_id: Uuid,
    amount: PositiveAmount,
    currency: z.string(),
    reason: CreditNoteReason,
    description: z.string(),
    status: CreditNoteRequestStatus,
    requested_by: Actor,
    applied_to_invoice: z.int().nullable().describe('Once issued: the part that reduced the invoice\'s amount_remaining.'),
    credited_to_balance: z.int().nullable().describe('Once issued: the part that became customer credit (invoice already paid).'),
    created_at: Timestamp,
    updated_at: Timestamp,
    approved_at: Timestamp.nullable(),
    issued_at: Timestamp.nullable(),
    rejected_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
  })
  .meta({ id: 'billing.CreditNoteRequestDetail' });

/** billing.credit-note-requests.list request: filters and page. */
export const CreditNoteRequestListRequest = z
  .strictObject({
    ...PageRequest,
    invoice_id: Uuid.optional(),
    customer_id: Uuid.optional(),
    organization_id: Uuid.optional().describe('Billing staff: only this organization\'s requests.'),
    status: CreditNoteRequestStatus.optional(),
    reason: CreditNoteReason.optional(),
  })
  .meta({ id: 'billing.CreditNoteRequestListRequest' });

/** billing.credit-note-requests.list response. */
export const CreditNoteRequestPage = page(CreditNoteRequestDetail, 'billing.CreditNoteRequestPage');
