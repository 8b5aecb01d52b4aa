// Parts shared by the customer and invoice pages: payments and credit rows, and notes with their forms.
import type { z } from 'zod';
import type { Payment } from '../../../contract/schemas/billing-invoices.ts';
import type { CreditNoteRequestDetail } from '../../../contract/schemas/billing-credit-notes.ts';
import type { Note } from '../../../contract/schemas/billing-customers.ts';
import type { Attachment } from '../../../contract/schemas/billing-attachments.ts';
import { badge, formGuard, money, qs, when } from './layout.ts';
import { NameBook, day } from './format.ts';
import { type Html, type SafeHtml, html } from '../html.ts';
import type { ConsolePage } from './route.ts';
import { creditNotePdfPath, receiptPdfPath } from './documents.ts';


/** Rows of a payments table. */
export function paymentRows(items: z.output<typeof Payment>[]): Html[][] {
  return items.map((x) => [
    day(x.received_on),
    money(x.amount, x.currency),
    x.method.replaceAll('_', ' '),
    x.reference,
    html`${badge(x.status)}${x.void_reason ? html` <span class="muted">${x.void_reason}</span>` : ''}`,
    html`<a href="/console/invoices/${x.invoice_id}">Invoice</a> · <a href="/console/history${qs({ type: 'payment', id: x.id })}">History</a> · <a href="${receiptPdfPath(x.id)}" download>Receipt PDF</a>`,
  ]);
}

/** Rows of an attachments table. */
export function fileRows(items: z.output<typeof Attachment>[], subject: Subject): Html[][] {
  return items.map((f) => [
    html`<a href="/console/files/${subject.type}/${subject.id}/${f.id}">${f.filename}</a>`,
    f.content_type, `${Math.ceil(f.size / 1024)} KB`, f.is_internal ? 'internal' : 'shared', when(f.created_at),
  ]);
}

/** Rows of a credit note requests table. */
export function creditRows(items: z.output<typeof CreditNoteRequestDetail>[]): Html[][] {
  return items.map((x) => [
    html`<a href="/console/invoices/${x.invoice_id}">${x.invoice_number ?? 'Invoice'}</a>`,
    money(x.amount, x.currency),
    `${x.reason.replaceAll('_', ' ')}: ${x.description}`,
    badge(x.status),
    html`${when(x.created_at)} · <a href="/console/history${qs({ type: 'credit_note_request', id: x.id })}">History</a>${x.status === 'issued' ? html` · <a href="${creditNotePdfPath(x.id)}" download>Credit note PDF</a>` : ''}`,
  ]);
}

export type Subject = { type: 'customer' | 'invoice'; id: string };

/** The notes of a customer or invoice, each by its author's name: each with an edit form (which asks why), and a form to add one. */
export async function notesSection(p: ConsolePage, subject: Subject, notes: z.output<typeof Note>[]): Promise<SafeHtml> {
  const names = await NameBook.load(p.api, { users: notes.map((n) => n.author.id) });
  const list = notes.map((n) => html`<li class="note"><p class="note-body">${n.body}</p>
<p class="muted">${names.actor(n.author)} · ${when(n.created_at)}${n.history.length ? ` · edited ${n.history.length} time${n.history.length > 1 ? 's' : ''}` : ''} · <a href="/console/history${qs({ type: 'note', id: n.id })}">History</a></p>
<details><summary>Edit note</summary>
<form method="post" action="/console/notes/${n.id}">${formGuard(p.session)}
<input type="hidden" name="subject_type" value="${subject.type}"><input type="hidden" name="subject_id" value="${subject.id}">
<label for="note-${n.id}">Note text</label><textarea id="note-${n.id}" name="body" rows="3" required>${n.body}</textarea>
<label for="note-reason-${n.id}">Why is it changed?</label><input id="note-reason-${n.id}" name="reason" required maxlength="500">
<div class="actions"><button type="submit">Save note</button></div></form></details></li>`);
  return html`<section aria-labelledby="notes"><h2 id="notes">Notes</h2>
${list.length ? html`<ul class="notes">${list}</ul>` : html`<p class="muted">No notes.</p>`}
<form method="post" action="/console/notes" class="card">${formGuard(p.session)}
<input type="hidden" name="subject_type" value="${subject.type}"><input type="hidden" name="subject_id" value="${subject.id}">
<label for="new-note">Add a note</label><textarea id="new-note" name="body" rows="3" required maxlength="10000"></textarea>
<div class="actions"><button type="submit">Add note</button></div></form></section>`;
}
