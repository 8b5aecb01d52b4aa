// The metered part of an invoice page: the orders behind each metered line (billing.invoices.orders.list, paged by its
// cursor) and the re-rating diff (billing.invoices.rerate.preview, which writes nothing).
import type { z } from 'zod';
import type { InvoiceDetail } from '../../../contract/schemas/billing-invoices.ts';
import { type InvoiceRerateDiff } from '../../../contract/schemas/billing-usage.ts';
import { money, problemBox, qs, table, when } from './layout.ts';
import { NameBook, wholeId } from './format.ts';
import { type Html, type SafeHtml, html, join } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import type { ConsolePage } from './route.ts';
import { correctionForm, correctionsCard } from './invoice-corrections.ts';

type Invoice = z.output<typeof InvoiceDetail>;
/** The API's re-rating diff of an invoice. */
export type RerateDiff = z.output<typeof InvoiceRerateDiff>;
type Rating = RerateDiff['orders'][number]['old'];

/** Orders shown per metered line and page. */
const ORDERS_PER_PAGE = 50;

/** True when the invoice has a line generated from usage. */
export function hasMeteredLines(i: Invoice): boolean {
  return i.lines.some((l) => l.kind === 'metered');
}

/** A difference with its sign written (+GBP 0.50, -GBP 1.20, GBP 0.00): the sign is never left to colour. */
function signed(minor: number, currency: string): string {
  return `${minor > 0 ? '+' : ''}${money(minor, currency)}`;
}

// A revision (it has no name: its whole id), linking to its history (who recorded it, when and why).
function revision(id: string | null): Html {
  return id ? html`<a href="/console/history${qs({ type: 'revision', id })}">${wholeId(id)}</a>` : 'none';
}

const words = (s: string) => s.replaceAll('_', ' ');

/**
 * The "Metered usage" section: per metered line what rated it and its orders (one page each; `?line=<index>&cursor=`
 * pages one line), the re-rate preview action, and, after it was asked for, the diff.
 */
export async function usageSection(p: ConsolePage, i: Invoice, rerate?: RerateDiff): Promise<SafeHtml> {
  const pagedLine = Number(p.req.query.line);
  const pagedCursor = typeof p.req.query.cursor === 'string' ? p.req.query.cursor : undefined;
  const metered = i.lines.flatMap((l, index) => (l.metered ? [{ l, m: l.metered, index }] : []));
  const pages = await Promise.all(metered.map(({ index }) => {
    const cursor = index === pagedLine ? pagedCursor : undefined;
    return p.api.call(ops['billing.invoices.orders.list'], { invoice_id: i.id, line_index: index, limit: ORDERS_PER_PAGE, ...(cursor ? { cursor } : {}) });
  }));
  const cur = i.currency;
  const names = await NameBook.load(p.api, { organizations: pages.flatMap((r) => (r.ok ? r.body.items.map((o) => o.buyer) : [])) });
  const lines = metered.map(({ l, m, index }, k) => {
    const r = pages[k];
    const paged = index === pagedLine && pagedCursor !== undefined;
    const rows = r?.ok
      ? r.body.items.map((o) => [
        o.order_id, when(o.occurred_at), names.organization(o.buyer), money(o.amount.amount, o.amount.currency), words(o.classification),
        o.rate_bps, money(o.exempt_amount, cur), money(o.chargeable_amount, cur), money(o.fee.amount, o.fee.currency),
        o.relationship_id ? html`<a href="/console/history${qs({ type: 'relationship', id: o.relationship_id })}">Relationship</a>` : 'none',
      ])
      : [];
    const next = r?.ok && r.body.pagination ? html`<a href="/console/invoices/${i.id}${qs({ line: String(index), cursor: r.body.pagination.cursor })}#line-${index}">Next orders of line ${index + 1}</a>` : '';
    const first = paged ? html`<a href="/console/invoices/${i.id}#line-${index}">First orders of line ${index + 1}</a> ` : '';
    return html`<div class="card"><h3 id="line-${index}">Line ${index + 1}: ${l.description}</h3>
<dl class="details"><div><dt>Period</dt><dd>${m.period}</dd></div><div><dt>Classification</dt><dd>${words(m.classification)}</dd></div>
<div><dt>Orders</dt><dd>${m.order_count} worth ${money(m.order_amount, cur)}</dd></div><div><dt>Exempt / chargeable</dt><dd>${money(m.exempt_amount, cur)} / ${money(m.chargeable_amount, cur)}</dd></div>
<div><dt>Rate</dt><dd>${m.rate_bps} bps, minimum ${money(m.minimum_fee, cur)} an order</dd></div>
<div><dt>Pricing revision</dt><dd>${revision(m.pricing_revision_id)}</dd></div><div><dt>Baseline revision</dt><dd>${revision(m.baseline_revision_id)}</dd></div>
<div><dt>Line amount</dt><dd>${money(l.amount, cur)}</dd></div></dl>
${r && !r.ok ? problemBox(r.problem) : ''}
${table(`Orders behind line ${index + 1}`, ['Order', 'Placed', 'Buyer', 'Amount', 'Classification', 'Rate (bps)', 'Exempt', 'Chargeable', 'Fee', 'Relationship'], rows, 'No orders on this page.')}
<p class="pager">${first}${next}</p></div>`;
  });
  const subscription = metered[0]?.m.subscription_id;
  return html`<section aria-labelledby="usage"><h2 id="usage">Metered usage</h2>
${subscription ? html`<p class="links"><a href="/console/configuration${qs({ subscription_id: subscription })}">Configuration of the subscription</a> · <a href="/console/usage${qs({ subscription_id: subscription, period: metered[0]?.m.period })}">Usage of ${metered[0]?.m.period ?? ''}: every order, late, held or voided</a></p>` : ''}
<form method="get" action="/console/invoices/${i.id}/rerate" class="card"><h3>Re-rate preview</h3>
<p>Rates this invoice's orders again under the configuration as known now and shows what would change, per line and per order. <strong>Writes nothing:</strong> the invoice stays as it is.</p>
<div class="actions"><button type="submit">Re-rate preview</button></div></form>
${rerate ? rerateAnswer(rerate, correctionForm(p, i, rerate)) : ''}
${await correctionsCard(p, i)}
${join(lines, '\n')}</section>`;
}

// What differs between two ratings of an order, as a clerk reads it.
function differences(o: RerateDiff['orders'][number], currency: string): Html {
  const show: Record<keyof Rating, (r: Rating) => Html> = {
    classification: (r) => words(r.classification),
    relationship_id: (r) => (r.relationship_id ? html`<a href="/console/history${qs({ type: 'relationship', id: r.relationship_id })}">${wholeId(r.relationship_id)}</a>` : 'none'),
    rate_bps: (r) => `${r.rate_bps} bps`,
    exempt_amount: (r) => money(r.exempt_amount, currency),
    fee: (r) => money(r.fee, currency),
    pricing_revision_id: (r) => revision(r.pricing_revision_id),
    baseline_revision_id: (r) => revision(r.baseline_revision_id),
  };
  const known = (f: string): f is keyof Rating => Object.hasOwn(show, f);
  const items = o.changed.map((f) => html`<li>${words(f)}${known(f) ? html`: ${show[f](o.old)} → ${show[f](o.new)}` : ''}</li>`);
  return items.length ? html`<ul class="changes">${items}</ul>` : '—';
}

/** The diff the API answered: totals, each metered line, and each order whose fee or rating revisions differ. */
export function rerateAnswer(d: RerateDiff, correction: SafeHtml = html``): SafeHtml {
  const cur = d.currency;
  const lineRows = d.lines.map((l) => [l.line_index + 1, l.description, money(l.old_amount, cur), money(l.new_amount, cur), signed(l.difference, cur)]);
  const orderRows = d.orders.map((o) => [o.order_id, o.line_index + 1, money(o.old.fee, cur), money(o.new.fee, cur), signed(o.difference, cur), differences(o, cur)]);
  return html`<section class="card" aria-labelledby="rerate" role="status"><h2 id="rerate">Re-rate preview (nothing was written)</h2>
<dl class="figures">
<div><dt>${d.corrections_applied ? `Billed (invoice and ${d.corrections_applied} correction(s))` : 'As invoiced'}</dt><dd>${money(d.old_total, cur)}</dd></div>
<div><dt>Rated now</dt><dd>${money(d.new_total, cur)}</dd></div>
<div><dt>Difference</dt><dd>${signed(d.difference, cur)}</dd></div>
<div><dt>Orders that differ</dt><dd>${d.changed_order_count}</dd></div>
</dl>
<p class="muted">Configuration as known at ${when(d.as_of)}. The invoice is unchanged; a correction (below) is a credit note or a new invoice.</p>
${table('Re-rated lines', ['Line', 'Description', 'As invoiced', 'Rated now', 'Difference'], lineRows, 'No metered lines.')}
${table('Orders that differ', ['Order', 'Line', 'Old fee', 'New fee', 'Difference', 'What differs (old → new)'], orderRows, 'No order differs: rating now gives the same fees and revisions.')}
${d.orders_truncated ? html`<p class="muted">Only the first ${d.orders.length} of ${d.changed_order_count} differing orders are listed.</p>` : ''}
${correction}</section>`;
}
