// Customers: find one by name, email or organization, and see everything about it at a glance.
import type express from 'express';
import type { Services } from '../../../context.ts';
import type { ApiProblem } from './api.ts';
import { badge, field, money, options, qs, sendConsole, table, when, UUID } from './layout.ts';
import { html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { NameBook, customerBadge, day } from './format.ts';
import { creditRows, fileRows, notesSection, paymentRows } from './sections.ts';
import { erasureSection } from './customer-erasure-section.ts';
import type { Refusal } from './form-state.ts';
import { MAX_EXPORT, sendCsv } from './csv.ts';
import { pageSizeOf, pager, placeOf, sortSelect } from './list-nav.ts';
import { messagesSection } from './messages.ts';


/** Mounts the customer search and the customer page. */
export function mountCustomers(app: express.Express, services: Services): void {
  app.get('/console/customers', ...consoleRoute(services, searchPage));
  app.get('/console/customers.csv', ...consoleRoute(services, exportCustomers));
  app.get('/console/customers/:id', ...consoleRoute(services, (p) => customerPage(p, String(p.req.params.id))));
}

/** The sorts of the customer list, in words (billing.customers.list's sort extension). */
const SORTS = [['name', 'Name, A to Z'], ['-name', 'Name, Z to A'], ['created_at', 'Oldest first'], ['-created_at', 'Newest first']] as const;
const PAGE = 25;

/** The list's filters from the query string (an organization id finds that organization's customer; other text searches names and emails). */
function listFilters(query: Record<string, unknown>) {
  const q = typeof query.q === 'string' ? query.q.trim() : '';
  const status: 'active' | 'removed' | undefined = query.status === 'active' || query.status === 'removed' ? query.status : undefined;
  const sort = SORTS.find(([v]) => v === query.sort)?.[0] ?? 'name';
  const filter = UUID.test(q) ? { organization_id: q } : q ? { query: q } : {};
  return { q, status, sort, filter };
}

async function searchPage(p: ConsolePage): Promise<void> {
  const { q, status, sort, filter } = listFilters(p.req.query);
  const place = placeOf(p.req.query);
  const limit = pageSizeOf(p.req.query, PAGE);
  const r = await p.api.call(ops['billing.customers.list'], { ...filter, status, sort, cursor: place.cursor, limit, include_total_count: true });
  const names = await NameBook.load(p.api, { customers: r.ok ? r.body.items.map((c) => c.id) : [], organizations: r.ok ? r.body.items.map((c) => c.organization_id) : [] });
  const rows = r.ok
    ? r.body.items.map((c) => [names.customer(c.id), c.email, names.organization(c.organization_id), c.currency, customerBadge(c.status, names.suspended(c.id))])
    : [];
  sendConsole(p.res, p.session, r.ok ? 200 : r.problem.status, {
    title: 'Customers',
    section: 'customers',
    problem: r.ok ? null : r.problem,
    body: html`<h1>Customers</h1>
<p class="links"><a class="button" href="/console/customers/new">New customer</a></p>
<form method="get" action="/console/customers" class="card filters" role="search">
<div class="grid">
${field('q', 'Name, email or organization id', html`<input id="q" name="q" type="search" value="${q}" aria-describedby="q-hint">`, 'Part of a name or email, or a whole organization id.')}
${field('status', 'Status', html`<select id="status" name="status">${options(['active', 'removed'], status, 'Any')}</select>`)}
${field('sort', 'Order', sortSelect('sort', SORTS, sort))}
</div>
<div class="actions"><button type="submit">Find</button><a class="button secondary" href="/console/customers.csv${qs({ q, status, sort })}" download>Export customers (CSV)</a></div>
</form>
${table('Customers found', ['Name', 'Email', 'Organization', 'Currency', 'Status'], rows, q ? 'No customer matches.' : 'No customers yet.')}
${r.ok ? pager('/console/customers', { q, status, sort: sort === 'name' ? undefined : sort, limit: limit === PAGE ? undefined : String(limit) }, place, r.body.items.length, limit, r.body.pagination?.cursor, r.body.total_count) : ''}`,
  });
}

// Every customer the filters match, in the list's order, as CSV.
async function exportCustomers(p: ConsolePage): Promise<void> {
  const { status, sort, filter } = listFilters(p.req.query);
  const rows: (string | number | null)[][] = [['Name', 'Email', 'Status', 'Currency', 'Payment terms (days)', 'Created (UTC)', 'Customer id', 'Organization id']];
  let cursor: string | undefined;
  do {
    const r = await p.api.call(ops['billing.customers.list'], { ...filter, status, sort, cursor, limit: 200 });
    if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Export', section: 'customers', problem: r.problem, body: html`<h1>Export</h1>` });
    // The list item has no payment terms: each customer is read (billing.customers.get) for them.
    const details = await Promise.all(r.body.items.map((c) => p.api.call(ops['billing.customers.get'], { id: c.id })));
    r.body.items.forEach((c, n) => {
      const d = details[n];
      rows.push([c.name, c.email, c.status, c.currency, d?.ok ? d.body.payment_terms_days : null, c.created_at, c.id, c.organization_id]);
    });
    cursor = r.body.pagination?.cursor;
  } while (cursor && rows.length <= MAX_EXPORT);
  sendCsv(p.res, 'customers', p.today, rows);
}

/** The customer page: details, balance, invoices, payments, credit note requests, notes, attachments and payment methods. */
export async function customerPage(p: ConsolePage, id: string, extra: { status?: number; problem?: ApiProblem | null; notice?: string | null; refusal?: Refusal } = {}): Promise<void> {
  const c = await p.api.call(ops['billing.customers.get'], { id });
  if (!c.ok) return void sendConsole(p.res, p.session, c.problem.status, { title: 'Customer', section: 'customers', problem: c.problem, body: html`<h1>Customer</h1><p><a href="/console/customers">Back to the customers</a></p>` });
  const cust = c.body;
  const [names, invoices, payments, credits, notes, files, methods, statement, overdue, subscriptions, open] = await Promise.all([
    NameBook.load(p.api, { customers: [id], organizations: [cust.organization_id] }),
    p.api.call(ops['billing.invoices.list'], { customer_id: id, limit: 20 }),
    p.api.call(ops['billing.payments.list'], { customer_id: id, limit: 20 }),
    p.api.call(ops['billing.credit-note-requests.list'], { customer_id: id, limit: 20 }),
    p.api.call(ops['billing.notes.list'], { subject: { type: 'customer', id }, limit: 50 }),
    p.api.call(ops['billing.customers.attachments.list'], { customer_id: id, limit: 50 }),
    p.api.call(ops['billing.payment-methods.list'], { customer_id: id }),
    p.api.call(ops['billing.customers.statement.get'], { customer_id: id, from: cust.created_at.slice(0, 10), to: p.today }),
    p.api.call(ops['billing.invoices.overdue-status.get'], { organization_id: cust.organization_id }),
    p.api.call(ops['billing.subscriptions.list'], { organization_id: cust.organization_id }),
    p.api.call(ops['billing.invoices.list'], { customer_id: id, status: 'open', limit: 200 }),
  ]);
  const messages = await p.api.call(ops['billing.messages.list'], { customer_id: id, limit: 200 });
  const problem = extra.problem ?? [invoices, payments, credits, notes, files, methods, statement, overdue, subscriptions, open].map((r) => (r.ok ? null : r.problem)).find(Boolean) ?? null;
  const cur = cust.currency;
  // The next invoice to fall due: the open invoice with the earliest due date from today on.
  const next = open.ok ? open.body.items.filter((i) => i.due_date && i.due_date >= p.today).sort((a, b) => String(a.due_date).localeCompare(String(b.due_date)))[0] : undefined;
  const o = overdue.ok ? overdue.body : null;
  const pastDue = o ? o.amount_past_due.map((m) => money(m.amount, m.currency)).join(', ') || money(0, cur) : '—';
  const balance = statement.ok
    ? html`<dl class="figures">
<div><dt>Balance owed</dt><dd>${money(statement.body.closing_balance, cur)}</dd></div>
<div><dt>Past due</dt><dd${o?.past_due ? html` class="bad"` : ''}>${pastDue}</dd></div>
<div><dt>Next invoice due</dt><dd>${next ? html`<a href="/console/invoices/${next.id}">${next.number ?? 'Invoice'}</a> ${money(next.amount_remaining, next.currency)} <small>on ${next.due_date ?? ''}</small>` : 'nothing due'}</dd></div>
<div><dt>Unapplied credit</dt><dd>${money(statement.body.unapplied_credit, cur)}</dd></div>
</dl>`
    : '';
  const access = !o
    ? ''
    : o.suspended
      ? html`<p class="problem" role="status"><strong>Access suspended</strong> for non-payment since ${when(o.suspended_at)}: restored once the past-due invoices are paid.</p>`
      : o.past_due && o.suspension_date
        ? html`<p class="problem" role="status"><strong>Past due:</strong> access will be suspended on ${o.suspension_date} unless ${pastDue} is paid.</p>`
        : '';
  const subRows = subscriptions.ok
    ? subscriptions.body.map((sub) => [
      html`<a href="/console/configuration${qs({ subscription_id: sub.id })}">Configuration</a> · <a href="/console/usage${qs({ subscription_id: sub.id })}">Usage</a>`,
      badge(sub.status), `${sub.current_period_start.slice(0, 10)} to ${sub.current_period_end.slice(0, 10)}`, `${sub.items.length} price${sub.items.length === 1 ? '' : 's'}`,
    ])
    : [];
  const invoiceRows = invoices.ok
    ? invoices.body.items.map((i) => [html`<a href="/console/invoices/${i.id}">${i.number ?? 'Draft'}</a>`, badge(i.status), day(i.issue_date), day(i.due_date), money(i.total, i.currency), money(i.amount_remaining, i.currency)])
    : [];
  const methodRows = methods.ok
    ? methods.body.items.map((m) => [m.type.replaceAll('_', ' '), [m.brand, m.bank_name].filter(Boolean).join(' ') || '—', `•••• ${m.last4}`, m.is_default ? 'default' : '', when(m.created_at)])
    : [];
  const address = cust.billing_address ? [cust.billing_address.line1, cust.billing_address.line2, cust.billing_address.city, cust.billing_address.region, cust.billing_address.postal_code, cust.billing_address.country].filter(Boolean).map((s) => String(s)).join(', ') : '—';
  sendConsole(p.res, p.session, extra.status ?? 200, {
    title: cust.name,
    section: 'customers',
    notice: extra.notice,
    problem,
    body: html`<h1>${cust.name} ${customerBadge(cust.status, names.suspended(id) || (o?.suspended ?? false))}${o?.past_due && !o.suspended ? html` ${badge('past_due')}` : ''}</h1>
${access}
<p class="links"><a class="button" href="/console/invoices/new?customer_id=${id}">New draft invoice</a>
<a href="/console/customers/${id}/edit">Edit customer</a>
<a href="/console/customers/${id}/statement">Statement</a>
<a href="/console/invoices${qs({ customer_id: id })}">All invoices</a>
<a href="/console/history${qs({ type: 'customer', id })}">History</a></p>
<section class="card" aria-labelledby="at-a-glance"><h2 id="at-a-glance">At a glance</h2>
${balance}
<dl class="details">
<div><dt>Email</dt><dd>${cust.email}</dd></div>
<div><dt>Organization</dt><dd>${names.organization(cust.organization_id)}</dd></div>
<div><dt>Currency</dt><dd>${cur}</dd></div>
<div><dt>Payment terms</dt><dd>${cust.payment_terms_days} days</dd></div>
<div><dt>Tax id</dt><dd>${cust.tax_id ?? '—'}</dd></div>
<div><dt>Address</dt><dd>${address}</dd></div>
<div><dt>Automatic collection</dt><dd>${methods.ok ? (methods.body.collection.auto_collection ? 'on' : 'off') : '—'}</dd></div>
</dl></section>
<section aria-labelledby="subscriptions"><h2 id="subscriptions">Subscriptions</h2>
${table('Subscriptions', ['Open', 'Status', 'Current period', 'Prices'], subRows, 'No subscriptions.')}</section>
<section aria-labelledby="invoices"><h2 id="invoices">Invoices</h2>
${table('Latest invoices', ['Number', 'Status', 'Issued', 'Due', 'Total', 'Remaining'], invoiceRows, 'No invoices yet.')}</section>
<section aria-labelledby="payments"><h2 id="payments">Payments</h2>
${table('Latest payments', ['Received', 'Amount', 'Method', 'Reference', 'Status', 'Invoice'], payments.ok ? paymentRows(payments.body.items) : [], 'No payments yet.')}</section>
<section aria-labelledby="credits"><h2 id="credits">Credit note requests</h2>
${table('Latest credit note requests', ['Invoice', 'Amount', 'Reason', 'Status', 'Requested'], credits.ok ? creditRows(credits.body.items) : [], 'No credit note requests.')}</section>
${messagesSection(messages)}
${await notesSection(p, { type: 'customer', id }, notes.ok ? notes.body.items : [])}
<section aria-labelledby="files"><h2 id="files">Attachments</h2>
${table('Attachments', ['File', 'Type', 'Size', 'Visibility', 'Added'], files.ok ? fileRows(files.body.items, { type: 'customer', id }) : [], 'No attachments.')}</section>
<section aria-labelledby="methods"><h2 id="methods">Payment methods</h2>
${table('Payment methods', ['Type', 'Brand or bank', 'Number', 'Default', 'Added'], methodRows, 'No saved payment methods.')}</section>
${erasureSection(p, cust, extra.refusal)}`,
  });
}
