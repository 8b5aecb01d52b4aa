// Customer emails in the console (issue 28): the messages section of the customer page, and the Outbox page (the messages
// kept because SMTP_URL is not set, or every message with ?all=1), each with its PDF.
import type express from 'express';
import type { z } from 'zod';
import type { Services } from '../../../context.ts';
import { ops } from '../../../areas/operations.ts';
import type { Message } from '../../../contract/schemas/billing-documents.ts';
import { type Html, type SafeHtml, html } from '../html.ts';
import { creditNotePdfPath, invoicePdfPath, receiptPdfPath } from './documents.ts';
import { badge, sendConsole, table, when } from './layout.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import type { ApiResult } from './api.ts';

type Item = z.output<typeof Message>;

const KIND: Record<Item['kind'], string> = {
  invoice_finalized: 'Invoice',
  payment_received: 'Payment receipt',
  credit_note_issued: 'Credit note',
  invoice_reminder: 'Payment reminder',
};

function pdfPath(m: Item): string {
  return m.subject.type === 'payment' ? receiptPdfPath(m.subject.id) : m.subject.type === 'credit_note' ? creditNotePdfPath(m.subject.id) : invoicePdfPath(m.invoice_id);
}

function delivery(m: Item): Html {
  if (m.status === 'delivered') return html`${badge('delivered')} ${m.transport === 'outbox' ? 'kept in the outbox' : 'sent by SMTP'} ${when(m.delivered_at)}`;
  const why = m.last_error ? html` <span class="muted">${m.last_error}</span>` : '';
  if (m.status === 'failed') return html`${badge('failed')} after ${m.attempts} attempts${why}`;
  return html`${badge('pending')}${m.attempts ? html` ${m.attempts} failed, next try ${when(m.next_attempt_at)}` : ''}${why}`;
}

/** Rows of a messages table; `customer`: add a link to the customer (the outbox lists every customer's). */
function rows(items: Item[], customer: boolean): Html[][] {
  return items.map((m) => [
    when(m.created_at),
    KIND[m.kind],
    ...(customer ? [html`<a href="/console/customers/${m.customer_id}#messages">${m.to}</a>`] : [m.to]),
    html`${m.subject_line}<br><a href="/console/invoices/${m.invoice_id}">Invoice</a> · <a href="${pdfPath(m)}" download>PDF</a>`,
    delivery(m),
  ]);
}

/** The customer page's "Messages" section. */
export function messagesSection(r: ApiResult<{ items: Item[] }>): SafeHtml {
  return html`<section aria-labelledby="messages"><h2 id="messages">Messages</h2>
${table('Emails to this customer', ['Decided', 'What', 'To', 'Subject', 'Delivery'], r.ok ? rows(r.body.items, false) : [], 'No emails yet.')}</section>`;
}

async function outboxPage(p: ConsolePage): Promise<void> {
  const all = p.req.query.all === '1';
  const cursor = typeof p.req.query.cursor === 'string' ? p.req.query.cursor : undefined;
  const r = await p.api.call(ops['billing.messages.list'], { ...(all ? {} : { transport: 'outbox' as const }), cursor, limit: 50 });
  const next = r.ok && r.body.pagination ? html`<p><a href="/console/outbox?${all ? 'all=1&' : ''}cursor=${encodeURIComponent(r.body.pagination.cursor)}">Next page</a></p>` : '';
  sendConsole(p.res, p.session, r.ok ? 200 : r.problem.status, {
    title: all ? 'Customer emails' : 'Outbox',
    section: 'outbox',
    problem: r.ok ? null : r.problem,
    body: html`<h1>${all ? 'Customer emails' : 'Outbox'}</h1>
<p class="muted">${all
      ? 'Every email decided for a customer, oldest first, with how its delivery went.'
      : 'Emails kept here because no SMTP server is configured (SMTP_URL): nothing left the service. Each holds the PDF the customer would have received.'}
${all ? html`<a href="/console/outbox">Only the outbox</a>` : html`<a href="/console/outbox?all=1">Every customer email</a>`}</p>
${table(all ? 'Customer emails' : 'Emails in the outbox', ['Decided', 'What', 'To', 'Subject', 'Delivery'], r.ok ? rows(r.body.items, true) : [], all ? 'No emails yet.' : 'The outbox is empty.')}
${next}`,
  });
}

/** Mounts GET /console/outbox. */
export function mountMessages(app: express.Express, services: Services): void {
  app.get('/console/outbox', ...consoleRoute(services, outboxPage));
}
