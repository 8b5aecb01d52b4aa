// Search from every console page (issue 28 §4): the header's box lands here; billing.search.list answers, grouped by kind.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { badge, money, sendConsole, table } from './layout.ts';
import { html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';

/** Mounts the search results page. */
export function mountSearch(app: express.Express, services: Services): void {
  app.get('/console/search', ...consoleRoute(services, searchPage));
}

async function searchPage(p: ConsolePage): Promise<void> {
  const q = typeof p.req.query.q === 'string' ? p.req.query.q.trim().slice(0, 200) : '';
  const form = html`<form method="get" action="/console/search" class="card filters" role="search">
<label for="search-q">Find a customer (name or email), an invoice (number), a payment (reference) or an organization (name)</label>
<input id="search-q" name="q" type="search" value="${q}" aria-describedby="search-q-hint" autofocus>
<small id="search-q-hint">The start of what you are looking for, at least 2 characters, any case; or a whole id.</small>
<div class="actions"><button type="submit">Search</button></div></form>`;
  if (q.length < 2)
    return void sendConsole(p.res, p.session, 200, { title: 'Search', search: q, body: html`<h1>Search</h1>${form}${q ? html`<p class="muted">Type at least 2 characters.</p>` : ''}` });
  const r = await p.api.call(ops['billing.search.list'], { query: q, limit: 20 });
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Search', search: q, problem: r.problem, body: html`<h1>Search</h1>${form}` });
  const x = r.body;
  const customer = (c: { id: string; name: string } | null) => (c ? html`<a href="/console/customers/${c.id}">${c.name}</a>` : '—');
  const found = x.customers.length + x.invoices.length + x.payments.length + x.organizations.length;
  const group = (id: string, title: string, count: number, body: ReturnType<typeof table>) =>
    count ? html`<section aria-labelledby="${id}"><h2 id="${id}">${title} <span class="muted">(${count})</span></h2>${body}</section>` : '';
  sendConsole(p.res, p.session, 200, {
    title: `Search: ${q}`,
    search: q,
    body: html`<h1>Search results for “${q}”</h1>${form}
${found ? '' : html`<p role="status">Nothing starts with “${q}”. Try the start of a name, an email, an invoice number (INV-…) or a payment reference.</p>`}
${group('found-invoices', 'Invoices', x.invoices.length, table('Invoices found', ['Number', 'Customer', 'Status', 'Issued', 'Total', 'Remaining'], x.invoices.map((i) => [
    html`<a href="/console/invoices/${i.id}">${i.number ?? 'Draft'}</a>`, customer(i.customer), badge(i.status), i.issue_date ?? '—', money(i.total, i.currency), money(i.amount_remaining, i.currency),
  ])))}
${group('found-customers', 'Customers', x.customers.length, table('Customers found', ['Name', 'Email', 'Currency', 'Status'], x.customers.map((c) => [
    html`<a href="/console/customers/${c.id}">${c.name}</a>`, c.email, c.currency, badge(c.status),
  ])))}
${group('found-payments', 'Payments', x.payments.length, table('Payments found', ['Reference', 'Customer', 'Invoice', 'Received', 'Amount', 'Status'], x.payments.map((y) => [
    html`<a href="/console/invoices/${y.invoice_id}#payments">${y.reference}</a>`, customer(y.customer), html`<a href="/console/invoices/${y.invoice_id}">${y.invoice_number ?? 'Draft'}</a>`,
    y.received_on, money(y.amount, y.currency), badge(y.status),
  ])))}
${group('found-organizations', 'Organizations', x.organizations.length, table('Organizations found', ['Organization', 'Kind', 'Billing customer', 'Id'], x.organizations.map((o) => [
    o.name, o.kind, customer(o.customer), html`<code>${o.id}</code>`,
  ])))}`,
  });
}
