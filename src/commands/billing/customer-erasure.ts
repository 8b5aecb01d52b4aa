// billing.customers.erase (issue 32): crypto-shreds a customer's personal data. The keys go first, then each note and
// attachment records its erasure, then the customer: its DataSubjectErased is the last step, so a customer whose stream
// shows it is erased completely, and a retry after a crash anywhere before it deletes the (already deleted) keys again
// and appends what is missing. What tax law keeps on issued invoices waits for the retention worker.
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { CustomerEraseRequest, Erasure } from '../../contract/schemas/billing-erasure.ts';
import { customerSubjects } from '../../domain/personal.ts';
import { getCustomerDoc, visibleCustomer } from '../../queries/billing/customers.ts';
import { lastIssueDate } from '../../queries/billing/invoices.ts';
import { organizationSubjects } from '../../queries/billing/personal-subjects.ts';
import { attachments, customers, messages, notes } from './handlers.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { billingNotesProjection } from '../../projections/billing/notes.ts';
import { billingAttachmentsProjection } from '../../projections/billing/attachments.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { billingMessagesProjection } from '../../projections/billing/messages.ts';
import { billingEventsProjection } from '../../projections/billing/events.ts';
import { billingWebhookOutboxProjection } from '../../projections/billing/webhook-outbox.ts';
import { analyticsEventsProjection } from '../../projections/analytics/events.ts';
import { analyticsReferers, compactFreedSpace, personalValues, scrubTraces } from '../platform/erasure-traces.ts';
import { forgetCustomerDocuments } from '../../queries/billing/documents.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPersonalSubjectsProjection } from '../../projections/billing/personal-subjects.ts';
import { exampleCreditNoteRequest, exampleIds } from '../../contract/examples/billing.ts';

// Every read model that rewrites rows on an erasure: the erasure answers once they did (and only then compacts).
const ERASING_MODELS = [billingCustomersProjection, billingNotesProjection, billingAttachmentsProjection, billingMessagesProjection, billingEventsProjection, billingWebhookOutboxProjection, analyticsEventsProjection];

/** `YYYY-MM-DD` plus whole years (29 February lands on 28 February). */
export function addYears(date: string, years: number): string {
  const [y = 0, m = 1, d = 1] = date.split('-').map(Number);
  const shifted = new Date(Date.UTC(y + years, m - 1, d));
  if (shifted.getUTCMonth() !== m - 1) shifted.setUTCDate(0);
  return shifted.toISOString().slice(0, 10);
}

/** Erases the customer `id`; answers what was erased and what is kept until when. Idempotent. */
export async function eraseCustomer(ctx: RequestContext, id: string, legalBasis: string, reason: string) {
  // An operator (`core-server erase`, the system caller) names any customer; staff see every organization anyway.
  const doc = ctx.auth.kind === 'system' ? await getCustomerDoc(ctx.services.db, id) : await visibleCustomer(ctx, id);
  if (!doc) throw billingErrors.error('customer_not_found', `No customer ${id}.`);
  const orgId = doc.organization_id;
  const state = await customers.load(ctx, id);
  const { erasable, retained } = customerSubjects(id);
  let record = state.erasure;
  if (!record) {
    // What the erasure covers is read from read models: they must hold everything committed before it (a file prepared
    // or an invoice issued a moment ago), else a file name would survive its key or an issued invoice lose its retention.
    await caughtUp(ctx.services, [billingInvoicesProjection, billingPersonalSubjectsProjection, analyticsEventsProjection]);
    const issued = await lastIssueDate(ctx.services.knex, id);
    const until = issued === null ? null : addYears(issued, ctx.services.config.invoiceRetentionYears);
    const keep = until !== null && until > ctx.now.toISOString().slice(0, 10);
    const others = await organizationSubjects(ctx.services.knex, orgId);
    record = {
      subject: `customer:${id}`,
      erased: [erasable, ...(keep ? [] : [retained]), ...others, `analytics:${orgId}`],
      retained: keep ? [retained] : [],
      retained_until: keep ? until : null,
      legal_basis: legalBasis,
      reason,
      requested_by: { type: ctx.metadata.actor.type, id: ctx.metadata.actor.id },
      erased_at: ctx.now.toISOString(),
    };
  }
  // 0. Copies outside the log (stored idempotent answers, delivery attempts), while the values still read: what is kept for
  // tax law too (those copies are no tax record). A retry after the keys went finds nothing left to rewrite.
  if (!state.erasure) {
    const streams = [`customer-${id}`, ...record.erased.filter((s) => /^(note|attachment|message):/.test(s)).map((s) => s.replace(':', '-'))];
    const values = await personalValues(ctx.services.store, streams, [...record.erased, ...record.retained]);
    for (const r of await analyticsReferers(ctx.services.knex, orgId)) values.add(r);
    await scrubTraces(ctx.services.knex, values);
  }
  // 1. The keys: from here on every read of these values is "[erased]".
  await ctx.services.personalData.eraseSubjects(record.erased, ctx.now);
  const { erased_at: _at, ...erasure } = record;
  // 2. Each note and attachment says so in its own history (and its read-model row drops the value).
  for (const subject of record.erased) {
    const [kind, key = ''] = subject.split(':');
    if (kind === 'note') await notes.run(ctx, key, { type: 'EraseNote', data: erasure }, { orgId });
    if (kind === 'attachment') await attachments.run(ctx, key, { type: 'EraseAttachmentName', data: erasure }, { orgId });
    if (kind === 'message') await messages.run(ctx, key, { type: 'EraseMessage', data: erasure }, { orgId });
  }
  // 3. The customer last (a no-op when already recorded).
  await customers.run(ctx, id, { type: 'EraseCustomer', data: erasure }, { orgId });
  await ctx.readYourWrites();
  // 4. The PDFs rendered with the old details go (a download renders them again from what is kept), and the embedded
  // database's files lose the rows' old versions (after the projections above rewrote them).
  await forgetCustomerDocuments(ctx.services.knex, ctx.services.objects, id);
  await compactFreedSpace(ctx.services.db);
  const after = await customers.load(ctx, id);
  if (!after.erasure) throw billingErrors.error('customer_not_found', 'No such customer.');
  return after.erasure;
}

export const customersErase = operation({
  id: 'billing.customers.erase',
  examples: {
    // The invoice issued on 2026-01-15 keeps the legal name, address and VAT number until the retention period ends.
    request: { id: exampleIds.customer, legal_basis: 'no_longer_necessary', reason: 'The customer closed its account and asked for erasure' },
    response: {
      subject: `customer:${exampleIds.customer}`,
      erased: [`customer:${exampleIds.customer}`, `user:${exampleCreditNoteRequest.requested_by.id}`, `analytics:${exampleIds.organization}`],
      retained: [`customer:${exampleIds.customer}:retained`],
      retained_until: '2032-01-15',
      legal_basis: 'no_longer_necessary',
      reason: 'The customer closed its account and asked for erasure',
      requested_by: { type: 'staff', id: '0193472e-3c5d-7e6f-8a9b-0c1d2e3f4a5b' },
      erased_at: '2026-03-02T10:00:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Erases a customer\'s personal data (right to erasure): its keys are deleted, so the data reads "[erased]" in every event, read model and rebuild.',
  description:
    'Billing staff only, with a legal basis and a reason (both kept on the erasure event, shown in the history with who asked). Erases the email, '
    + 'the organization\'s note texts and attachment file names at once; the legal name, address and VAT number that tax law requires on issued invoices are kept until '
    + 'INVOICE_RETENTION_YEARS after the last issued invoice, then erased by a worker. Idempotent: a second request answers the first erasure. Extension operation (issue 32).',
  request: CustomerEraseRequest,
  response: Erasure,
  error: 'billing.CustomerEraseError',
  errors: billingErrors.list('customer_not_found'),
  access: 'billing_staff',
  write: true,
  readModels: ERASING_MODELS,
  handle: (ctx, req) => eraseCustomer(ctx, req.id, req.legal_basis, req.reason),
});

/** billing.customers.operator-erase: the same erasure for `core-server erase` (the system caller `cli`). */
export const customersOperatorErase = operation({
  id: 'billing.customers.operator-erase',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Erases a customer\'s personal data on an operator\'s command (core-server erase), exactly as billing.customers.erase.',
  description: 'Internal: invoked by the CLI as the system (job `cli`).',
  request: CustomerEraseRequest,
  response: Erasure,
  error: 'billing.CustomerEraseError',
  errors: billingErrors.list('customer_not_found'),
  access: 'system',
  write: true,
  readModels: ERASING_MODELS,
  handle: (ctx, req) => eraseCustomer(ctx, req.id, req.legal_basis, req.reason),
});
