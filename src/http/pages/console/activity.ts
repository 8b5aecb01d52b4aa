// Activity: what changed across every organization on a day, newest first, as sentences (who, what, why), filtered by
// person and kind, from billing.activity.list.
import type express from 'express';
import type { z } from 'zod';
import type { Services } from '../../../context.ts';
import type { ActivityItem } from '../../../contract/schemas/billing-events.ts';
import { field, options, qs, sendConsole, table, when } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { NameBook, dayText } from './format.ts';
import { feedSentence } from './story.ts';

const KINDS = ['customer', 'invoice', 'payment', 'credit_note_request'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Item = z.output<typeof ActivityItem>;

/** Mounts GET /console/activity?day&actor_id&kind&cursor. */
export function mountActivity(app: express.Express, services: Services): void {
  app.get('/console/activity', ...consoleRoute(services, activityPage));
}

const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

async function activityPage(p: ConsolePage): Promise<void> {
  const q = p.req.query;
  const day = typeof q.day === 'string' && DATE.test(q.day) && !Number.isNaN(Date.parse(q.day)) ? q.day : p.today;
  const kind = KINDS.find((k) => k === q.kind);
  const actor = typeof q.actor_id === 'string' && q.actor_id.trim() ? q.actor_id.trim().slice(0, 200) : undefined;
  const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
  const range = { occurred_from: `${day}T00:00:00.000Z`, occurred_before: `${nextDay(day)}T00:00:00.000Z` };
  // The page, and the day's people for the "Who" choice (from its latest changes).
  const [r, people] = await Promise.all([
    p.api.call(ops['billing.activity.list'], { ...range, ...(actor ? { actor_id: actor } : {}), ...(kind ? { subject_type: kind } : {}), cursor, limit: 50 }),
    p.api.call(ops['billing.activity.list'], { ...range, limit: 200 }),
  ]);
  const items = r.ok ? r.body.items : [];
  const names = await NameBook.load(p.api, {
    customers: items.flatMap((i) => [i.subject.type === 'customer' ? i.subject.id : null, typeof i.data.customer_id === 'string' ? i.data.customer_id : null]),
    organizations: items.map((i) => i.organization_id),
  });
  const who = new Map<string, string>();
  for (const i of people.ok ? people.body.items : []) if (i.actor.id) who.set(i.actor.id, names.actorText(i.actor));
  if (actor && !who.has(actor)) who.set(actor, actor);
  const whoOptions = html`<option value="">Anyone</option>${[...who].sort((a, b) => a[1].localeCompare(b[1])).map(([id, name]) => html`<option value="${id}"${id === actor ? html` selected` : ''}>${name}</option>`)}`;
  const rows = items.map((i) => [when(i.occurred_at), html`${names.actor(i.actor)}`, subjectLink(i, names), i.organization_id ? names.organization(i.organization_id) : '—', sentenceOf(i)]);
  const filters = { day, actor_id: actor, kind };
  sendConsole(p.res, p.session, r.ok ? 200 : r.problem.status, {
    title: `Activity on ${dayText(day)}`,
    section: 'activity',
    problem: r.ok ? null : r.problem,
    body: html`<h1>Activity on ${dayText(day)}</h1>
<form method="get" action="/console/activity" class="card filters"><div class="grid">
${field('day', 'Day (UTC)', html`<input id="day" name="day" type="date" value="${day}">`)}
${field('actor_id', 'Who', html`<select id="actor_id" name="actor_id">${whoOptions}</select>`)}
${field('kind', 'What', html`<select id="kind" name="kind">${options(KINDS, kind, 'Everything')}</select>`)}
</div><div class="actions"><button type="submit">Show</button>
<a href="/console/activity${qs({ day: nextDay(day) > p.today ? undefined : nextDay(day), actor_id: actor, kind })}">Next day</a>
<a href="/console/activity${qs({ day: new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10), actor_id: actor, kind })}">Day before</a></div></form>
${table('Changes, newest first', ['When', 'Who', 'On', 'Organization', 'What happened'], rows, 'Nothing changed that day.')}
<p class="pager">${cursor ? html`<a href="/console/activity${qs(filters)}">Newest</a> ` : ''}${r.ok && r.body.pagination ? html`<a href="/console/activity${qs({ ...filters, cursor: r.body.pagination.cursor })}">Older changes</a>` : ''}</p>`,
  });
}

function sentenceOf(i: Item): SafeHtml {
  const amount = i.data.amount;
  const currency = amount && typeof amount === 'object' && 'currency' in amount && typeof amount.currency === 'string' ? amount.currency : null;
  return html`${feedSentence(i.type, { data: i.data, currency })}${i.reason ? html` (reason: ${i.reason})` : ''}.`;
}

// What the change is on, linked: an invoice or a payment's invoice, a customer by name, a credit note request's history.
function subjectLink(i: Item, names: NameBook): SafeHtml {
  const s = i.subject;
  const number = typeof i.data.number === 'string' ? i.data.number : null;
  switch (s.type) {
    case 'invoice': return html`<a href="/console/invoices/${s.id}">${number ? `Invoice ${number}` : 'Invoice'}</a>`;
    case 'payment': return typeof i.data.invoice_id === 'string' ? html`<a href="/console/invoices/${i.data.invoice_id}">Payment</a>` : html`Payment`;
    case 'customer': return names.customer(s.id);
    case 'credit_note_request': return html`<a href="/console/history${qs({ type: 'credit_note_request', id: s.id })}">Credit note request</a>`;
  }
}
