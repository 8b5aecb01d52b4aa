// Refunds due: charges taken but not (fully) applied (billing.refunds-due.list), each resolved here with a reason:
// refunded through the provider, or applied to another open invoice of the same customer. Needs attention links here.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { ops } from '../../../areas/operations.ts';
import { html, join } from '../html.ts';
import type { ApiProblem } from './api.ts';
import { formGuard, money, sendConsole, table, UUID } from './layout.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';

/** Mounts GET /console/refunds-due and its two forms. */
export function mountRefundsDue(app: express.Express, services: Services): void {
  app.get('/console/refunds-due', ...consoleRoute(services, (p) => refundsDuePage(p)));
  app.post('/console/refunds-due/refund', ...consoleRoute(services, async (p) => {
    const refused = unconfirmed(p.form);
    if (refused) return refundsDuePage(p, refused);
    const r = await p.api.call(ops['billing.refunds-due.refund'], { charge_ref: p.form.charge_ref ?? '', reason: (p.form.reason ?? '').trim() }, { idempotencyKey: p.form.idem });
    if (r.ok) return void p.res.redirect(303, '/console/refunds-due?done=refunded');
    await refundsDuePage(p, r.problem);
  }));
  app.post('/console/refunds-due/apply', ...consoleRoute(services, async (p) => {
    const refused = unconfirmed(p.form);
    if (refused) return refundsDuePage(p, refused);
    const r = await p.api.call(ops['billing.refunds-due.apply'], { charge_ref: p.form.charge_ref ?? '', invoice_id: p.form.invoice_id ?? '', reason: (p.form.reason ?? '').trim() }, { idempotencyKey: p.form.idem });
    if (r.ok) return void p.res.redirect(303, '/console/refunds-due?done=charge_applied');
    await refundsDuePage(p, r.problem);
  }));
}

// Money moves on these forms: they need a reason (kept in the audit trail) and the box ticked.
function unconfirmed(form: Record<string, string>): ApiProblem | null {
  const issues = [
    ...((form.reason ?? '').trim() ? [] : [{ path: 'reason', message: 'required: say why (it is kept with the refund or payment)' }]),
    ...(form.confirm === 'yes' ? [] : [{ path: 'confirm', message: 'tick the box to confirm' }]),
  ];
  return issues.length ? formProblem('Nothing was changed: give a reason and confirm.', issues) : null;
}

async function refundsDuePage(p: ConsolePage, problem: ApiProblem | null = null): Promise<void> {
  const customerId = typeof p.req.query.customer_id === 'string' && UUID.test(p.req.query.customer_id) ? p.req.query.customer_id : undefined;
  const cursor = typeof p.req.query.cursor === 'string' ? p.req.query.cursor : undefined;
  const r = await p.api.call(ops['billing.refunds-due.list'], { customer_id: customerId, cursor, limit: 50 });
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Refunds due', section: 'attention', problem: r.problem, body: html`<h1>Refunds due</h1>` });
  // The open invoices each customer could take the money on instead (same currency).
  const openFor = new Map<string, { id: string; label: string }[]>();
  for (const row of r.body.items) {
    const customer = row.customer?.id;
    if (!customer || openFor.has(`${customer}:${row.currency}`)) continue;
    const open = await p.api.call(ops['billing.invoices.list'], { customer_id: customer, status: 'open', currency: row.currency, limit: 50 });
    openFor.set(`${customer}:${row.currency}`, open.ok ? open.body.items.map((i) => ({ id: i.id, label: `${i.number ?? i.id} (owes ${money(i.amount_remaining, i.currency)})` })) : []);
  }
  const rows = r.body.items.map((row) => {
    const guard = html`${formGuard(p.session)}<input type="hidden" name="charge_ref" value="${row.charge_ref}">`;
    const reason = html`<label>Reason <input name="reason" required maxlength="500"></label> <label><input type="checkbox" name="confirm" value="yes" required> Confirm</label>`;
    const refund = html`<form method="post" action="/console/refunds-due/refund" class="inline">${guard}${reason} <button type="submit">Refund ${money(row.amount_due, row.currency)}</button></form>`;
    const invoices = row.customer ? (openFor.get(`${row.customer.id}:${row.currency}`) ?? []) : [];
    const apply = invoices.length
      ? html`<form method="post" action="/console/refunds-due/apply" class="inline">${guard}<label>Invoice <select name="invoice_id">${invoices.map((i) => html`<option value="${i.id}">${i.label}</option>`)}</select></label> ${reason} <button type="submit" class="secondary">Apply to invoice</button></form>`
      : '';
    return [
      html`<span id="charge-${row.charge_ref}">${row.charge_ref}</span>`,
      row.customer ? html`<a href="/console/customers/${row.customer.id}">${row.customer.name ?? row.customer.id}</a>` : 'unknown (the provider named nobody)',
      row.invoice ? html`<a href="/console/invoices/${row.invoice.id}">${row.invoice.number ?? row.invoice.id}</a>` : '—',
      html`${money(row.amount_due, row.currency)}<br><small class="muted">charged ${money(row.amount_charged, row.currency)}, applied ${money(row.amount_applied, row.currency)}</small>`,
      row.why?.text ?? '—',
      row.since ? row.since.slice(0, 16).replace('T', ' ') : '—',
      row.status === 'resolving' ? 'a resolution is in flight' : join([refund, apply], html`<br>`),
    ];
  });
  const pager = [
    cursor ? html`<a href="/console/refunds-due${customerId ? `?customer_id=${customerId}` : ''}">First page</a> ` : '',
    r.body.pagination ? html`<a href="/console/refunds-due?${customerId ? `customer_id=${customerId}&` : ''}cursor=${encodeURIComponent(r.body.pagination.cursor)}">Next page</a>` : '',
  ];
  sendConsole(p.res, p.session, problem ? problem.status : 200, {
    title: 'Refunds due',
    section: 'attention',
    problem,
    body: html`<h1>Refunds due</h1>
<p class="muted">Money a customer was charged that no invoice took: refund it through the payment provider, or apply it to another open invoice of theirs. Oldest first.</p>
${table('Charges due back', ['Charge', 'Customer', 'Charged for', 'Due back', 'Why', 'Since (UTC)', 'Resolve'], rows, 'Nothing is due back.')}
<p class="pager">${pager}</p>`,
  });
}
