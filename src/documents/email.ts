// The words of the customer emails (issue 28): a subject line decided with the message, and a plain-text body written when it
// is delivered, from the same records as the attached PDF.
import type { MessageKind } from '../domain/billing/message.ts';
import { formatDate, formatMoney } from './money.ts';

/** What an email says about its invoice. */
export interface EmailInvoice {
  number: string | null;
  id: string;
  currency: string;
  total: number;
  amount_remaining: number;
  due_date: string | null;
  status: string;
}

const label = (i: EmailInvoice) => i.number ?? i.id;

/** The reminder occasion of a day relative to the due date: `due-3`, `due+0`, `due+7`. */
export function reminderOccasion(days: number): string {
  return `due${days < 0 ? '-' : '+'}${Math.abs(days)}`;
}

function reminderDays(occasion: string): number {
  const m = /^due([+-])(\d+)$/.exec(occasion);
  return m ? (m[1] === '-' ? -1 : 1) * Number(m[2]) : 0;
}

/** The subject line of a message. `amount`: the payment or credit (those kinds only). */
export function subjectLine(kind: MessageKind, seller: string, invoice: EmailInvoice, occasion: string, amount?: number): string {
  const money = (n: number) => formatMoney(n, invoice.currency);
  switch (kind) {
    case 'invoice_finalized':
      return `Invoice ${label(invoice)} from ${seller}: ${money(invoice.amount_remaining)} due ${formatDate(invoice.due_date)}`;
    case 'payment_received':
      return `Payment received for invoice ${label(invoice)}: ${money(amount ?? 0)}`;
    case 'credit_note_issued':
      return `Credit note for invoice ${label(invoice)}: ${money(amount ?? 0)}`;
    case 'invoice_reminder': {
      const days = reminderDays(occasion);
      if (days < 0) return `Reminder: invoice ${label(invoice)} is due on ${formatDate(invoice.due_date)}`;
      if (days === 0) return `Invoice ${label(invoice)} is due today`;
      return `Overdue: invoice ${label(invoice)} was due on ${formatDate(invoice.due_date)}`;
    }
  }
}

/** The plain-text body: what happened, what is owed now, the payment link and what is attached. */
export function emailBody(m: { kind: MessageKind; customer: string; seller: string; invoice: EmailInvoice; payment_url: string; attachment: string; amount?: number }): string {
  const money = (n: number) => formatMoney(n, m.invoice.currency);
  const what = {
    invoice_finalized: `Your invoice ${label(m.invoice)} for ${money(m.invoice.total)} is attached.`,
    payment_received: `Thank you: we received ${money(m.amount ?? 0)} towards invoice ${label(m.invoice)}. The receipt is attached.`,
    credit_note_issued: `We issued a credit note of ${money(m.amount ?? 0)} on invoice ${label(m.invoice)}. It is attached.`,
    invoice_reminder: `This is a reminder about invoice ${label(m.invoice)}, due ${formatDate(m.invoice.due_date)}. It is attached.`,
  }[m.kind];
  const owed = m.invoice.status === 'open' && m.invoice.amount_remaining > 0
    ? `Amount due: ${money(m.invoice.amount_remaining)} by ${formatDate(m.invoice.due_date)}.\nPay online: ${m.payment_url}`
    : `Nothing is owed on invoice ${label(m.invoice)} now.`;
  return `Dear ${m.customer},\n\n${what}\n\n${owed}\n\nAttached: ${m.attachment}\n\n${m.seller}\n`;
}
