// billing.messages.decide and billing.messages.deliver (internal, issue 28): the messages worker's work on one customer email,
// as the system. Decide appends the message under its derived id (once, whoever asks again); deliver renders the attached PDF
// from the read models, hands the email to the mailer (SMTP or the outbox) and records the outcome. A message recorded as
// delivered is never sent again; a failure is retried with backoff (RETRY_MINUTES), then given up and listed for staff.
import { operation } from '../../contract/operation.ts';
import { MessageDecideRequest, MessageDecideResult, MessageDeliverRequest, MessageDeliverResult } from '../../contract/schemas/billing-documents.ts';
import type { RequestContext } from '../../context.ts';
import { emailBody } from '../../documents/email.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { type MessageFacts, deliveryDue } from '../../domain/billing/message.ts';
import { getCreditNoteRequestDoc } from '../../queries/billing/credit-note-requests.ts';
import { getCustomerDoc } from '../../queries/billing/customers.ts';
import { type RenderedDocument, creditNoteDocument, invoiceDocument, receiptDocument } from '../../queries/billing/documents.ts';
import { getInvoiceDoc } from '../../queries/billing/invoices.ts';
import { getPaymentDoc } from '../../queries/billing/payments.ts';
import { messages } from './handlers.ts';

/** billing.messages.decide */
export const messagesDecide = operation({
  id: 'billing.messages.decide', surface: 'internal', tags: ['Billing'], summary: 'Decides one customer email (once per id).',
  description: 'Internal: the messages worker invokes it as the system (job `messages-worker`) for each occasion that calls for an email, caused by the invoice\'s last event.',
  request: MessageDecideRequest, response: MessageDecideResult, error: 'billing.MessageDecideError',
  errors: billingErrors.list(), access: 'system', write: true,
  async handle(ctx, req) {
    const res = await messages.run(ctx, req.message_id, { type: 'DecideMessage', data: req }, { orgId: req.organization_id, expectNew: true, reason: `customer email: ${req.kind}` });
    return { decided: res.events.length > 0 };
  },
});

// The attached document as the read models show it now (a receipt, a credit note, or the invoice with what it owes today).
async function attachment(ctx: RequestContext, m: MessageFacts): Promise<{ doc: RenderedDocument; amount?: number }> {
  const { knex, db, config } = ctx.services;
  if (m.subject.type === 'payment') {
    const payment = await getPaymentDoc(db, m.subject.id);
    if (!payment) throw new Error(`payment ${m.subject.id} of message ${m.message_id} is not in the read model`);
    return { doc: await receiptDocument(db, config, payment), amount: payment.amount };
  }
  if (m.subject.type === 'credit_note') {
    const note = await getCreditNoteRequestDoc(knex, m.subject.id);
    if (!note) throw new Error(`credit note ${m.subject.id} of message ${m.message_id} is not in the read model`);
    return { doc: await creditNoteDocument(db, config, note), amount: note.amount };
  }
  const invoice = await getInvoiceDoc(db, m.invoice_id);
  if (!invoice) throw new Error(`invoice ${m.invoice_id} of message ${m.message_id} is not in the read model`);
  return { doc: await invoiceDocument(knex, db, config, invoice) };
}

/** billing.messages.deliver */
export const messagesDeliver = operation({
  id: 'billing.messages.deliver', surface: 'internal', tags: ['Billing'], summary: 'Sends one decided customer email with its PDF and records the outcome.',
  description: 'Internal: the messages worker invokes it as the system (job `messages-worker`) for each message whose delivery is due.',
  request: MessageDeliverRequest, response: MessageDeliverResult, error: 'billing.MessageDeliverError',
  errors: billingErrors.list(), access: 'system', write: true,
  async handle(ctx, req) {
    // One sender per message at a time, across processes: the check below and the send happen under the claim.
    return (await underClaim(ctx, req.message_id, () => deliver(ctx, req.message_id))) ?? { outcome: 'not_due' as const };
  },
});

// Sends a decided message if its delivery is due, and records the outcome.
async function deliver(ctx: RequestContext, messageId: string): Promise<{ outcome: 'not_due' | 'delivered' | 'failed' | 'gave_up' }> {
  const { services, now } = ctx;
  // The stream, not the read model: a delivery recorded a moment ago (another pass, before a restart) is never sent again.
  const loaded = await messages.read(ctx, messageId, { fresh: true });
  const state = loaded.state;
  if (!state.facts || !deliveryDue(state, now)) return { outcome: 'not_due' as const };
  const m = state.facts;
  const attempt = state.attempts + 1;
  let outcome: { status: 'delivered'; transport: 'smtp' | 'outbox'; response: string } | { status: 'failed'; error: string };
  try {
    const [{ doc, amount }, invoice, customer] = await Promise.all([attachment(ctx, m), getInvoiceDoc(services.db, m.invoice_id), getCustomerDoc(services.db, m.customer_id)]);
    if (!invoice) throw new Error(`invoice ${m.invoice_id} is not in the read model`);
    const text = emailBody({ kind: m.kind, customer: customer?.name ?? 'customer', seller: services.config.seller.name, invoice, payment_url: m.payment_url, attachment: doc.filename, amount });
    const sent = await services.mailer.send({
      messageId: m.message_id, from: services.config.email.from, to: m.to, subject: m.subject_line, text,
      attachments: [{ filename: doc.filename, content: doc.bytes, contentType: 'application/pdf' }],
    });
    outcome = { status: 'delivered', transport: services.mailer.transport, response: sent.response };
  } catch (err) {
    outcome = { status: 'failed', error: err instanceof Error ? err.message.slice(0, 1000) : String(err) };
  }
  const res = await messages.run(ctx, messageId, { type: 'RecordDelivery', data: { attempt, outcome } }, { orgId: m.organization_id, loaded, reason: 'customer email delivery' });
  const recorded = res.events[0];
  if (!recorded) return { outcome: 'not_due' as const };
  const result: 'delivered' | 'outbox' | 'failed' | 'gave_up' = recorded.type === 'MessageDelivered' ? (outcome.status === 'delivered' && outcome.transport === 'outbox' ? 'outbox' : 'delivered')
    : recorded.type === 'MessageDeliveryFailed' && recorded.data.next_attempt_at === null ? 'gave_up' : 'failed';
  services.metrics.deliveries.inc({ channel: 'email', result });
  // Not the server's answer: it may quote the recipient's address, which must not outlive an erasure in the logs (issue 32).
  if (result === 'failed' || result === 'gave_up') services.logger.warn({ message_id: m.message_id, attempt }, 'customer email not delivered');
  return { outcome: result === 'outbox' ? ('delivered' as const) : result };
}

const claimed = new WeakMap<object, Set<string>>();

/**
 * Runs `fn` holding the message's claim, or answers undefined when another sender holds it. On PostgreSQL the claim is an
 * advisory lock of a transaction (other processes see it; a crash releases it); the embedded database has one process, so
 * a claim in this process's memory is the whole truth there (and its one connection cannot be held while `fn` appends).
 */
async function underClaim<T>(ctx: RequestContext, messageId: string, fn: () => Promise<T>): Promise<T | undefined> {
  const { db, knex } = ctx.services;
  if (db.kind === 'postgres') {
    return knex.transaction(async (trx) => {
      const got = (await trx.raw('select pg_try_advisory_xact_lock(hashtextextended(?, 28)) as ok', [`message:${messageId}`])) as { rows: { ok: boolean }[] };
      return got.rows[0]?.ok ? fn() : undefined;
    });
  }
  let held = claimed.get(knex);
  if (!held) claimed.set(knex, (held = new Set()));
  if (held.has(messageId)) return undefined;
  held.add(messageId);
  try {
    return await fn();
  } finally {
    held.delete(messageId);
  }
}

/** Billing's internal operations of customer emails. */
export const billingMessageCommands = [messagesDecide, messagesDeliver];
