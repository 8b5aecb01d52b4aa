// billing.messages.list and the reads of billing_messages (written by projections/billing/messages.ts): the customer page,
// the outbox, the messages worker's work list and Needs attention.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { MessageListRequest, MessageListResponse } from '../../contract/schemas/billing-documents.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { MessageDoc } from '../../projections/billing/messages.ts';
import { documentPage } from '../pagination.ts';

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
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', transport: 'smtp', status: 'pending' },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
          customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
          invoice_id: '019315d2-5c20-7d9b-8d8a-33f698daf185',
          kind: 'invoice_finalized',
          subject: { type: 'invoice', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
          occasion: 'occasion',
          to: '2026-01-15T09:30:00.000Z',
          subject_line: 'subject line',
          payment_url: 'payment url',
          status: 'pending',
          attempts: 1,
          transport: null,
          last_error: 'last error',
          response: 'response',
          next_attempt_at: null,
          created_at: '2026-01-15T09:30:00.000Z',
          delivered_at: null,
          failed_at: null,
          updated_at: '2026-01-15T09:30:00.000Z',
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
