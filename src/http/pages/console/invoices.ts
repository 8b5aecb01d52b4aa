// Invoices: the filtered list with the API's cursors, its CSV export, the new-draft form and the invoice page routes (with its re-rate preview).
import type express from 'express';
import type { z } from 'zod';
import type { Services } from '../../../context.ts';
import { InvoiceStatus, type InvoiceListItem } from '../../../contract/schemas/billing-invoices.ts';
import { badge, field, formGuard, money, options, qs, sendConsole, table, UUID } from './layout.ts';
import { type Html, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { NameBook, day } from './format.ts';
import { formProblem, lineEditor, readLines } from './invoice-forms.ts';
import { invoicePage } from './invoice-page.ts';
import type { ApiProblem } from './api.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Most rows one CSV export holds (the API is paged through, 200 at a time). */
const MAX_EXPORT = 10_000;
/** Columns of the CSV: the API's field names and values, unchanged, so a row matches billing.invoices.list. */
const CSV_COLUMNS = ['id', 'number', 'organization_id', 'customer_id', 'status', 'currency', 'total', 'amount_remaining', 'issue_date', 'due_date', 'created_at'] as const;

/** The list filters a clerk can set, read from the query string (anything malformed is dropped, not sent). */
interface Filters {
  customer_id?: string;
  status?: z.output<typeof InvoiceStatus>;
  issue_date_from?: string;
  issue_date_to?: string;
  due_date_from?: string;
  due_date_to?: string;
}

function filtersOf(query: Record<string, unknown>): Filters {
  const pick = (k: string, ok: (v: string) => boolean) => (typeof query[k] === 'string' && ok(query[k]) ? query[k] : undefined);
  return {
    customer_id: pick('customer_id', (v) => UUID.test(v)),
    status: InvoiceStatus.options.find((s) => s === query.status),
    issue_date_from: pick('issue_date_from', (v) => DATE.test(v)),
    issue_date_to: pick('issue_date_to', (v) => DATE.test(v)),
    due_date_from: pick('due_date_from', (v) => DATE.test(v)),
    due_date_to: pick('due_date_to', (v) => DATE.test(v)),
  };
}

/** Mounts the invoice list, its CSV, the new-draft form and the invoice page. */
export function mountInvoices(app: express.Express, services: Services): void {
  app.get('/console/invoices', ...consoleRoute(services, listPage));
  app.get('/console/invoices.csv', ...consoleRoute(services, exportCsv));
  app.get('/console/invoices/new', ...consoleRoute(services, (p) => newPage(p)));
  app.post('/console/invoices', ...consoleRoute(services, createDraft));
  app.get('/console/invoices/:id', ...consoleRoute(services, (p) => invoicePage(p, String(p.req.params.id))));
  // Re-rate preview: a read (GET, no CSRF token needed), shown on the invoice page; a refusal (e.g. usage_unrateable) is shown as the API gives it.
  app.get('/console/invoices/:id/rerate', ...consoleRoute(services, async (p) => {
    const id = String(p.req.params.id);
    const r = await p.api.call(ops['billing.invoices.rerate.preview'], { invoice_id: id });
    return invoicePage(p, id, r.ok ? { rerate: r.body } : { status: r.problem.status, problem: r.problem });
  }));
}

async function listPage(p: ConsolePage): Promise<void> {
  const f = filtersOf(p.req.query);
  const cursor = typeof p.req.query.cursor === 'string' ? p.req.query.cursor : undefined;
  const r = await p.api.call(ops['billing.invoices.list'], { ...f, cursor, limit: 50 });
  const names = await NameBook.load(p.api, { customers: r.ok ? r.body.items.map((i) => i.customer_id) : [] });
  const rows = r.ok ? r.body.items.map((i) => row(i, names)) : [];
  const dateField = (name: keyof Filters, label: string) => field(name, label, html`<input id="${name}" name="${name}" type="date" value="${f[name] ?? ''}">`);
  sendConsole(p.res, p.session, r.ok ? 200 : r.problem.status, {
    title: 'Invoices',
    section: 'invoices',
    problem: r.ok ? null : r.problem,
    body: html`<h1>Invoices</h1>
<form method="get" action="/console/invoices" class="card filters">
<div class="grid">
${field('status', 'Status', html`<select id="status" name="status">${options(InvoiceStatus.options, f.status, 'Any')}</select>`)}
${dateField('issue_date_from', 'Issued from')}${dateField('issue_date_to', 'Issued to')}
${dateField('due_date_from', 'Due from')}${dateField('due_date_to', 'Due to')}
</div>
${f.customer_id ? html`<input type="hidden" name="customer_id" value="${f.customer_id}"><p class="muted">One customer's invoices. <a href="/console/invoices">Show all customers</a></p>` : ''}
<div class="actions"><button type="submit">Filter</button><a class="button secondary" href="/console/invoices.csv${qs({ ...f })}" download>Export CSV</a></div>
</form>
${table('Invoices', ['Number', 'Status', 'Customer', 'Issued', 'Due', 'Total', 'Remaining'], rows, 'No invoice matches.')}
<p class="pager">${cursor ? html`<a href="/console/invoices${qs({ ...f })}">First page</a> ` : ''}${r.ok && r.body.pagination ? html`<a href="/console/invoices${qs({ ...f, cursor: r.body.pagination.cursor })}">Next page</a>` : ''}</p>`,
  });
}

function row(i: z.output<typeof InvoiceListItem>, names: NameBook): Html[] {
  return [
    html`<a href="/console/invoices/${i.id}">${i.number ?? 'Draft'}</a>`, badge(i.status), names.customer(i.customer_id),
    day(i.issue_date), day(i.due_date), money(i.total, i.currency), money(i.amount_remaining, i.currency),
  ];
}

// Every page of the filtered list, through the API's cursors, as CSV (RFC 4180; cells that a spreadsheet would run as a formula are quoted with a leading ').
async function exportCsv(p: ConsolePage): Promise<void> {
  const f = filtersOf(p.req.query);
  const lines = [CSV_COLUMNS.join(',')];
  let cursor: string | undefined;
  do {
    const r = await p.api.call(ops['billing.invoices.list'], { ...f, cursor, limit: 200 });
    if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Export', section: 'invoices', problem: r.problem, body: html`<h1>Export</h1>` });
    for (const i of r.body.items) lines.push(CSV_COLUMNS.map((c) => csvCell(i[c])).join(','));
    cursor = r.body.pagination?.cursor;
  } while (cursor && lines.length <= MAX_EXPORT);
  p.res.set({ 'Content-Disposition': `attachment; filename="invoices-${p.today}.csv"`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  p.res.type('text/csv; charset=utf-8').send(`${lines.join('\r\n')}\r\n`);
}

function csvCell(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

async function newPage(p: ConsolePage, problem: ApiProblem | null = null, status = 200): Promise<void> {
  const customerId = typeof p.req.query.customer_id === 'string' ? p.req.query.customer_id : (p.form.customer_id ?? '');
  const c = UUID.test(customerId) ? await p.api.call(ops['billing.customers.get'], { id: customerId }) : null;
  if (!c || !c.ok) return void sendConsole(p.res, p.session, c ? c.problem.status : 400, { title: 'New invoice', section: 'invoices', problem: c && !c.ok ? c.problem : null, body: html`<h1>New draft invoice</h1><p>Open a customer first: <a href="/console/customers">find the customer</a>, then choose "New draft invoice".</p>` });
  sendConsole(p.res, p.session, status, {
    title: 'New draft invoice',
    section: 'invoices',
    problem,
    body: html`<h1>New draft invoice for ${c.body.name}</h1>
<form method="post" action="/console/invoices" class="card">${formGuard(p.session)}
<input type="hidden" name="customer_id" value="${c.body.id}">
${lineEditor([], c.body.currency, 5)}
${field('memo', 'Memo (printed on the invoice)', html`<textarea id="memo" name="memo" rows="2" maxlength="5000"></textarea>`)}
<div class="actions"><button type="submit">Save draft</button><a href="/console/customers/${c.body.id}">Cancel</a></div></form>`,
  });
}

async function createDraft(p: ConsolePage): Promise<void> {
  const customerId = p.form.customer_id ?? '';
  const c = UUID.test(customerId) ? await p.api.call(ops['billing.customers.get'], { id: customerId }) : null;
  if (!c || !c.ok) return newPage(p, c && !c.ok ? c.problem : formProblem('Choose a customer.'), 400);
  const read = readLines(p.form, c.body.currency);
  if ('problem' in read) return newPage(p, read.problem, 400);
  const memo = (p.form.memo ?? '').trim();
  const r = await p.api.call(ops['billing.invoices.insert'], { customer_id: customerId, lines: read.lines, ...(memo ? { memo } : {}) }, { idempotencyKey: p.form.idem });
  if (!r.ok) return newPage(p, r.problem, r.problem.status);
  p.res.redirect(303, `/console/invoices/${encodeURIComponent(r.body.id)}?done=drafted`);
}
