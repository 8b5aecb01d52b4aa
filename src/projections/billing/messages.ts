// billing_messages: every customer email (issue 28) as staff see it: what, to whom, when, and how delivery went.
// Read by queries/billing/messages.ts (the customer page, the outbox, the messages worker, Needs attention).
import { type MessageEvent, type MessageKind, messageCodec } from '../../domain/billing/message.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { ERASED } from '../../domain/personal.ts';

/** One customer message. */
export interface MessageDoc {
  id: string;
  organization_id: string;
  customer_id: string;
  invoice_id: string;
  kind: MessageKind;
  subject: { type: 'invoice' | 'payment' | 'credit_note'; id: string };
  occasion: string;
  to: string;
  subject_line: string;
  payment_url: string;
  /** pending: not delivered yet (next_attempt_at says when it is tried again); failed: given up after the last retry. */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  transport: 'smtp' | 'outbox' | null;
  last_error: string | null;
  response: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  failed_at: string | null;
  updated_at: string;
}

/** Builds billing_messages from the message streams. */
export const billingMessagesProjection = documentProjection({
  name: 'billing.messages',
  version: 1,
  tables: [
    documentTable<MessageDoc, MessageEvent>({
      table: 'billing_messages',
      events: messageCodec,
      columns: (d) => ({ organization_id: d.organization_id, customer_id: d.customer_id, status: d.status, transport: d.transport, next_attempt_at: d.next_attempt_at, created_at: d.created_at }),
      handlers: {
        MessageDecided: (_doc, d) => ({
          id: d.message_id, organization_id: d.organization_id, customer_id: d.customer_id, invoice_id: d.invoice_id, kind: d.kind, subject: d.subject, occasion: d.occasion,
          to: d.to, subject_line: d.subject_line, payment_url: d.payment_url, status: 'pending', attempts: 0, transport: null, last_error: null, response: null,
          next_attempt_at: null, created_at: d.decided_at, delivered_at: null, failed_at: null, updated_at: d.decided_at,
        }),
        MessageDelivered: (doc, d) => doc && { ...doc, status: 'delivered', attempts: d.attempt, transport: d.transport, response: d.response, next_attempt_at: null, delivered_at: d.delivered_at, updated_at: d.delivered_at },
        MessageDeliveryFailed: (doc, d) =>
          doc && { ...doc, status: d.next_attempt_at === null ? 'failed' : 'pending', attempts: d.attempt, last_error: d.error, next_attempt_at: d.next_attempt_at, failed_at: d.failed_at, updated_at: d.failed_at },
        // Erased with the customer (issue 32): the recipient and the server's answers go; a pending message is given up.
        MessageErased: (doc, d) =>
          doc && {
            ...doc, to: ERASED, last_error: doc.last_error === null ? null : ERASED, response: doc.response === null ? null : ERASED,
            ...(doc.status === 'pending' ? { status: 'failed' as const, next_attempt_at: null, failed_at: d.erased_at } : {}), updated_at: d.erased_at,
          },
      },
    }),
  ],
});
