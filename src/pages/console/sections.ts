// Parts shared by the customer and invoice pages: payments and credit rows, and notes with their forms.
import type { z } from 'zod';
import type { Payment } from '../../contract/schemas/billing-invoices.ts';
import type { CreditNoteRequestDetail } from '../../contract/schemas/billing-credit-notes.ts';
import { Note } from '../../contract/schemas/billing-customers.ts';
import type { Attachment } from '../../contract/schemas/billing-attachments.ts';
import { badge, esc, formGuard, money, qs, when } from './layout.ts';
import type { ConsolePage } from './route.ts';


/** Rows of a payments table. */
export function paymentRows(items: z.output<typeof Payment>[]): string[][] {
  return items.map((x) => [
    esc(x.received_on),
    money(x.amount, x.currency),
    esc(x.method.replaceAll('_', ' ')),
    esc(x.reference),
    `${badge(x.status)}${x.void_reason ? ` <span class="muted">${esc(x.void_reason)}</span>` : ''}`,
    `<a href="/console/invoices/${esc(x.invoice_id)}">Invoice</a> · <a href="/console/history${qs({ type: 'payment', id: x.id })}">History</a>`,
  ]);
}

/** Rows of an attachments table. */
export function fileRows(items: z.output<typeof Attachment>[], subject: Subject): string[][] {
  return items.map((f) => [
    `<a href="/console/files/${esc(subject.type)}/${esc(subject.id)}/${esc(f.id)}">${esc(f.filename)}</a>`,
    esc(f.content_type), `${Math.ceil(f.size / 1024)} KB`, f.is_internal ? 'internal' : 'shared', when(f.created_at),
  ]);
}

/** Rows of a credit note requests table. */
export function creditRows(items: z.output<typeof CreditNoteRequestDetail>[]): string[][] {
  return items.map((x) => [
    `<a href="/console/invoices/${esc(x.invoice_id)}">${esc(x.invoice_number ?? 'Invoice')}</a>`,
    money(x.amount, x.currency),
    `${esc(x.reason.replaceAll('_', ' '))}: ${esc(x.description)}`,
    badge(x.status),
    `${when(x.created_at)} · <a href="/console/history${qs({ type: 'credit_note_request', id: x.id })}">History</a>`,
  ]);
}

export type Subject = { type: 'customer' | 'invoice'; id: string };

/** The notes of a customer or invoice: each with an edit form (which asks why), and a form to add one. */
export function notesSection(p: ConsolePage, subject: Subject, notes: z.output<typeof Note>[]): string {
  const list = notes
    .map((n) => `<li class="note"><p class="note-body">${esc(n.body)}</p>
<p class="muted">${esc(n.author.type)} · ${when(n.created_at)}${n.history.length ? ` · edited ${n.history.length} time${n.history.length > 1 ? 's' : ''}` : ''} · <a href="/console/history${qs({ type: 'note', id: n.id })}">History</a></p>
<details><summary>Edit note</summary>
<form method="post" action="/console/notes/${esc(n.id)}">${formGuard(p.session)}
<input type="hidden" name="subject_type" value="${esc(subject.type)}"><input type="hidden" name="subject_id" value="${esc(subject.id)}">
<label for="note-${esc(n.id)}">Note text</label><textarea id="note-${esc(n.id)}" name="body" rows="3" required>${esc(n.body)}</textarea>
<label for="note-reason-${esc(n.id)}">Why is it changed?</label><input id="note-reason-${esc(n.id)}" name="reason" required maxlength="500">
<div class="actions"><button type="submit">Save note</button></div></form></details></li>`)
    .join('');
  return `<section aria-labelledby="notes"><h2 id="notes">Notes</h2>
${list ? `<ul class="notes">${list}</ul>` : '<p class="muted">No notes.</p>'}
<form method="post" action="/console/notes" class="card">${formGuard(p.session)}
<input type="hidden" name="subject_type" value="${esc(subject.type)}"><input type="hidden" name="subject_id" value="${esc(subject.id)}">
<label for="new-note">Add a note</label><textarea id="new-note" name="body" rows="3" required maxlength="10000"></textarea>
<div class="actions"><button type="submit">Add note</button></div></form></section>`;
}
