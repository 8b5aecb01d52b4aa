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
import { MAX_EXPORT, decimal, sendCsv } from './csv.ts';
import { pageSizeOf, pager, placeOf, sortSelect } from './list-nav.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

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
  app.get('/console/payments.csv', ...consoleRoute(services, exportPayments));
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

/** The sorts of the invoice list, in words (billing.invoices.list's sort extension). */
const SORTS = [['created_at', 'Oldest first'], ['-created_at', 'Newest first'], ['-total', 'Total, highest first'], ['total', 'Total, lowest first'], ['-amount_remaining', 'Most still owed first'], ['amount_remaining', 'Least still owed first']] as const;
type Sort = (typeof SORTS)[number][0];
const PAGE = 50;

function sortOf(query: Record<string, unknown>): Sort {
  return SORTS.find(([v]) => v === query.sort)?.[0] ?? 'created_at';
}

async function listPage(p: ConsolePage): Promise<void> {
  const f = filtersOf(p.req.query);
  const sort = sortOf(p.req.query);
  const place = placeOf(p.req.query);
  const limit = pageSizeOf(p.req.query, PAGE);
  const r = await p.api.call(ops['billing.invoices.list'], { ...f, sort, cursor: place.cursor, limit, include_total_count: true });
  const names = await NameBook.load(p.api, { customers: r.ok ? r.body.items.map((i) => i.customer_id) : [] });
  const rows = r.ok ? r.body.items.map((i) => row(i, names)) : [];
  const dateField = (name: keyof Filters, label: string) => field(name, label, html`<input id="${name}" name="${name}" type="date" value="${f[name] ?? ''}">`);
  // A column header that sorts by it (high to low first; a second click turns it round).
  const sortable = (label: string, column: 'total' | 'amount_remaining') => {
    const to = sort === `-${column}` ? column : `-${column}`;
    const state = sort === column ? ' ↑' : sort === `-${column}` ? ' ↓' : '';
    return html`<a href="/console/invoices${qs({ ...f, sort: to })}" aria-label="${label}: sort ${to.startsWith('-') ? 'highest' : 'lowest'} first">${label}${state}</a>`;
  };
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
${field('sort', 'Order', sortSelect('sort', SORTS, sort))}
</div>
${f.customer_id ? html`<input type="hidden" name="customer_id" value="${f.customer_id}"><p class="muted">One customer's invoices. <a href="/console/invoices">Show all customers</a></p>` : ''}
<div class="actions"><button type="submit">Filter</button><a class="button secondary" href="/console/invoices.csv${qs({ ...f, sort })}" download>Export invoices (CSV)</a>
<a class="button secondary" href="/console/payments.csv${qs({ customer_id: f.customer_id })}" download>Export payments (CSV)</a></div>
</form>
${table('Invoices', ['Number', 'Status', 'Customer', 'Issued', 'Due', sortable('Total', 'total'), sortable('Remaining', 'amount_remaining')], rows, 'No invoice matches.')}
${r.ok ? pager('/console/invoices', { ...f, sort: sort === 'created_at' ? undefined : sort, limit: limit === PAGE ? undefined : String(limit) }, place, r.body.items.length, limit, r.body.pagination?.cursor, r.body.total_count) : ''}`,
  });
}

function row(i: z.output<typeof InvoiceListItem>, names: NameBook): Html[] {
  return [
    html`<a href="/console/invoices/${i.id}">${i.number ?? 'Draft'}</a>`, badge(i.status), names.customer(i.customer_id),
    day(i.issue_date), day(i.due_date), money(i.total, i.currency), money(i.amount_remaining, i.currency),
  ];
}

/** Customers' names and emails by id, each read once per export (billing.customers.get). */
export function customerNames(p: ConsolePage): (id: string) => Promise<{ name: string; email: string }> {
  const cache = new Map<string, Promise<{ name: string; email: string }>>();
  return (id) => {
    let found = cache.get(id);
    if (!found) {
      found = p.api.call(ops['billing.customers.get'], { id }).then((r) => (r.ok ? { name: r.body.name, email: r.body.email } : { name: '', email: '' }));
      cache.set(id, found);
    }
    return found;
  };
}

// Every page of the filtered list, in its order, through the API's cursors: customer names and decimal amounts.
async function exportCsv(p: ConsolePage): Promise<void> {
  const f = filtersOf(p.req.query);
  const sort = sortOf(p.req.query);
  const named = customerNames(p);
  const rows: (string | number | null)[][] = [['Number', 'Customer', 'Customer email', 'Status', 'Currency', 'Total', 'Remaining', 'Issued', 'Due', 'Created (UTC)', 'Invoice id', 'Customer id', 'Organization id']];
  let cursor: string | undefined;
  do {
    const r = await p.api.call(ops['billing.invoices.list'], { ...f, sort, cursor, limit: 200 });
    if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Export', section: 'invoices', problem: r.problem, body: html`<h1>Export</h1>` });
    for (const i of r.body.items) {
      const c = await named(i.customer_id);
      rows.push([i.number, c.name, c.email, i.status, i.currency, decimal(i.total, i.currency), decimal(i.amount_remaining, i.currency), i.issue_date, i.due_date, i.created_at, i.id, i.customer_id, i.organization_id]);
    }
    cursor = r.body.pagination?.cursor;
  } while (cursor && rows.length <= MAX_EXPORT);
  sendCsv(p.res, 'invoices', p.today, rows);
}

// Every payment visible (or one customer's), newest first, with its customer's name and its invoice's number.
async function exportPayments(p: ConsolePage): Promise<void> {
  const customerId = typeof p.req.query.customer_id === 'string' && UUID.test(p.req.query.customer_id) ? p.req.query.customer_id : undefined;
  const named = customerNames(p);
  const numbers = new Map<string, Promise<string | null>>();
  const numberOf = (id: string) => {
    let n = numbers.get(id);
    if (!n) {
      n = p.api.call(ops['billing.invoices.get'], id).then((r) => (r.ok ? r.body.number : null));
      numbers.set(id, n);
    }
    return n;
  };
  const rows: (string | number | null)[][] = [['Received', 'Customer', 'Invoice', 'Amount', 'Currency', 'Method', 'Reference', 'Status', 'Void reason', 'Recorded (UTC)', 'Payment id', 'Invoice id', 'Customer id']];
  let cursor: string | undefined;
  do {
    const r = await p.api.call(ops['billing.payments.list'], { customer_id: customerId, sort: '-created_at', cursor, limit: 200 });
    if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Export', section: 'invoices', problem: r.problem, body: html`<h1>Export</h1>` });
    for (const x of r.body.items) {
      rows.push([x.received_on, (await named(x.customer_id)).name, await numberOf(x.invoice_id), decimal(x.amount, x.currency), x.currency, x.method.replaceAll('_', ' '), x.reference, x.status, x.void_reason, x.created_at, x.id, x.invoice_id, x.customer_id]);
    }
    cursor = r.body.pagination?.cursor;
  } while (cursor && rows.length <= MAX_EXPORT);
  sendCsv(p.res, 'payments', p.today, rows);
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
