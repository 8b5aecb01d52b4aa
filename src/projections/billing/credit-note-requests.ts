// billing_credit_note_requests: one document per request, read by queries/billing/credit-note-requests.ts.
import { type CreditNoteRequestEvent, type CreditNoteRequestStatus, creditNoteRequestCodec } from '../../domain/billing/credit-note-request.ts';
import type { CreditNoteReason } from '../../domain/billing/invoice.ts';
import type { Actor } from '../../eventstore/port.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored request: exactly the billing.CreditNoteRequestDetail body. */
export interface CreditNoteRequestDoc {
  id: string;
  invoice_id: string;
  invoice_number: string | null;
  organization_id: string;
  customer_id: string;
  amount: number;
  currency: string;
  reason: CreditNoteReason;
  description: string;
  status: CreditNoteRequestStatus;
  requested_by: Actor;
  applied_to_invoice: number | null;
  credited_to_balance: number | null;
  created_at: string;
  updated_at: string;
  approved_at: string | null;
  issued_at: string | null;
  rejected_at: string | null;
  cancelled_at: string | null;
}

/** Builds billing_credit_note_requests. */
export const billingCreditNoteRequestsProjection = documentProjection({
  name: 'billing.credit-note-requests',
  version: 1,
  tables: [
    documentTable<CreditNoteRequestDoc, CreditNoteRequestEvent>({
      table: 'billing_credit_note_requests',
      events: creditNoteRequestCodec,
      columns: (d) => ({ invoice_id: d.invoice_id, organization_id: d.organization_id, customer_id: d.customer_id, status: d.status, reason: d.reason, created_at: d.created_at }),
      handlers: {
        CreditNoteRequested: (_doc, d, e) => ({
          id: d.credit_note_request_id, invoice_id: d.invoice_id, invoice_number: d.invoice_number, organization_id: d.organization_id, customer_id: d.customer_id,
          amount: d.amount, currency: d.currency, reason: d.reason, description: d.description, status: 'pending', requested_by: e.metadata.actor,
          applied_to_invoice: null, credited_to_balance: null, created_at: d.requested_at, updated_at: d.requested_at,
          approved_at: null, issued_at: null, rejected_at: null, cancelled_at: null,
        }),
        CreditNoteRequestUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        CreditNoteRequestApproved: (doc, d) => doc && { ...doc, status: 'approved', approved_at: d.approved_at, updated_at: d.approved_at },
        CreditNoteRequestRejected: (doc, d) => doc && { ...doc, status: 'rejected', rejected_at: d.rejected_at, updated_at: d.rejected_at },
        CreditNoteRequestCancelled: (doc, d) => doc && { ...doc, status: 'cancelled', cancelled_at: d.cancelled_at, updated_at: d.cancelled_at },
        CreditNoteRequestIssued: (doc, d) =>
          doc && { ...doc, status: 'issued', applied_to_invoice: d.applied_to_invoice, credited_to_balance: d.credited_to_balance, issued_at: d.issued_at, updated_at: d.issued_at },
      },
    }),
  ],
});
