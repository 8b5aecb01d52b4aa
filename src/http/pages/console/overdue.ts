// Overdue: every organization with a past-due invoice, how much, when its access is (or was) suspended, and its payment link.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { money, sendConsole, table } from './layout.ts';
import { day } from './format.ts';
import { html, join } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';

/** Most past-due invoices read to find the organizations (pages of 200). */
const MAX_INVOICES = 5_000;

/** Mounts GET /console/overdue. */
export function mountOverdue(app: express.Express, services: Services): void {
  app.get('/console/overdue', ...consoleRoute(services, overduePage));
}

async function overduePage(p: ConsolePage): Promise<void> {
  const orgs = new Set<string>();
  let cursor: string | undefined;
  let read = 0;
  do {
    const r = await p.api.call(ops['billing.invoices.list'], { overdue: true, cursor, limit: 200 });
    if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Overdue', section: 'overdue', problem: r.problem, body: html`<h1>Overdue</h1>` });
    for (const i of r.body.items) orgs.add(i.organization_id);
    read += r.body.items.length;
    cursor = r.body.pagination?.cursor;
  } while (cursor && read < MAX_INVOICES);
  const statuses = await Promise.all([...orgs].map(async (organization_id) => {
    const s = await p.api.call(ops['billing.invoices.overdue-status.get'], { organization_id });
    if (!s.ok || !s.body.past_due) return null;
    const c = s.body.customer_id ? await p.api.call(ops['billing.customers.get'], { id: s.body.customer_id }) : null;
    return { status: s.body, name: c?.ok ? c.body.name : s.body.organization_id };
  }));
  const rows = statuses
    .flatMap((x) => (x ? [x] : []))
    .sort((a, b) => (a.status.suspension_date ?? '').localeCompare(b.status.suspension_date ?? '') || a.name.localeCompare(b.name))
    .map(({ status: s, name }) => [
      s.customer_id ? html`<a href="/console/customers/${s.customer_id}">${name}</a>` : name,
      join(s.amount_past_due.map((m) => money(m.amount, m.currency)), html`<br>`),
      s.invoices.length,
      day(s.invoices[0]?.due_date),
      day(s.suspension_date),
      s.suspended ? html`<strong>suspended</strong>` : 'not yet',
      // The payment page is the organization's own (its members sign in to it; staff get a 404 there): staff record a
      // payment on the oldest invoice's console page, and copy the customer's link to send on.
      html`${s.invoices[0] ? html`<a href="/console/invoices/${s.invoices[0].id}#payments">Record a payment</a>` : ''}${s.payment_url ? html`<br><span class="muted">Customer's link:</span> <code class="id">${s.payment_url}</code>` : ''}`,
    ]);
  sendConsole(p.res, p.session, 200, {
    title: 'Overdue',
    section: 'overdue',
    body: html`<h1>Overdue</h1>
<p class="muted">Organizations with an open invoice past its due date, soonest suspension first. Access is suspended on the suspension date until paid.</p>
${table('Organizations past due', ['Customer', 'Past due', 'Invoices', 'Oldest due', 'Suspension date', 'Access', 'Payment'], rows, 'Nobody is past due.')}`,
  });
}
