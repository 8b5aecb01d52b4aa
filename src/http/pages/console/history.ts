// History of anything: the event timeline of a customer, invoice, payment, credit note request or note
// (who, when, why, what changed) and the entity as of a chosen instant, from billing.history.get.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { HISTORY_SUBJECT_TYPES } from '../../../contract/schemas/billing-history.ts';
import { field, options, qs, sendConsole, table, when, UUID } from './layout.ts';
import { type Html, html } from '../html.ts';
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

function show(v: unknown): Html {
  if (v === null || v === undefined) return html`<span class="muted">none</span>`;
  if (typeof v === 'string') return v;
  return html`<code>${JSON.stringify(v)}</code>`;
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
  const rows = h.items.map((e) => [
    when(e.recorded_at),
    html`${e.actor.name ?? e.actor.id}${e.actor.email ? html`<br><span class="muted">${e.actor.email}</span>` : ''}<br><span class="muted">${e.actor.type}</span>`,
    e.type,
    e.reason ? e.reason : html`<span class="muted">none given</span>`,
    e.changes.length ? html`<ul class="changes">${e.changes.map((c) => html`<li><code>${c.path}</code>: ${show(c.before)} → ${show(c.after)}</li>`)}</ul>` : html`<span class="muted">no field changed</span>`,
  ]);
  const state = h.state
    ? html`<dl class="details state">${Object.entries(h.state).map(([k, v]) => html`<div><dt>${k}</dt><dd>${show(v)}</dd></div>`)}</dl>`
    : html`<p>It did not exist ${h.as_of ? html`at ${when(h.as_of)}` : 'yet'}.</p>`;
  const label = type.replaceAll('_', ' ');
  const link = type === 'invoice' ? `/console/invoices/${id}` : type === 'customer' ? `/console/customers/${id}` : null;
  sendConsole(p.res, p.session, 200, {
    title: `History of ${label}`,
    section: 'history',
    body: html`<h1>History of ${label} ${link ? html`<a href="${link}"><code>${id}</code></a>` : html`<code>${id}</code>`}</h1>
${form}
<section class="card" aria-labelledby="as-of"><h2 id="as-of">${h.as_of ? html`As of ${when(h.as_of)}` : 'Now'}</h2>${state}</section>
<section aria-labelledby="timeline"><h2 id="timeline">Timeline (${h.event_count} events)</h2>
${table('Events, oldest first', ['When', 'Who', 'What', 'Reason', 'Changed'], rows, 'No events up to then.')}
<p class="pager">${cursor ? html`<a href="/console/history${qs({ type, id, as_of: asOfText })}">First page</a> ` : ''}${h.pagination ? html`<a href="/console/history${qs({ type, id, as_of: asOfText, cursor: h.pagination.cursor })}">Next page</a>` : ''}</p></section>`,
  });
}
