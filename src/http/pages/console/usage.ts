// Usage of one subscription month (issue 26): every order with where it stands in billing (unbilled, invoiced with its
// invoice, voided, held with why), the forms that fix an order (replace with corrected facts, void, each with a reason),
// and generation of the month's invoice or its next supplementary invoice, optionally holding unrateable orders.
import type express from 'express';
import type { Services } from '../../../context.ts';
import type { ApiProblem } from './api.ts';
import { NameBook } from './format.ts';
import { UUID, badge, field, formGuard, money, moneyInput, parseMoney, qs, sendConsole, table, when } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';

const BASE = '/console/usage';
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Mounts the usage page and its forms. */
export function mountUsage(app: express.Express, services: Services): void {
  app.get(BASE, ...consoleRoute(services, (p) => usagePage(p)));
  app.post(`${BASE}/:subscription/:period/generate`, ...consoleRoute(services, generate));
  app.post(`${BASE}/:subscription/:period/void`, ...consoleRoute(services, (p) => correct(p, 'void')));
  app.post(`${BASE}/:subscription/:period/replace`, ...consoleRoute(services, (p) => correct(p, 'replace')));
}

function monthOf(p: ConsolePage): { sub: string; period: string } {
  const s = p.req.params.subscription ?? p.req.query.subscription_id;
  const m = p.req.params.period ?? p.req.query.period;
  const sub = typeof s === 'string' && UUID.test(s.trim()) ? s.trim() : '';
  const period = typeof m === 'string' && MONTH.test(m.trim()) ? m.trim() : '';
  return { sub, period };
}

const here = (sub: string, period: string, extra: Record<string, string | undefined> = {}) => `${BASE}${qs({ subscription_id: sub, period, ...extra })}`;

async function usagePage(p: ConsolePage, extra: { status?: number; problem?: ApiProblem | null; notice?: string } = {}): Promise<void> {
  const { sub, period } = monthOf(p);
  const state = p.req.query.billing_state === 'held' || p.req.query.billing_state === 'voided' ? p.req.query.billing_state : undefined;
  const cursor = typeof p.req.query.cursor === 'string' ? p.req.query.cursor : undefined;
  const pick = html`<form method="get" action="${BASE}" class="card filters"><div class="grid">
${field('subscription_id', 'Subscription id', html`<input id="subscription_id" name="subscription_id" required value="${sub}" size="38">`)}
${field('period', 'Month (YYYY-MM)', html`<input id="period" name="period" required value="${period}" pattern="\\d{4}-\\d{2}" size="8">`)}
</div><div class="actions"><button type="submit">Open</button></div></form>`;
  if (!sub || !period) return void sendConsole(p.res, p.session, extra.status ?? 200, { title: 'Usage', section: 'configuration', problem: extra.problem, body: html`<h1>Usage of a subscription month</h1>${pick}` });
  const r = await p.api.call(ops['billing.usage.list'], { subscription_id: sub, period, limit: 100, ...(state ? { billing_state: state } : {}), ...(cursor ? { cursor } : {}) });
  const items = r.ok ? r.body.items : [];
  const rows = items.map((o, i) => {
    // Any order but a voided one is fixed here; an invoiced one is then billed by re-rating its invoice (issue 26 section 4).
    const fixable = o.billing_state !== 'voided';
    const forms: SafeHtml = fixable
      ? html`<details><summary>Fix ${o.order_id}${o.billing_state === 'invoiced' ? ' (invoiced: the difference is billed by re-rating its invoice)' : ''}</summary>
<form method="post" action="${BASE}/${sub}/${period}/replace">${formGuard(p.session)}<input type="hidden" name="order_id" value="${o.order_id}">
${field(`amount-${i}`, 'Corrected amount', html`<input id="amount-${i}" name="amount" inputmode="decimal" required value="${moneyInput(o.amount.amount, o.amount.currency)}" size="10">`)}
${field(`currency-${i}`, 'Currency', html`<input id="currency-${i}" name="currency" required value="${o.amount.currency}" maxlength="3" size="4">`)}
${field(`replace-reason-${i}`, 'Reason', html`<input id="replace-reason-${i}" name="reason" required maxlength="500">`)}
<div class="actions"><button type="submit">Replace</button></div></form>
<form method="post" action="${BASE}/${sub}/${period}/void">${formGuard(p.session)}<input type="hidden" name="order_id" value="${o.order_id}">
${field(`void-reason-${i}`, 'Reason', html`<input id="void-reason-${i}" name="reason" required maxlength="500">`)}
<div class="actions"><button type="submit" class="danger">Void</button></div></form></details>`
      : html``;
    return [
      o.order_id, when(o.occurred_at), money(o.amount.amount, o.amount.currency), badge(o.billing_state),
      o.invoice_id ? html`<a href="/console/invoices/${o.invoice_id}">Invoice</a>` : '—',
      o.held_reasons ?? (o.correction ? `${o.correction.kind}: ${o.correction.reason}` : '—'),
      o.revision, forms,
    ];
  });
  const next = r.ok && r.body.pagination ? html`<a href="${here(sub, period, { billing_state: state, cursor: r.body.pagination.cursor })}">Next orders</a>` : '';
  const filters = html`<p class="links"><a href="${here(sub, period)}">All orders</a> · <a href="${here(sub, period, { billing_state: 'held' })}">Held</a> · <a href="${here(sub, period, { billing_state: 'voided' })}">Voided</a> · <a href="/console/configuration${qs({ subscription_id: sub })}">Configuration of the subscription</a></p>`;
  sendConsole(p.res, p.session, extra.status ?? 200, {
    title: 'Usage',
    section: 'configuration',
    problem: extra.problem ?? (r.ok ? null : r.problem),
    body: html`<h1>Usage of ${period}: ${(await NameBook.load(p.api, { subscriptions: [sub] })).subscription(sub)}</h1>
${extra.notice ? html`<p role="status" class="notice">${extra.notice}</p>` : ''}
${pick}
<form method="post" action="${BASE}/${sub}/${period}/generate" class="card">${formGuard(p.session)}<h3>Invoice the month</h3>
<p>Generates the month's invoice, or, once it exists, a supplementary invoice of the orders recorded late or fixed since. Nothing already invoiced is billed again.</p>
<label><input type="checkbox" name="hold_unrateable" value="true"> Invoice without the orders that cannot be rated (they are held, listed here, and billed once fixed)</label>
<div class="actions"><button type="submit">Generate</button></div></form>
${filters}
${table('Orders of the month', ['Order', 'Placed', 'Amount', 'Billing', 'Invoice', 'Why / last correction', 'Revision', 'Fix'], rows, 'No orders.')}
<p class="pager">${next}</p>`,
  });
}

async function generate(p: ConsolePage): Promise<void> {
  const { sub, period } = monthOf(p);
  if (!sub || !period) return usagePage(p, { status: 400, problem: formProblem('Name the subscription and the month.') });
  const r = await p.api.call(ops['billing.invoices.generate'], { subscription_id: sub, period, ...(p.form.hold_unrateable === 'true' ? { hold_unrateable: true } : {}) });
  if (!r.ok) return usagePage(p, { status: r.problem.status, problem: r.problem });
  p.res.redirect(303, `/console/invoices/${r.body.id}`);
}

async function correct(p: ConsolePage, kind: 'void' | 'replace'): Promise<void> {
  const { sub, period } = monthOf(p);
  const orderId = (p.form.order_id ?? '').trim();
  const reason = (p.form.reason ?? '').trim();
  if (!sub || !period || !orderId) return usagePage(p, { status: 400, problem: formProblem('Name the subscription, the month and the order.') });
  let r;
  if (kind === 'void') r = await p.api.call(ops['billing.usage.void'], { order_id: orderId, reason });
  else {
    const currency = (p.form.currency ?? '').trim().toUpperCase();
    const amount = parseMoney(p.form.amount, currency);
    if (amount === null) return usagePage(p, { status: 400, problem: formProblem(`The amount must be like 12.50 in ${currency || 'the currency'}.`, [{ path: 'amount', message: 'not an amount' }]) });
    r = await p.api.call(ops['billing.usage.replace'], { order_id: orderId, reason, amount: { amount, currency } });
  }
  if (!r.ok) return usagePage(p, { status: r.problem.status, problem: r.problem });
  // An invoiced order's correction is billed from its invoice's re-rating page, which now shows the difference.
  p.res.redirect(303, r.body.invoice_id ? `/console/invoices/${r.body.invoice_id}/rerate` : here(sub, period));
}
