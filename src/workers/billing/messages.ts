// Customer emails worker (issue 28): decides the emails that are due (invoice finalized, payment received, credit note issued,
// and payment reminders on EMAIL_REMINDER_DAYS relative to the due date), each under an id derived from its occasion, then
// delivers every decided message whose delivery is due. Both steps invoke internal operations as the system (job
// `messages-worker`), caused by the invoice's last event; a repeated pass, or one after a restart, decides and sends nothing new.
import { isoDate } from '../../clock.ts';
import { type Services, systemAuth } from '../../context.ts';
import type { MessageFacts } from '../../domain/billing/message.ts';
import { reminderOccasion, subjectLine } from '../../documents/email.ts';
import { invoices, messages } from '../../commands/billing/handlers.ts';
import { messagesDecide, messagesDeliver } from '../../commands/billing/messages.ts';
import { nameId, newId } from '../../ids.ts';
import { causedBy } from '../../pipeline/causation.ts';
import { creditNotesIssuedSince } from '../../queries/billing/credit-note-requests.ts';
import { getCustomerDoc } from '../../queries/billing/customers.ts';
import { getInvoiceDoc, invoicesIssuedSince, openInvoicesDueBetween } from '../../queries/billing/invoices.ts';
import { dueMessages, existingMessages } from '../../queries/billing/messages.ts';
import { paymentUrl } from '../../queries/billing/overdue.ts';
import { paymentsRecordedSince } from '../../queries/billing/payments.ts';
import type { InvoiceDoc } from '../../projections/billing/invoices.ts';
import type { Worker } from '../worker.ts';

/** Occasions older than this are not written about: a service started on an old database does not mail its history. */
export const MESSAGE_LOOKBACK_DAYS = 3;

/** What one pass did. */
export interface MessagesPassResult {
  decided: string[];
  delivered: string[];
  failed: string[];
  gaveUp: string[];
}

/** The id of the message of one occasion: the same occasion always names the same message. */
export function messageIdOf(invoiceId: string, occasion: string): string {
  return nameId('billing-message', `${invoiceId}/${occasion}`);
}

type Candidate = Omit<MessageFacts, 'to' | 'subject_line' | 'payment_url' | 'organization_id' | 'customer_id'> & { invoice: InvoiceDoc; amount?: number };

const DAY = 86_400_000;

async function candidates(services: Services, now: Date): Promise<Candidate[]> {
  const { knex, db } = services;
  const since = new Date(now.getTime() - MESSAGE_LOOKBACK_DAYS * DAY);
  const out: Candidate[] = [];
  for (const invoice of await invoicesIssuedSince(knex, isoDate(since)))
    out.push({ message_id: messageIdOf(invoice.id, 'finalized'), invoice_id: invoice.id, kind: 'invoice_finalized', subject: { type: 'invoice', id: invoice.id }, occasion: 'finalized', invoice });
  for (const p of await paymentsRecordedSince(knex, since)) {
    const invoice = await getInvoiceDoc(db, p.invoice_id);
    if (invoice) out.push({ message_id: messageIdOf(invoice.id, `payment/${p.id}`), invoice_id: invoice.id, kind: 'payment_received', subject: { type: 'payment', id: p.id }, occasion: p.id, invoice, amount: p.amount });
  }
  for (const c of await creditNotesIssuedSince(knex, since)) {
    const invoice = await getInvoiceDoc(db, c.invoice_id);
    if (invoice) out.push({ message_id: messageIdOf(invoice.id, `credit/${c.id}`), invoice_id: invoice.id, kind: 'credit_note_issued', subject: { type: 'credit_note', id: c.id }, occasion: c.id, invoice, amount: c.amount });
  }
  // Reminders: only the latest schedule day reached (a pass after days of downtime sends one reminder, not each one missed),
  // and never one whose day came before the invoice was issued (short terms would otherwise mail a "due in 3 days" at once).
  const schedule = services.config.email.reminderDays;
  const first = schedule[0];
  const last = schedule[schedule.length - 1];
  if (first !== undefined && last !== undefined) {
    const today = isoDate(now);
    const dayOf = (base: string, days: number) => isoDate(new Date(Date.parse(`${base}T00:00:00Z`) + days * DAY));
    for (const invoice of await openInvoicesDueBetween(knex, dayOf(today, -last - MESSAGE_LOOKBACK_DAYS), dayOf(today, -first))) {
      if (!invoice.due_date) continue;
      const days = Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${invoice.due_date}T00:00:00Z`)) / DAY);
      const reached = schedule.filter((d) => d <= days).pop();
      if (reached === undefined || days - reached > MESSAGE_LOOKBACK_DAYS) continue;
      if (invoice.issue_date && dayOf(invoice.due_date, reached) < invoice.issue_date) continue;
      const occasion = reminderOccasion(reached);
      out.push({ message_id: messageIdOf(invoice.id, occasion), invoice_id: invoice.id, kind: 'invoice_reminder', subject: { type: 'invoice', id: invoice.id }, occasion, invoice });
    }
  }
  return out;
}

/** Decides the messages that are due and delivers those whose delivery is due; repeating a pass sends nothing twice. */
export async function runMessagesPass(services: Services): Promise<MessagesPassResult> {
  const now = services.clock.now();
  const pass = newId();
  const result: MessagesPassResult = { decided: [], delivered: [], failed: [], gaveUp: [] };
  const found = await candidates(services, now);
  // Message id -> organization: what this pass decided, then what the read model says is due (a decision it has not applied yet is covered by the first).
  const toDeliver = new Map<string, string>();
  const known = await existingMessages(services.knex, found.map((c) => c.message_id));
  for (const c of found.filter((x) => !known.has(x.message_id))) {
    const customer = await getCustomerDoc(services.db, c.invoice.customer_id);
    // No billing email, nobody to write to (the customer page shows the email is missing).
    if (!customer?.email.includes('@')) continue;
    const { invoice, amount, ...facts } = c;
    const input: MessageFacts = {
      ...facts, organization_id: invoice.organization_id, customer_id: invoice.customer_id, to: customer.email,
      subject_line: subjectLine(c.kind, services.config.seller.name, invoice, c.occasion, amount), payment_url: paymentUrl(services.config.appUrl, invoice.customer_id),
    };
    const auth = systemAuth('messages-worker', invoice.organization_id);
    const { body } = await services.invoke(messagesDecide, input, { auth, requestId: pass, causation: await causedBy(services.store, invoices.stream(invoice.id)) });
    if (body.decided) result.decided.push(c.message_id);
    toDeliver.set(c.message_id, invoice.organization_id);
  }
  for (const m of await dueMessages(services.knex, now)) toDeliver.set(m.id, m.organization_id);
  for (const [id, organizationId] of toDeliver) {
    const auth = systemAuth('messages-worker', organizationId);
    const { body } = await services.invoke(messagesDeliver, { message_id: id }, { auth, requestId: pass, causation: await causedBy(services.store, messages.stream(id)) });
    if (body.outcome === 'delivered') result.delivered.push(id);
    else if (body.outcome === 'failed') result.failed.push(id);
    else if (body.outcome === 'gave_up') result.gaveUp.push(id);
  }
  if (result.decided.length || result.delivered.length || result.failed.length || result.gaveUp.length)
    services.logger.info({ decided: result.decided.length, delivered: result.delivered.length, failed: result.failed.length, gave_up: result.gaveUp.length }, 'customer emails');
  return result;
}

/** The customer emails worker as the composition root runs it: every 30 s, since people wait for these. */
export const messagesWorker: Worker<MessagesPassResult> = { name: 'billing.messages', runOnce: runMessagesPass, intervalMs: 30_000 };
