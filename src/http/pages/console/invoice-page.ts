// The invoice page: figures, lines, payments, credits, notes and files, with a form for every next step.
import type { z } from 'zod';
import { InvoiceDetail, PaymentMethod, type Payment } from '../../../contract/schemas/billing-invoices.ts';
import { CreditNoteReason, type CreditNoteRequestDetail } from '../../../contract/schemas/billing-credit-notes.ts';
import type { ApiProblem } from './api.ts';
import { badge, field, formGuard, money, moneyInput, options, qs, sendConsole, table, when } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';
import { type Refusal, errorOf, typed } from './form-state.ts';
import { ops } from '../../../areas/operations.ts';
import type { ConsolePage } from './route.ts';
import { lineEditor } from './invoice-forms.ts';
import { day } from './format.ts';
import { creditRows, fileRows, notesSection, paymentRows } from './sections.ts';
import { invoicePdfPath } from './documents.ts';
import { type RerateDiff, hasMeteredLines, usageSection } from './invoice-usage.ts';

type Invoice = z.output<typeof InvoiceDetail>;

/** What a re-rendered page keeps of a refused form: its problem and status. */
export interface Outcome {
  status?: number;
  problem?: ApiProblem | null;
  /** The re-rating diff to show (after "Re-rate preview"). */
  rerate?: RerateDiff;
  /** The refused form, filled again as it was typed, with its problems next to its fields. */
  refusal?: Refusal;
}

/** The reason field of form `form` (kept when refused). */
export function reasonField(r: Refusal | undefined, form: string, id: string, label = 'Reason (kept in the audit trail)'): SafeHtml {
  return field(id, label, html`<input id="${id}" name="reason" required maxlength="500" value="${typed(r, form, 'reason')}">`, undefined, errorOf(r, form, 'reason'));
}

/** The box a destructive step needs ticked (checked by the server, not only the browser). */
export function confirmField(r: Refusal | undefined, form: string, id: string, text: string): SafeHtml {
  const error = errorOf(r, form, 'confirm');
  return html`<div class="field${error ? ' invalid' : ''}">${error ? html`<p class="field-error" id="${id}-error" data-for="${id}">${error}</p>` : ''}<label class="confirm" for="${id}"><input type="checkbox" id="${id}" name="confirm" value="yes" required> ${text}</label></div>`;
}

/** Renders the invoice page (after a refused action, with the refusal on top). */
export async function invoicePage(p: ConsolePage, id: string, out: Outcome = {}): Promise<void> {
  const inv = await p.api.call(ops['billing.invoices.get'], id);
  if (!inv.ok) return void sendConsole(p.res, p.session, inv.problem.status, { title: 'Invoice', section: 'invoices', problem: inv.problem, body: html`<h1>Invoice</h1><p><a href="/console/invoices">Back to the invoices</a></p>` });
  const i = inv.body;
  const [customer, payments, credits, notes, files, usage] = await Promise.all([
    p.api.call(ops['billing.customers.get'], { id: i.customer_id }),
    p.api.call(ops['billing.payments.list'], { invoice_id: id, limit: 200 }),
    p.api.call(ops['billing.credit-note-requests.list'], { invoice_id: id, limit: 200 }),
    p.api.call(ops['billing.notes.list'], { subject: { type: 'invoice', id }, limit: 50 }),
    p.api.call(ops['billing.invoices.attachments.list'], { invoice_id: id, limit: 50 }),
    hasMeteredLines(i) ? usageSection(p, i, out.rerate) : '',
  ]);
  const title = i.number ?? 'Draft invoice';
  const cur = i.currency;
  const lineRows = i.lines.map((l) => [l.description, l.kind, l.quantity, money(l.unit_amount, cur), money(l.amount, cur)]);
  const payable = i.status === 'open' || i.status === 'uncollectible';
  const pays = payments.ok ? payments.body.items : [];
  const creds = credits.ok ? credits.body.items : [];
  sendConsole(p.res, p.session, out.status ?? 200, {
    title,
    section: 'invoices',
    problem: out.problem ?? null,
    body: html`<h1>${title} ${badge(i.status)}</h1>
<p class="links">Customer: ${customer.ok ? html`<a href="/console/customers/${i.customer_id}">${customer.body.name}</a>` : html`<code>${i.customer_id}</code>`}
<a href="/console/history${qs({ type: 'invoice', id })}">History</a>
${i.status !== 'draft' ? html`<a href="${invoicePdfPath(i.id)}" download data-pdf="invoice">Download PDF</a>` : ''}
<a href="/console/customers/${i.customer_id}/statement">Statement</a></p>
<section class="card" aria-labelledby="figures"><h2 id="figures">Figures</h2>
<dl class="figures">
<div><dt>Total</dt><dd>${money(i.total, cur)}</dd></div>
<div><dt>Paid</dt><dd>${money(i.amount_paid, cur)}</dd></div>
<div><dt>Credited</dt><dd>${money(i.amount_credited, cur)}</dd></div>
<div><dt>Remaining</dt><dd>${money(i.amount_remaining, cur)}</dd></div>
</dl>
<dl class="details"><div><dt>Issued</dt><dd>${day(i.issue_date)}</dd></div><div><dt>Due</dt><dd>${day(i.due_date)}</dd></div>
<div><dt>Created</dt><dd>${when(i.created_at)}</dd></div><div><dt>Memo</dt><dd>${i.memo ?? '—'}</dd></div></dl></section>
${payable ? paymentForm(p, i, out.refusal) : ''}
<section aria-labelledby="lines"><h2 id="lines">Lines</h2>
${table('Invoice lines', ['Description', 'Kind', 'Quantity', 'Unit price', 'Amount'], lineRows, 'No lines yet.')}
${i.status === 'draft' ? draftForms(p, i, out.refusal) : ''}</section>
${usage}
<section aria-labelledby="payments"><h2 id="payments">Payments</h2>
${table('Payments of this invoice', ['Received', 'Amount', 'Method', 'Reference', 'Status', 'Links'], paymentRows(pays), 'No payments.')}
${pays.filter((x) => x.status === 'recorded').map((x) => paymentForms(p, i, x, out.refusal))}</section>
<section aria-labelledby="credits"><h2 id="credits">Credit note requests</h2>
${table('Credit note requests of this invoice', ['Invoice', 'Amount', 'Reason', 'Status', 'Requested'], creditRows(creds), 'No credit note requests.')}
${creds.map((c) => creditForms(p, i, c, out.refusal))}
${i.status !== 'draft' && i.status !== 'void' ? creditForm(p, i, out.refusal) : ''}</section>
${await notesSection(p, { type: 'invoice', id }, notes.ok ? notes.body.items : [])}
<section aria-labelledby="files"><h2 id="files">Attachments</h2>
${table('Attachments', ['File', 'Type', 'Size', 'Visibility', 'Added'], files.ok ? fileRows(files.body.items, { type: 'invoice', id }) : [], 'No attachments.')}</section>
${payable ? statusForms(p, i, out.refusal) : ''}`,
  });
}

function draftForms(p: ConsolePage, i: Invoice, r: Refusal | undefined): SafeHtml {
  return html`<form method="post" action="/console/invoices/${i.id}/lines" class="card">${formGuard(p.session)}
<h3>Edit the draft</h3>
${hasMeteredLines(i) ? html`<p class="muted">The lines come from usage (see Metered usage below) and are not edited by hand; the memo can change.</p>` : lineEditor(i.lines.filter((l) => l.kind === 'manual'), i.currency, 2)}
${field('memo', 'Memo (printed on the invoice)', html`<textarea id="memo" name="memo" rows="2" maxlength="5000">${i.memo ?? ''}</textarea>`)}
<div class="actions"><button type="submit">${hasMeteredLines(i) ? 'Save memo' : 'Save lines'}</button></div></form>
<form method="post" action="/console/invoices/${i.id}/finalize" class="card">${formGuard(p.session)}
<h3>Finalize</h3><p>Gives the invoice its number, issue date and due date; its lines can no longer change.</p>
${reasonField(r, 'finalize', 'finalize-reason')}
${confirmField(r, 'finalize', 'finalize-confirm', 'I have checked the lines: the invoice is final and can no longer change')}
<div class="actions"><button type="submit">Finalize invoice</button></div></form>`;
}

// The destructive steps, last on the page (the common action, Record a payment, comes first): each asks why and a ticked box.
function statusForms(p: ConsolePage, i: Invoice, r: Refusal | undefined): SafeHtml {
  const uncollectible = i.status === 'open'
    ? html`<form method="post" action="/console/invoices/${i.id}/uncollectible" class="card danger-zone">${formGuard(p.session)}<h3>Mark uncollectible</h3>
<p class="muted">Writes the invoice off as not expected to be paid; a payment can still be recorded later.</p>
${reasonField(r, 'uncollectible', 'uncollectible-reason')}
${confirmField(r, 'uncollectible', 'uncollectible-confirm', `Yes, write off ${money(i.amount_remaining, i.currency)} of ${i.number ?? 'this invoice'}`)}
<div class="actions"><button type="submit" class="danger">Mark uncollectible</button></div></form>`
    : '';
  return html`<section aria-labelledby="status"><h2 id="status">Void or write off</h2><div class="grid">
<form method="post" action="/console/invoices/${i.id}/void" class="card danger-zone">${formGuard(p.session)}<h3>Void</h3>
<p class="muted">Cancels what is still owed; payments stay recorded. It cannot be undone.</p>
${reasonField(r, 'void', 'void-reason')}
${confirmField(r, 'void', 'void-confirm', `Yes, void ${i.number ?? 'this invoice'}`)}
<div class="actions"><button type="submit" class="danger">Void invoice</button></div></form>
${uncollectible}</div></section>`;
}

// Record a payment: on a refusal the typed values come back, each problem next to its field.
function paymentForm(p: ConsolePage, i: Invoice, r: Refusal | undefined): SafeHtml {
  const v = (name: string, fallback: string) => typed(r, 'payment', name, fallback);
  const e = (name: string) => errorOf(r, 'payment', name);
  return html`<section aria-labelledby="record-payment"><form method="post" action="/console/invoices/${i.id}/payments" class="card">${formGuard(p.session)}
<h2 id="record-payment">Record a payment</h2><div class="grid">
${field('pay-amount', `Amount (${i.currency})`, html`<input id="pay-amount" name="amount" inputmode="decimal" required value="${v('amount', moneyInput(i.amount_remaining, i.currency))}">`, `${money(i.amount_remaining, i.currency)} is still owed.`, e('amount'))}
${field('pay-method', 'Method', html`<select id="pay-method" name="method">${options(PaymentMethod.options, v('method', 'bank_transfer'))}</select>`, undefined, e('method'))}
${field('pay-reference', 'Reference', html`<input id="pay-reference" name="reference" required maxlength="200" value="${v('reference', '')}">`, undefined, e('reference'))}
${field('pay-received', 'Received on', html`<input id="pay-received" name="received_on" type="date" required value="${v('received_on', p.today)}" max="${p.today}">`, undefined, e('received_on'))}
</div><div class="actions"><button type="submit">Record payment</button></div></form></section>`;
}

function paymentForms(p: ConsolePage, i: Invoice, x: z.output<typeof Payment>, r: Refusal | undefined): SafeHtml {
  const k = x.id;
  const edit = `payment-${k}`;
  const voiding = `payment-void-${k}`;
  const v = (name: string, fallback: string) => typed(r, edit, name, fallback);
  const e = (name: string) => errorOf(r, edit, name);
  const open = r?.form === edit || r?.form === voiding;
  return html`<details class="card"${open ? html` open` : ''}><summary>Change or void the payment ${x.reference} (${money(x.amount, x.currency)})</summary><div class="grid">
<form method="post" action="/console/invoices/${i.id}/payments/${k}">${formGuard(p.session)}
${field(`pe-amount-${k}`, `Amount (${x.currency})`, html`<input id="pe-amount-${k}" name="amount" inputmode="decimal" required value="${v('amount', moneyInput(x.amount, x.currency))}">`, undefined, e('amount'))}
${field(`pe-method-${k}`, 'Method', html`<select id="pe-method-${k}" name="method">${options(PaymentMethod.options, v('method', x.method))}</select>`, undefined, e('method'))}
${field(`pe-reference-${k}`, 'Reference', html`<input id="pe-reference-${k}" name="reference" required maxlength="200" value="${v('reference', x.reference)}">`, undefined, e('reference'))}
${field(`pe-received-${k}`, 'Received on', html`<input id="pe-received-${k}" name="received_on" type="date" required value="${v('received_on', x.received_on)}">`, undefined, e('received_on'))}
${reasonField(r, edit, `pe-reason-${k}`, 'Why is it changed?')}
<div class="actions"><button type="submit">Save payment</button></div></form>
<form method="post" action="/console/invoices/${i.id}/payments/${k}/void">${formGuard(p.session)}
${reasonField(r, voiding, `pv-reason-${k}`, 'Why is it voided?')}
${confirmField(r, voiding, `pv-confirm-${k}`, `Yes, void the payment ${x.reference}`)}
<div class="actions"><button type="submit" class="danger">Void payment</button></div></form></div></details>`;
}

function creditForm(p: ConsolePage, i: Invoice, r: Refusal | undefined): SafeHtml {
  const v = (name: string, fallback = '') => typed(r, 'credit', name, fallback);
  const e = (name: string) => errorOf(r, 'credit', name);
  return html`<form method="post" action="/console/invoices/${i.id}/credits" class="card">${formGuard(p.session)}
<h3>Raise a credit note request</h3><div class="grid">
${field('credit-amount', `Amount (${i.currency})`, html`<input id="credit-amount" name="amount" inputmode="decimal" required value="${v('amount')}">`, undefined, e('amount'))}
${field('credit-reason', 'Reason', html`<select id="credit-reason" name="credit_reason">${options(CreditNoteReason.options, v('credit_reason', 'other'))}</select>`, undefined, e('reason'))}
</div>${field('credit-description', 'What happened', html`<textarea id="credit-description" name="description" rows="2" required maxlength="2000">${v('description')}</textarea>`, undefined, e('description'))}
<div class="actions"><button type="submit">Raise request</button></div></form>`;
}

function creditForms(p: ConsolePage, i: Invoice, c: z.output<typeof CreditNoteRequestDetail>, r: Refusal | undefined): SafeHtml {
  const actions: [string, string, boolean][] =
    c.status === 'pending' ? [['approve', 'Approve', false], ['reject', 'Reject', true], ['cancel', 'Cancel', true]]
    : c.status === 'approved' ? [['issue', 'Issue credit note', false], ['cancel', 'Cancel', true]]
    : [];
  if (actions.length === 0) return html``;
  const k = c.id;
  return html`<div class="card"><h3>Credit ${money(c.amount, c.currency)} (${c.reason.replaceAll('_', ' ')}) ${badge(c.status)}</h3><div class="grid">${actions
    .map(([action, label, danger]) => html`<form method="post" action="/console/invoices/${i.id}/credits/${k}/${action}">${formGuard(p.session)}
${reasonField(r, `credit-${k}-${action}`, `cr-${action}-${k}`, `Reason to ${label.toLowerCase()}`)}
<div class="actions"><button type="submit"${danger ? html` class="danger"` : ''}>${label}</button></div></form>`)}</div></div>`;
}
