// History of anything: the event timeline of a customer, invoice, payment, credit note request or note
// (who, when, why, what changed) and the entity as of a chosen instant, from billing.history.get.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { HISTORY_SUBJECT_TYPES } from '../../../contract/schemas/billing-history.ts';
import { field, money, options, qs, sendConsole, table, when, UUID } from './layout.ts';
import { html } from '../html.ts';
import { NameBook } from './format.ts';
import { changeList, historySentence, labelOf, shownPath, valueText } from './story.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';


/** Mounts GET /console/history?type&id&as_of. */
export function mountHistory(app: express.Express, services: Services): void {
  app.get('/console/history', ...consoleRoute(services, historyPage));
}

// "2026-03-10T09:01" or "2026-03-10T09:01:30" from a datetime-local field (read as UTC), or a date (its end of day).
// Anything else typed in goes to the API as given, whose 400 names it (never a date made up from it, never a crash).
function asOfInstant(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T23:59:59.999Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v)) return `${v.length === 16 ? `${v}:59.999` : `${v}.999`}Z`;
  return v;
}

async function historyPage(p: ConsolePage): Promise<void> {
  const q = p.req.query;
  const type = HISTORY_SUBJECT_TYPES.find((t) => t === q.type);
  const id = typeof q.id === 'string' ? q.id.trim() : '';
  const asOfText = typeof q.as_of === 'string' ? q.as_of : '';
  const asOf = asOfInstant(asOfText);
  const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
  const form = html`<form method="get" action="/console/history" class="card filters"><div class="grid">
${field('type', 'What', html`<select id="type" name="type">${options(HISTORY_SUBJECT_TYPES, type ?? 'invoice')}</select>`)}
${field('id', 'Id', html`<input id="id" name="id" required value="${id}" size="38">`)}
${field('as_of', 'As of (UTC, optional)', html`<input id="as_of" name="as_of" type="datetime-local" step="1" value="${asOfText}" aria-describedby="as_of-hint">`, 'Shows the entity as it was then, replayed from the log.')}
</div><div class="actions"><button type="submit">Show history</button></div></form>`;
  if (!type || !UUID.test(id)) return void sendConsole(p.res, p.session, 200, { title: 'History', section: 'history', body: html`<h1>History</h1>${form}<p class="muted">Every page has a History link; or paste an id here.</p>` });
  const r = await p.api.call(ops['billing.history.get'], { subject: { type, id }, ...(asOf ? { as_of: asOf } : {}), cursor, limit: 100 });
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'History', section: 'history', problem: r.problem, body: html`<h1>History</h1>${form}` });
  const h = r.body;
  const state = h.state ?? {};
  const currency = currencyOf(state);
  const names = await NameBook.load(p.api, { customers: [refOf(state).customer_id] });
  const rows = h.items.map((e) => {
    const sentence = e.unreadable ? 'A recorded change that no longer reads as its kind (shown raw below)' : historySentence(e.type, { data: e.data, currency: currencyOf(e.data) ?? currency });
    return [
      when(e.recorded_at),
      html`<p class="story">${sentence} by ${names.actor(e.actor)}${e.reason ? html` (reason: ${e.reason})` : ''}.</p>
${changeList(e.changes, currency)}
<details class="raw"><summary>Raw event</summary><pre>${JSON.stringify({ type: e.type, event_id: e.event_id, revision: e.revision, request_id: e.request_id, actor: e.actor, data: e.data, changes: e.changes, unreadable: e.unreadable }, null, 2)}</pre></details>`,
    ];
  });
  const shown = Object.entries(state).filter(([k]) => shownPath(k));
  const stateBlock = h.state
    ? html`<dl class="details state">${shown.map(([k, v]) => html`<div><dt>${labelOf(k)}</dt><dd>${valueText(k, v, currency)}</dd></div>`)}</dl>
<details class="raw"><summary>Raw state</summary><pre>${JSON.stringify(h.state, null, 2)}</pre></details>`
    : html`<p>It did not exist ${h.as_of ? html`at ${when(h.as_of)}` : 'yet'}.</p>`;
  const title = titleOf(type, state, names, refOf(state).customer_id);
  const link = type === 'invoice' ? `/console/invoices/${id}` : type === 'customer' ? `/console/customers/${id}` : type === 'payment' && refOf(state).invoice_id ? `/console/invoices/${refOf(state).invoice_id}` : null;
  sendConsole(p.res, p.session, 200, {
    title: `History of ${title}`,
    section: 'history',
    body: html`<h1>History of ${link ? html`<a href="${link}">${title}</a>` : title}</h1>
<section class="card" aria-labelledby="as-of"><h2 id="as-of">${h.as_of ? html`As of ${when(h.as_of)}` : 'Now'}</h2>${stateBlock}</section>
<section aria-labelledby="timeline"><h2 id="timeline">What happened (${h.event_count} change${h.event_count === 1 ? '' : 's'})</h2>
${table('Changes, oldest first', ['When', 'What happened'], rows, 'No changes up to then.')}
<p class="pager">${cursor ? html`<a href="/console/history${qs({ type, id, as_of: asOfText })}">First page</a> ` : ''}${h.pagination ? html`<a href="/console/history${qs({ type, id, as_of: asOfText, cursor: h.pagination.cursor })}">Next page</a>` : ''}</p></section>
<details><summary>Look up another history</summary>${form}</details>`,
  });
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The references a state or event carries (an invoice's `ref` block, or the fields themselves). */
function refOf(state: Record<string, unknown>): { customer_id: string; invoice_id: string } {
  const ref = state.ref && typeof state.ref === 'object' ? (state.ref as Record<string, unknown>) : state;
  return { customer_id: text(ref.customer_id), invoice_id: text(ref.invoice_id) };
}

function currencyOf(x: Record<string, unknown>): string | null {
  const ref = x.ref && typeof x.ref === 'object' ? (x.ref as Record<string, unknown>) : x;
  return text(ref.currency) || null;
}

// The page's title: the thing's name ("Invoice INV-0042 — Acme Repairs Ltd"), never its UUID where a name exists.
function titleOf(type: (typeof HISTORY_SUBJECT_TYPES)[number], s: Record<string, unknown>, names: NameBook, customerId: string): string {
  const who = customerId && names.customerName(customerId) ? ` — ${names.customerName(customerId)}` : '';
  const cur = currencyOf(s);
  switch (type) {
    case 'invoice': return `Invoice ${text(s.number) || '(draft)'}${who}`;
    case 'customer': return `Customer ${text(s.name) || 'removed'}`;
    case 'payment': return `Payment${typeof s.amount === 'number' && cur ? ` of ${money(s.amount, cur)}` : ''}${text(s.reference) ? ` (${text(s.reference)})` : ''}${who}`;
    case 'credit_note_request': return `Credit note request${typeof s.amount === 'number' && cur ? ` of ${money(s.amount, cur)}` : ''}${text(s.invoice_number) ? ` on ${text(s.invoice_number)}` : ''}${who}`;
    case 'note': return 'Note';
    case 'attachment': return `Attachment ${text(s.filename)}`.trim();
    case 'relationship': return 'Buyer relationship';
    case 'revision': return `${text(s.kind) === 'pricing' ? 'Pricing' : 'Baseline'} revision from ${text(s.effective_from).slice(0, 10)}`;
  }
}
