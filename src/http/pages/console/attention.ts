// Needs attention: everything that waits for a person (billing.attention.list), by kind, oldest first, each row with
// its cause, what to do and a link to where it is resolved. The navigation shows the count on every console page.
import type express from 'express';
import type { Services } from '../../../context.ts';
import { money, sendConsole, table } from './layout.ts';
import { html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { ATTENTION_KINDS } from '../../../contract/schemas/billing-attention.ts';

/** How each kind is headed on the page. */
const HEADINGS: Record<(typeof ATTENTION_KINDS)[number], string> = {
  refund_due: 'Refunds due',
  unrecorded_provider_charge: 'Unrecorded provider charges',
  failed_collection: 'Failed automatic collections',
  undelivered_email: 'Customer emails not delivered',
  usage_month_refused: 'Usage months that cannot be invoiced',
  held_usage: 'Held usage',
  usage_correction_due: 'Usage corrected after invoicing',
  stalled_read_model: 'Stalled read models',
  unreadable_stream: 'Unreadable streams',
  webhook_endpoint_failing: 'Webhook endpoints disabled for failing',
};

/** Mounts GET /console/attention. */
export function mountAttention(app: express.Express, services: Services): void {
  app.get('/console/attention', ...consoleRoute(services, attentionPage));
}

async function attentionPage(p: ConsolePage): Promise<void> {
  const q = p.req.query;
  const kind = ATTENTION_KINDS.find((k) => k === q.kind);
  const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
  const r = await p.api.call(ops['billing.attention.list'], { kind, cursor, limit: 100 });
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Needs attention', section: 'attention', problem: r.problem, body: html`<h1>Needs attention</h1>` });
  const { items, counts, pagination } = r.body;
  const filters = counts.by_kind.map((c) => html`<li><a href="/console/attention?kind=${c.kind}"${kind === c.kind ? html` aria-current="true"` : ''}>${HEADINGS[c.kind]}</a> <span class="count" data-kind="${c.kind}">${c.count}</span></li>`);
  const sections = ATTENTION_KINDS.filter((k) => !kind || k === kind).map((k) => {
    const rows = items.filter((i) => i.kind === k).map((i) => [
      html`<a href="${i.href}">${i.summary}</a>`,
      i.customer ? html`<a href="/console/customers/${i.customer.id}">${i.customer.name}</a>` : '—',
      i.amount ? money(i.amount.amount, i.amount.currency) : '—',
      i.since.slice(0, 16).replace('T', ' '),
      i.cause,
      i.resolve,
    ]);
    return table(HEADINGS[k], ['What', 'Customer', 'Amount', 'Since (UTC)', 'Why', 'What to do'], rows, `${HEADINGS[k]}: none.`);
  });
  const pager = [
    cursor ? html`<a href="/console/attention${kind ? `?kind=${kind}` : ''}">First page</a> ` : '',
    pagination ? html`<a href="/console/attention?${kind ? `kind=${kind}&` : ''}cursor=${encodeURIComponent(pagination.cursor)}">Next page</a>` : '',
  ];
  sendConsole(p.res, p.session, 200, {
    title: 'Needs attention',
    section: 'attention',
    body: html`<h1>Needs attention</h1>
<p>${counts.total === 0 ? 'Nothing needs a person right now.' : html`<strong>${counts.total}</strong> item(s) wait for a person, oldest first. Each links to where it is resolved.`}</p>
<ul class="filters">${kind ? html`<li><a href="/console/attention">All</a></li>` : ''}${filters}</ul>
${sections}
<p class="pager">${pager}</p>`,
  });
}
