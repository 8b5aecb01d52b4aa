// The console's page frame, headers and small HTML helpers, all built with `html` (every value shown is escaped).
import type { Response } from 'express';
import { type Html, type SafeHtml, html, markup } from '../html.ts';
import { csrfToken, type WebSession } from '../web-session.ts';
import type { ApiProblem } from './api.ts';
import { newIdempotencyKey } from './api.ts';
import { plainMessage } from './form-state.ts';
import { displayMinorUnits } from '../../../iso4217.ts';
import { instant, money as formatMoney } from './format.ts';

/** A UUID as the API writes ids (anything else in a URL or form is not sent on). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the console's own assets are served (CSP allows scripts and styles from 'self' only). */
export const ASSETS = '/console/assets';

/**
 * Headers of every console page: a strict CSP (own scripts and styles only, nothing fetched by scripts,
 * forms only to this origin), never framed, no Referer (URLs carry customer ids), not cached.
 */
export function consoleHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
}

/** A rendered console page: what sendConsole needs. */
export interface PageParts {
  title: string;
  /** The main area. */
  body: SafeHtml;
  /** Which navigation entry is current. */
  section?: 'attention' | 'customers' | 'invoices' | 'overdue' | 'outbox' | 'activity' | 'history' | 'configuration' | 'health';
  /** A message of success (fixed text chosen by the server, never taken from the URL). */
  notice?: string | null;
  problem?: ApiProblem | null;
  /** What the header's search box shows (the search page's own query). */
  search?: string;
}

const NAV: [NonNullable<PageParts['section']>, string, string][] = [
  ['attention', '/console/attention', 'Needs attention'],
  ['customers', '/console/customers', 'Customers'],
  ['invoices', '/console/invoices', 'Invoices'],
  ['overdue', '/console/overdue', 'Overdue'],
  ['outbox', '/console/outbox', 'Outbox'],
  ['activity', '/console/activity', 'Activity'],
  ['history', '/console/history', 'History'],
  ['configuration', '/console/configuration', 'Configuration'],
  ['health', '/console/health', 'Health'],
];

/** Messages after a successful form (PRG: `?done=<key>`); only these fixed texts are ever shown, nothing from the URL. */
const DONE: Record<string, string> = {
  drafted: 'Draft invoice saved.',
  lines_saved: 'Lines saved.',
  finalized: 'Invoice finalized: it has its number and due date.',
  voided: 'Invoice voided.',
  uncollectible: 'Invoice marked uncollectible.',
  payment_recorded: 'Payment recorded.',
  payment_saved: 'Payment changed.',
  payment_voided: 'Payment voided.',
  credit_raised: 'Credit note request raised.',
  credit_approve: 'Credit note request approved.',
  credit_reject: 'Credit note request rejected.',
  credit_issue: 'Credit note issued.',
  credit_cancel: 'Credit note request cancelled.',
  note_added: 'Note added.',
  note_saved: 'Note saved.',
  refunded: 'Refund sent through the payment provider; the charge left the list.',
  charge_applied: 'Charge applied to the invoice as a payment; it left the list.',
  correction_issued: 'Correction issued.',
  customer_created: 'Customer created.',
  customer_saved: 'Customer saved.',
  customer_erased: 'Personal data erased. Issued invoices keep what tax law requires until their retention period ends.',
};

/** Sends a console page inside the frame (navigation, who is signed in, sign out). */
export function sendConsole(res: Response, session: WebSession, status: number, p: PageParts): void {
  consoleHeaders(res);
  const done = res.req?.query.done;
  const notice = p.notice ?? (typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : null);
  // consoleRoute counts what needs attention before the page is made (absent when the count could not be read).
  const waiting: unknown = res.locals.attentionCount;
  const badge = (key: string) => (key === 'attention' && typeof waiting === 'number' ? html` <span class="badge${waiting ? ' badge-uncollectible' : ''}" id="attention-count">${waiting}</span>` : '');
  const nav = NAV.map(([key, href, label]) => html`<li><a href="${href}"${p.section === key ? html` aria-current="page"` : ''}>${label}${badge(key)}</a></li>`);
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${p.title} · Billing console</title>
<link rel="stylesheet" href="${ASSETS}/console.css">
<script src="${ASSETS}/chart.umd.min.js" defer></script>
<script src="${ASSETS}/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/console">Billing console</a>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
<form method="get" action="/console/search" role="search" class="top-search"><label for="top-search" class="sr">Search the console</label><input id="top-search" name="q" type="search" value="${p.search ?? ''}" placeholder="Customer, invoice no., payment ref." maxlength="200"><button type="submit" class="secondary">Search</button></form>
<div class="who">
<span>${session.auth.name || session.auth.email}</span>
<form method="post" action="/auth/logout"><input type="hidden" name="csrf" value="${csrfToken(session)}"><button type="submit" class="link">Sign out</button></form>
</div>
</header>
<main id="main">
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${p.problem ? problemBox(p.problem) : ''}
${p.body}
</main>
</body>
</html>`;
  res.status(status).type('html').send(markup(page));
}

/** The API's refusal, as a clerk reads it: the message, each field's problem, and the request id to quote. */
export function problemBox(p: ApiProblem): SafeHtml {
  // Each field's problem in words ("billing address city: Fill this in."), as next to the field itself.
  const issues = p.issues.length ? html`<ul>${p.issues.map((i) => html`<li>${i.path ? `${i.path.replace(/[._]/g, ' ')}: ` : ''}${plainMessage(i.message)}</li>`)}</ul>` : '';
  const message = p.code === 'invalid_request' && p.issues.length ? 'Some fields need fixing: each says what is wrong next to it.' : p.message;
  return html`<div class="problem" role="alert"><p><strong>Not done:</strong> ${message} <span class="muted">(${p.code}${p.requestId ? `, request ${p.requestId}` : ''})</span></p>${issues}</div>`;
}

/** The hidden fields every console form carries: the session's CSRF token and a fresh idempotency key. */
export function formGuard(session: WebSession): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrfToken(session)}"><input type="hidden" name="idem" value="${newIdempotencyKey()}">`;
}

/** Money in minor units as "GBP 1,234.50" (see format.ts). Display only: amounts stay integers everywhere else. */
export const money = formatMoney;

/** Minor-unit digits of a currency (2 for GBP, 0 for JPY, 3 for IQD), from the ISO 4217 table; 0 for a code it lacks (shown as raw minor units). */
export function minorDigits(currency: string): number {
  return displayMinorUnits(currency) ?? 0;
}

/** Parses an amount typed in major units ("12.5", "1,200.00") into integer minor units; null when it is not one. */
export function parseMoney(text: unknown, currency: string): number | null {
  if (typeof text !== 'string') return null;
  const t = text.replaceAll(',', '').trim();
  const digits = minorDigits(currency);
  const m = /^(\d{1,13})(?:\.(\d*))?$/.exec(t);
  if (!m || (m[2] ?? '').length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || '0');
}

/** Minor units as an editable major-unit figure ("12.50"). */
export function moneyInput(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return digits === 0 ? String(minor) : `${Math.trunc(minor / 10 ** digits)}.${String(minor % 10 ** digits).padStart(digits, '0')}`;
}

/** A status as a labelled badge (the word is always written: colour is never the only cue). */
export function badge(status: string): SafeHtml {
  return html`<span class="badge badge-${status.replace(/[^a-z_]/g, '')}">${status.replaceAll('_', ' ')}</span>`;
}

/** An instant, readable, with its UTC value on hover (see format.ts). */
export const when = instant;

/** A table with a caption, scrolling sideways on narrow screens. A cell is markup (SafeHtml) or text (escaped). */
export function table(caption: string, head: readonly Html[], rows: readonly (readonly Html[])[], empty = 'Nothing yet.'): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table>
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/**
 * A labelled form field; `error`: what is wrong with what was typed, in words, shown between the label and the input
 * (the console's script marks the input invalid and described by it).
 */
export function field(name: string, label: string, input: SafeHtml, hint?: string, error?: string): SafeHtml {
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${name}">${label}</label>${error ? html`<p class="field-error" id="${name}-error" data-for="${name}">${error}</p>` : ''}${input}${hint ? html`<small id="${name}-hint">${hint}</small>` : ''}</div>`;
}

/** `<select>` options with one selected. */
export function options(values: readonly string[], selected: string | undefined, blank?: string): SafeHtml {
  return html`${blank !== undefined ? html`<option value="">${blank}</option>` : ''}${values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v.replaceAll('_', ' ')}</option>`)}`;
}

/** Query string of the non-empty values. */
export function qs(params: Record<string, string | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) u.set(k, v);
  const s = u.toString();
  return s ? `?${s}` : '';
}
