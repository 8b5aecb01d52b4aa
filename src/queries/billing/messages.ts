// billing.messages.list and the reads of billing_messages (written by projections/billing/messages.ts): the customer page,
// the outbox, the messages worker's work list and Needs attention.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { MessageListRequest, MessageListResponse } from '../../contract/schemas/billing-documents.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { MessageDoc } from '../../projections/billing/messages.ts';
import { documentPage } from '../pagination.ts';
import { exampleCustomer, exampleIds, exampleOpenInvoice, examplePaymentUrl } from '../../contract/examples/billing.ts';

/** Which of `ids` are messages already decided. */
export async function existingMessages(knex: Knex, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) for (const id of (await knex('billing_messages').whereIn('id', ids.slice(i, i + 1000)).pluck('id')) as string[]) found.add(id);
  return found;
}

/** Messages whose delivery is due by `now` (never tried, or their retry time reached), oldest first. */
export async function dueMessages(knex: Knex, now: Date, limit = 500): Promise<MessageDoc[]> {
  const rows = await knex('billing_messages').where({ status: 'pending' })
    .andWhere((q) => {
      void q.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', now);
    })
    .orderBy(['created_at', 'id']).limit(limit).pluck('doc');
  return rows as MessageDoc[];
}

/** Messages given up after their last retry (Needs attention), oldest first. */
export async function failedMessages(knex: Knex, cap: number): Promise<MessageDoc[]> {
  return (await knex('billing_messages').where({ status: 'failed' }).orderBy(['created_at', 'id']).limit(cap).pluck('doc')) as MessageDoc[];
}

/** billing.messages.list */
export const messagesList = operation({
  id: 'billing.messages.list', surface: 'core', tags: ['Billing'], summary: 'Lists customer emails: what, to whom, when and how delivery went, oldest first.',
  examples: {
    request: { customer_id: exampleIds.customer, status: 'delivered' },
    response: {
      items: [
        {
          id: '0193b0f1-2a3b-7c4d-8e5f-6a7b8c9d0e1f',
          organization_id: exampleIds.organization,
          customer_id: exampleIds.customer,
          invoice_id: exampleIds.invoice,
          kind: 'invoice_finalized',
          subject: { type: 'invoice', id: exampleIds.invoice },
          occasion: 'finalized',
          to: exampleCustomer.email,
          subject_line: `Invoice ${exampleOpenInvoice.number} from Example Platform Ltd: £120.00 due 14 Feb 2026`,
          payment_url: examplePaymentUrl,
          status: 'delivered',
          attempts: 1,
          transport: 'smtp',
          last_error: null,
          response: '250 2.0.0 OK queued',
          next_attempt_at: null,
          created_at: '2026-01-15T09:45:00.000Z',
          delivered_at: '2026-01-15T09:45:05.000Z',
          failed_at: null,
          updated_at: '2026-01-15T09:45:05.000Z',
        },
      ],
      pagination: null,
    },
  },
  description: 'Every email the service decided to send a customer (invoice finalized, payment received, credit note issued, payment reminders), with its delivery result. Without SMTP_URL the messages are kept in the outbox (transport `outbox`).',
  request: MessageListRequest, response: MessageListResponse, error: 'billing.MessageListError',
  errors: billingErrors.list('invalid_cursor'), access: 'billing_staff',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_messages').select('id', 'created_at', 'doc');
    if (req.customer_id) q.where('customer_id', req.customer_id);
    if (req.transport) q.where('transport', req.transport);
    if (req.status) q.where('status', req.status);
    const res = await documentPage<MessageDoc>(q, req);
    return { items: res.docs, pagination: res.pagination };
  },
});

/** Read operations of customer messages. */
export const billingMessageQueries = [messagesList];
