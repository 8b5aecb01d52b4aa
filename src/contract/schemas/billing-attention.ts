// billing.attention.list: what needs a person, one row per item, each with its cause and where it is resolved.
import { z } from 'zod';
import { ForwardPagination, Money, PageRequest, Timestamp, Uuid } from './common.ts';

/** The kinds of item, in the order the console shows them. */
export const ATTENTION_KINDS = ['refund_due', 'unrecorded_provider_charge', 'failed_collection', 'undelivered_email', 'usage_month_refused', 'held_usage', 'usage_correction_due', 'stalled_read_model', 'unreadable_stream', 'webhook_endpoint_failing'] as const;

export const AttentionKind = z.enum(ATTENTION_KINDS).describe(
  'refund_due: a provider charge the invoice did not (fully) take, owed back to the customer (billing.refunds-due.list); ' +
    'unrecorded_provider_charge: a charge reconciliation found at the provider that the service never recorded; ' +
    'failed_collection: automatic collection of an open invoice was declined (retrying, or stopped after the last retry); ' +
    'undelivered_email: a customer email (invoice, receipt, credit note, reminder) the SMTP server refused or could not take on every retry; ' +
    'usage_month_refused: the usage invoice worker cannot invoice a subscription month (unrateable orders, no customer...); ' +
    'held_usage: orders staff held out of a month\'s invoice because they cannot be rated, not fixed yet; ' +
    'usage_correction_due: an invoice holding orders staff voided or replaced after it was generated, whose re-rating still differs (billing.invoices.rerate.apply corrects it); ' +
    'stalled_read_model: a read model stopped at an event it cannot apply, or is far behind the log; ' +
    'unreadable_stream: a stream whose commands answer 409 stream_unreadable; ' +
    'webhook_endpoint_failing: a webhook endpoint the service disabled because every delivery failed for 3 days.',
);

export const AttentionListRequest = z
  .strictObject({ kind: AttentionKind.optional().describe('Only items of this kind.'), ...PageRequest })
  .meta({ id: 'billing.AttentionListRequest' });

export const AttentionItem = z
  .object({
    kind: AttentionKind,
    key: z.string().describe('Stable id of the item (kind and subject): the same problem keeps its key until it is resolved.'),
    summary: z.string().describe('One line: what is wrong.'),
    cause: z.string().describe('Why, as far as the service knows.'),
    resolve: z.string().describe('What a person does about it.'),
    href: z.string().describe('The console page where it is resolved.'),
    customer: z.object({ id: Uuid, name: z.string() }).nullable(),
    invoice_id: Uuid.nullable(),
    amount: Money.nullable().describe('The money concerned, when there is one.'),
    since: Timestamp.describe('Since when it needs attention.'),
  })
  .meta({ id: 'billing.AttentionItem' });

export const AttentionListResponse = z
  .object({
    items: z.array(AttentionItem).describe('This page of items, oldest first.'),
    pagination: ForwardPagination.nullable().describe('null on the last page.'),
    counts: z
      .object({ total: z.int(), by_kind: z.array(z.object({ kind: AttentionKind, count: z.int() })) })
      .describe('Every item of every kind (whatever `kind` asks for), each kind counted up to 1,000.'),
  })
  .meta({ id: 'billing.AttentionList', description: 'Items that need a person and their counts.' });
