// A customer's statement for any period: ledger, ageing as a bar chart and running balance as a line (Chart.js),
// with the same figures in tables (what a screen reader reads) and a print stylesheet for a clean page.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { field, minorDigits, money, qs, sendConsole, table } from './layout.ts';
import { html, jsonScript } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Mounts GET /console/customers/:id/statement?from&to. */
export function mountStatement(app: express.Express, services: Services): void {
  app.get('/console/customers/:id/statement', ...consoleRoute(services, statementPage));
}

async function statementPage(p: ConsolePage): Promise<void> {
  const id = String(p.req.params.id);
  const c = await p.api.call(ops['billing.customers.get'], { id });
  if (!c.ok) return void sendConsole(p.res, p.session, c.problem.status, { title: 'Statement', section: 'customers', problem: c.problem, body: html`<h1>Statement</h1>` });
  const first = new Date(`${p.today}T00:00:00Z`);
  first.setUTCMonth(first.getUTCMonth() - 2, 1);
  const from = typeof p.req.query.from === 'string' && DATE.test(p.req.query.from) ? p.req.query.from : first.toISOString().slice(0, 10);
  const to = typeof p.req.query.to === 'string' && DATE.test(p.req.query.to) ? p.req.query.to : p.today;
  const r = await p.api.call(ops['billing.customers.statement.get'], { customer_id: id, from, to });
  const form = html`<form method="get" action="/console/customers/${id}/statement" class="card filters no-print"><div class="grid">
${field('from', 'From', html`<input id="from" name="from" type="date" required value="${from}">`)}
${field('to', 'To', html`<input id="to" name="to" type="date" required value="${to}">`)}
</div><div class="actions"><button type="submit">Show statement</button><button type="button" class="secondary" data-print hidden>Print</button></div></form>`;
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Statement', section: 'customers', problem: r.problem, body: html`<h1>Statement of ${c.body.name}</h1>${form}` });
  const s = r.body;
  const cur = s.currency;
  const major = (minor: number) => minor / 10 ** minorDigits(cur);
  const buckets: [string, number][] = [['Current', s.ageing.current], ['1–30 days', s.ageing.days_1_30], ['31–60 days', s.ageing.days_31_60], ['61–90 days', s.ageing.days_61_90], ['Over 90 days', s.ageing.days_over_90]];
  const balancePoints = [{ label: `${s.from} opening`, value: s.opening_balance }, ...s.lines.map((l) => ({ label: `${l.date} ${l.kind}`, value: l.balance }))];
  const chartData = {
    currency: cur,
    digits: minorDigits(cur),
    ageing: { labels: buckets.map(([l]) => l), values: buckets.map(([, v]) => major(v)) },
    balance: { labels: balancePoints.map((b) => b.label), values: balancePoints.map((b) => major(b.value)) },
  };
  const lineRows = s.lines.map((l) => [
    l.date, l.kind, html`<a href="/console/invoices/${l.invoice_id}">${l.description}</a>`,
    l.debit ? money(l.debit, cur) : '', l.credit ? money(l.credit, cur) : '', money(l.balance, cur),
  ]);
  sendConsole(p.res, p.session, 200, {
    title: `Statement of ${c.body.name}`,
    section: 'customers',
    body: html`<h1>Statement of ${c.body.name}</h1>
<p class="muted">${s.from} to ${s.to}, in ${cur}. <a class="no-print" href="/console/customers/${id}">Back to the customer</a></p>
${form}
<dl class="figures">
<div><dt>Opening balance</dt><dd>${money(s.opening_balance, cur)}</dd></div>
<div><dt>Charges</dt><dd>${money(s.total_debits, cur)}</dd></div>
<div><dt>Payments and credits</dt><dd>${money(s.total_credits, cur)}</dd></div>
<div><dt>Closing balance</dt><dd>${money(s.closing_balance, cur)}</dd></div>
<div><dt>Unapplied credit</dt><dd>${money(s.unapplied_credit, cur)}</dd></div>
</dl>
<div class="charts">
<figure class="card chart"><figcaption>Ageing as of ${s.to} (${cur})</figcaption>
<div class="chart-box"><canvas id="ageing-chart" data-chart="ageing" role="img" aria-label="Bar chart of amounts owed by days past due; the same figures are in the ageing table."></canvas></div></figure>
<figure class="card chart"><figcaption>Running balance (${cur})</figcaption>
<div class="chart-box"><canvas id="balance-chart" data-chart="balance" role="img" aria-label="Line chart of the running balance after each line; the same figures are in the ledger table."></canvas></div></figure>
</div>
${jsonScript('statement-data', chartData)}
${table('Ageing', buckets.map(([l]) => l), [buckets.map(([, v]) => money(v, cur))])}
${table('Ledger', ['Date', 'Kind', 'Description', 'Debit', 'Credit', 'Balance'], lineRows, 'No activity in this period.')}
<p class="muted no-print"><a href="/console/history${qs({ type: 'customer', id })}">Customer history</a></p>`,
  });
}
