// Billing configuration of one subscription: relationships with their claims, evidence and decisions, baseline and
// pricing revisions on a timeline, forms for new revisions, and resolve and preview, all on the configuration operations.
import type express from 'express';
import type { Services } from '../../../context.ts';
import type { ApiProblem } from './api.ts';
import { UUID, badge, field, formGuard, minorDigits, money, parseMoney, qs, sendConsole, table, when } from './layout.ts';
import { refusalOf } from './form-state.ts';
import { type SafeHtml, html, join } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { formProblem } from './invoice-forms.ts';
import { NameBook, wholeId } from './format.ts';

const BASE = '/console/configuration';

/** Mounts the configuration page, its forms and evidence downloads. */
export function mountConfiguration(app: express.Express, services: Services): void {
  app.get(BASE, ...consoleRoute(services, (p) => configurationPage(p)));
  app.post(`${BASE}/:subscription/relationships/:id/:decision`, ...consoleRoute(services, decide));
  app.post(`${BASE}/:subscription/baselines`, ...consoleRoute(services, (p) => revision(p, 'baseline')));
  app.post(`${BASE}/:subscription/pricing`, ...consoleRoute(services, (p) => revision(p, 'pricing')));
  app.post(`${BASE}/:subscription/resolve`, ...consoleRoute(services, resolve));
  app.post(`${BASE}/:subscription/preview`, ...consoleRoute(services, preview));
  app.get(`${BASE}/evidence/:relationship/:id`, ...consoleRoute(services, async (p) => {
    const r = await p.api.call(ops['billing.configuration.relationship-evidence.get'], { relationship_id: String(p.req.params.relationship), id: String(p.req.params.id) });
    if (r.ok) return void p.res.redirect(303, r.body.url);
    sendConsole(p.res, p.session, r.problem.status, { title: 'Evidence', section: 'configuration', problem: r.problem, body: html`<h1>Evidence</h1>` });
  }));
}

/** What a POSTed form leaves on the page: a refusal, or an answer to show (resolve, preview). */
interface Extra {
  status?: number;
  problem?: ApiProblem | null;
  answer?: SafeHtml;
  /** The revision form to fill again (after an impact preview or a refusal): its kind, the values sent and each field's problem. */
  revision?: { kind: 'baseline' | 'pricing'; values: Record<string, string>; errors?: Record<string, string> };
}

function subscriptionOf(p: ConsolePage): string {
  const raw = p.req.params.subscription ?? p.req.query.subscription_id;
  const id = typeof raw === 'string' ? raw.trim() : '';
  return UUID.test(id) ? id : '';
}

// "2026-03-01" or "2026-03-01T10:00" (UTC) -> RFC 3339; '' -> undefined.
function instant(v: string | undefined): string | undefined {
  const t = (v ?? '').trim();
  if (!t) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t}T00:00:00.000Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(t)) return `${t}${t.length === 16 ? ':00' : ''}.000Z`;
  return t;
}

function range(from: string, to: string | null): string {
  return `${from.slice(0, 10)} → ${to ? to.slice(0, 10) : 'open-ended'}`;
}

/** Subscriptions by their customer's name, to choose from (no id to paste): billing.subscriptions.list and billing.customers.list. */
async function subscriptionChoices(p: ConsolePage): Promise<{ id: string; label: string }[]> {
  const subs = await p.api.call(ops['billing.subscriptions.list'], {});
  if (!subs.ok) return [];
  const names = new Map<string, string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < 5; pages++) {
    const r = await p.api.call(ops['billing.customers.list'], { limit: 200, cursor });
    if (!r.ok) break;
    for (const c of r.body.items) names.set(c.organization_id, c.name);
    cursor = r.body.pagination?.cursor;
    if (!cursor) break;
  }
  return subs.body
    .map((x) => ({ id: x.id, label: `${names.get(x.organization_id) ?? `Organization ${x.organization_id}`}: ${x.status}, ${x.current_period_start.slice(0, 10)} to ${x.current_period_end.slice(0, 10)} (${x.id})` }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

async function configurationPage(p: ConsolePage, extra: Extra = {}): Promise<void> {
  const sub = subscriptionOf(p);
  const choices = await subscriptionChoices(p);
  const pick = html`<form method="get" action="${BASE}" class="card filters"><div class="grid">
${field('subscription_id', 'Subscription (by customer)', html`<select id="subscription_id" name="subscription_id" required><option value="">Choose a subscription</option>${choices.map((c) => html`<option value="${c.id}"${c.id === sub ? html` selected` : ''}>${c.label}</option>`)}</select>`, 'Or open it from the customer page, under Subscriptions.')}
</div><div class="actions"><button type="submit">Open</button></div></form>`;
  if (!sub) return void sendConsole(p.res, p.session, extra.status ?? 200, { title: 'Configuration', section: 'configuration', problem: extra.problem, body: html`<h1>Configuration</h1>${pick}` });
  const [rels, hist] = await Promise.all([
    p.api.call(ops['billing.configuration.relationships.list'], { subscription_id: sub }),
    p.api.call(ops['billing.configuration.history.get'], { subscription_id: sub, limit: 100 }),
  ]);
  const problem = extra.problem ?? (rels.ok ? null : rels.problem) ?? (hist.ok ? null : hist.problem);
  const relationships = rels.ok ? rels.body : [];
  const history = hist.ok ? hist.body.items : [];
  const names = await NameBook.load(p.api, {
    subscriptions: [sub],
    organizations: relationships.map((r) => r.buyer),
    users: [...history.map((h) => h.actor.id), ...relationships.flatMap((r) => r.claims.map((c) => c.actor.id))],
  });
  const buyerOf = new Map(relationships.map((r) => [r.id, r.buyer]));
  const evidence = await Promise.all(relationships.map((r) => (r.evidence_count ? p.api.call(ops['billing.configuration.relationship-evidence.list'], { relationship_id: r.id, limit: 50 }) : null)));
  const relRows = relationships.map((r, i) => {
    const ev = evidence[i];
    const files = ev && ev.ok && ev.body.items.length ? join(ev.body.items.map((f) => html`<a href="${BASE}/evidence/${r.id}/${f.id}">${f.filename}</a>`), html`<br>`) : null;
    const claims = r.claims.map((c) => html`<li>${badge(c.status)} ${c.reason ?? ''} <span class="muted">${names.actor(c.actor)}, ${when(c.recorded_at)}</span></li>`);
    const decide = r.claim_status === 'claimed'
      ? ['accept_claim', 'reject_claim'].map((d) => html`<form method="post" action="${BASE}/${sub}/relationships/${r.id}/${d}">${formGuard(p.session)}
<label for="${d}-${r.id}">Reason to ${d === 'accept_claim' ? 'accept' : 'reject'}</label><input id="${d}-${r.id}" name="reason" required maxlength="1000">
<div class="actions"><button type="submit"${d === 'reject_claim' ? html` class="danger"` : ''}>${d === 'accept_claim' ? 'Accept claim' : 'Reject claim'}</button></div></form>`)
      : '';
    return [names.organization(r.buyer), r.classification?.replaceAll('_', ' ') ?? 'undecided', badge(r.claim_status), claims.length ? html`<ul class="changes">${claims}</ul>` : '—', files ?? r.evidence_count, html`${decide}<a href="/console/history${qs({ type: 'relationship', id: r.id })}">History</a>`];
  });
  const timeline = history.map((h) => {
    const what = h.baseline
      ? `Baseline ${money(h.baseline.monthly_exempt_amount, h.baseline.currency)} a month, ${range(h.baseline.effective_from, h.baseline.effective_to)}`
      : h.pricing
        ? `Pricing ${h.pricing.rates_bps.platform_introduced} / ${h.pricing.rates_bps.pre_existing} bps, minimum ${money(h.pricing.minimum_fee, h.pricing.currency)}, ${range(h.pricing.effective_from, h.pricing.effective_to)}`
        : html`Relationship with ${h.relationship_id && buyerOf.has(h.relationship_id) ? names.organization(buyerOf.get(h.relationship_id) ?? '') : h.relationship_id ? wholeId(h.relationship_id) : 'a buyer'} ${h.claim_status ? badge(h.claim_status) : ''}`;
    const sup = h.supersedes.length ? join(h.supersedes.map((s) => html`<a href="/console/history${qs({ type: 'revision', id: s.revision_id })}">Revision for ${range(s.effective_from, s.effective_to)}</a>`), html`<br>`) : '—';
    const revId = h.baseline?.id ?? h.pricing?.id;
    return [when(h.recorded_at), names.actor(h.actor), h.kind.replaceAll('_', ' '), what, h.reason, sup, revId ? html`<code>${revId}</code><br><a href="/console/history${qs({ type: 'revision', id: revId })}">History</a>` : ''];
  });
  const revisionForm = (kind: 'baseline' | 'pricing') => {
    // After an impact preview the form keeps what was sent, so the clerk records exactly what was previewed.
    const v = (name: string, fallback = '') => (extra.revision?.kind === kind ? (extra.revision.values[name] ?? fallback) : fallback);
    const e = (name: string) => (extra.revision?.kind === kind ? extra.revision.errors?.[name] : undefined);
    return html`<form method="post" action="${BASE}/${sub}/${kind === 'baseline' ? 'baselines' : 'pricing'}" class="card">${formGuard(p.session)}
<h3>New ${kind} revision</h3><div class="grid">
${field(`${kind}-from`, 'Effective from (UTC date)', html`<input id="${kind}-from" name="effective_from" type="date" required value="${v('effective_from')}">`, undefined, e('effective_from'))}
${field(`${kind}-to`, 'Effective to, exclusive (optional)', html`<input id="${kind}-to" name="effective_to" type="date" value="${v('effective_to')}">`, undefined, e('effective_to'))}
${field(`${kind}-currency`, 'Currency', html`<input id="${kind}-currency" name="currency" required value="${v('currency', 'GBP')}" maxlength="3" size="4">`, undefined, e('currency'))}
${kind === 'baseline'
    ? field('baseline-amount', 'Monthly exempt amount', html`<input id="baseline-amount" name="monthly_exempt_amount" inputmode="decimal" required value="${v('monthly_exempt_amount')}">`, 'In the currency, like 500.00.', e('monthly_exempt_amount'))
    : html`${field('pricing-pi', 'Platform-introduced rate (bps)', html`<input id="pricing-pi" name="platform_introduced" inputmode="numeric" required value="${v('platform_introduced')}">`, '100 bps = 1%.', e('platform_introduced'))}
${field('pricing-pe', 'Pre-existing rate (bps)', html`<input id="pricing-pe" name="pre_existing" inputmode="numeric" required value="${v('pre_existing')}">`, undefined, e('pre_existing'))}
${field('pricing-min', 'Minimum fee', html`<input id="pricing-min" name="minimum_fee" inputmode="decimal" required value="${v('minimum_fee', '0.00')}">`, 'In the currency, like 25.00.', e('minimum_fee'))}`}
${field(`${kind}-supersedes`, 'Supersedes (revision ids, comma separated)', html`<input id="${kind}-supersedes" name="supersedes" value="${v('supersedes')}">`, undefined, e('supersedes'))}
</div>${field(`${kind}-reason`, 'Reason (kept in the audit record)', html`<input id="${kind}-reason" name="reason" required maxlength="1000" value="${v('reason')}">`, undefined, e('reason'))}
<div class="actions"><button type="submit">Record ${kind}</button><button type="submit" name="intent" value="impact" class="secondary">Preview impact</button></div></form>`;
  };
  sendConsole(p.res, p.session, extra.status ?? 200, {
    title: 'Configuration',
    section: 'configuration',
    problem,
    body: html`<h1>Configuration: ${names.subscription(sub)}</h1>
${pick}
${extra.answer ?? ''}
<section aria-labelledby="rels"><h2 id="rels">Relationships</h2>
${table('Relationships, with claims, evidence and decisions', ['Buyer', 'Classification', 'Claim', 'Claims and decisions', 'Evidence', 'Actions'], relRows, 'No relationships registered.')}</section>
<section aria-labelledby="timeline"><h2 id="timeline">Revisions and decisions, newest first</h2>
${table('Configuration timeline', ['Recorded', 'Who', 'Kind', 'What', 'Reason', 'Supersedes', 'Revision'], timeline, 'Nothing recorded yet.')}</section>
<section aria-labelledby="forms"><h2 id="forms">Record a revision</h2><div class="grid">${revisionForm('baseline')}${revisionForm('pricing')}</div></section>
<section aria-labelledby="try"><h2 id="try">Resolve and preview</h2><div class="grid">
<form method="post" action="${BASE}/${sub}/resolve" class="card">${formGuard(p.session)}<h3>Resolve</h3>
${field('resolve-seller', 'Seller organization', html`<input id="resolve-seller" name="seller" required size="38">`)}
${field('resolve-buyer', 'Buyer organization', html`<input id="resolve-buyer" name="buyer" required size="38">`)}
${field('resolve-at', 'Order time (UTC)', html`<input id="resolve-at" name="occurred_at" type="datetime-local" required>`)}
${field('resolve-asof', 'As known at (UTC, optional)', html`<input id="resolve-asof" name="as_of" type="datetime-local">`)}
<div class="actions"><button type="submit">Resolve</button></div></form>
<form method="post" action="${BASE}/${sub}/preview" class="card">${formGuard(p.session)}<h3>Preview fees</h3>
${field('preview-samples', 'Orders: one per line, "seller, buyer, amount, time (UTC)"', html`<textarea id="preview-samples" name="samples" rows="5" required></textarea>`, 'Amounts in the pricing currency, like 100.00.')}
${field('preview-currency', 'Currency of the amounts', html`<input id="preview-currency" name="currency" required value="GBP" maxlength="3" size="4">`)}
${field('preview-asof', 'As known at (UTC, optional)', html`<input id="preview-asof" name="as_of" type="datetime-local">`)}
<div class="actions"><button type="submit">Preview</button></div></form></div></section>
<p class="muted">How a usage invoice would change under this configuration: open the invoice and use its Re-rate preview (it writes nothing).</p>`,
  });
}

async function decide(p: ConsolePage): Promise<void> {
  const action = p.req.params.decision === 'accept_claim' || p.req.params.decision === 'reject_claim' ? p.req.params.decision : null;
  const reason = (p.form.reason ?? '').trim();
  if (!action || !reason) return configurationPage(p, { status: 400, problem: formProblem('Say why: the reason is kept in the audit record.', [{ path: 'reason', message: 'required' }]) });
  const r = await p.api.call(ops['billing.configuration.relationships.update'], { id: String(p.req.params.id), action, reason }, { idempotencyKey: p.form.idem, reason });
  if (!r.ok) return configurationPage(p, { status: r.problem.status, problem: r.problem });
  p.res.redirect(303, `${BASE}${qs({ subscription_id: subscriptionOf(p) })}`);
}

/** API paths of the revision forms whose field has another name. */
const REVISION_FIELDS: Record<string, string> = { 'rates_bps.platform_introduced': 'platform_introduced', 'rates_bps.pre_existing': 'pre_existing' };

/** The figures of a revision form: money typed as decimals (converted with the currency's exponent), rates as whole basis points. */
function revisionFigures(f: Record<string, string>, kind: 'baseline' | 'pricing', currency: string): { amount: number; pi: number; pe: number; min: number } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const decimal = (name: string) => {
    const n = parseMoney(f[name], currency);
    if (n === null) errors[name] = `Enter an amount like 500.00 (${currency || 'in the currency'}), with at most ${minorDigits(currency)} decimals.`;
    return n ?? 0;
  };
  const bps = (name: string) => {
    const t = (f[name] ?? '').trim();
    if (!/^\d{1,5}$/.test(t)) errors[name] = 'Enter whole basis points, like 250 for 2.5%.';
    return Number(t);
  };
  const out = kind === 'baseline' ? { amount: decimal('monthly_exempt_amount'), pi: 0, pe: 0, min: 0 } : { amount: 0, pi: bps('platform_introduced'), pe: bps('pre_existing'), min: decimal('minimum_fee') };
  return Object.keys(errors).length ? { errors } : out;
}

/** The form as sent, to fill again (never the CSRF token, the idempotency key or the button). */
function sentValues(f: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(f).filter(([k]) => k !== 'csrf' && k !== 'idem' && k !== 'intent'));
}

async function revision(p: ConsolePage, kind: 'baseline' | 'pricing'): Promise<void> {
  const f = p.form;
  const common = {
    subscription_id: subscriptionOf(p),
    effective_from: f.effective_from ?? '',
    ...(f.effective_to ? { effective_to: f.effective_to } : {}),
    supersedes: (f.supersedes ?? '').split(/[\s,]+/).filter(Boolean),
    reason: (f.reason ?? '').trim(),
    currency: (f.currency ?? '').trim().toUpperCase(),
  };
  const figures = revisionFigures(f, kind, common.currency);
  if ('errors' in figures) {
    return configurationPage(p, { status: 400, problem: formProblem('Some figures are not amounts or rates: each says what is wrong next to it.'), revision: { kind, values: sentValues(f), errors: figures.errors } });
  }
  if (f.intent === 'impact') return impact(p, kind, common, figures);
  const opts = { idempotencyKey: f.idem, reason: common.reason || undefined };
  const r = kind === 'baseline'
    ? await p.api.call(ops['billing.configuration.baselines.insert'], { ...common, monthly_exempt_amount: figures.amount }, opts)
    : await p.api.call(ops['billing.configuration.pricing.insert'], {
      ...common, rates_bps: { platform_introduced: figures.pi, pre_existing: figures.pe }, minimum_fee: figures.min,
    }, opts);
  if (!r.ok) return configurationPage(p, { status: r.problem.status, problem: r.problem, revision: { kind, values: sentValues(f), errors: refusalOf(kind, f, r.problem, REVISION_FIELDS).errors } });
  p.res.redirect(303, `${BASE}${qs({ subscription_id: common.subscription_id })}`);
}

// The revision's impact on generated usage invoices (billing.configuration.*.preview-impact: the same body, nothing saved), above the form filled again.
async function impact(p: ConsolePage, kind: 'baseline' | 'pricing', common: { subscription_id: string; effective_from: string; effective_to?: string; supersedes: string[]; reason: string; currency: string }, figures: { amount: number; pi: number; pe: number; min: number }): Promise<void> {
  const f = p.form;
  const r = kind === 'baseline'
    ? await p.api.call(ops['billing.configuration.baselines.preview-impact'], { ...common, monthly_exempt_amount: figures.amount, limit: 24 })
    : await p.api.call(ops['billing.configuration.pricing.preview-impact'], { ...common, rates_bps: { platform_introduced: figures.pi, pre_existing: figures.pe }, minimum_fee: figures.min, limit: 24 });
  const revision = { kind, values: sentValues(f) };
  if (!r.ok) return configurationPage(p, { status: r.problem.status, problem: r.problem, revision: { ...revision, errors: refusalOf(kind, f, r.problem, REVISION_FIELDS).errors } });
  const x = r.body;
  const signed = (n: number) => `${n > 0 ? '+' : ''}${money(n, x.currency)}`;
  const rows = x.items.map((i) => [
    html`<a href="/console/invoices/${i.invoice_id}">${i.number ?? 'Draft'}</a>`, i.period, badge(i.status), money(i.old_total, x.currency), money(i.new_total, x.currency), signed(i.difference),
    i.changed_order_count, i.unrateable_order_count,
  ]);
  const answer = html`<section class="card" aria-labelledby="impact" role="status"><h2 id="impact">Impact of this ${kind} revision (nothing was recorded)</h2>
<p>${x.months.from ? `Invoiced months its range touches: ${x.months.from} to ${x.months.to}; ${x.examined} invoice(s) rated.` : 'No invoiced month with usage lies in its range.'}</p>
${table('Invoices the revision would change', ['Invoice', 'Month', 'Status', 'Billed now', 'With the revision', 'Difference', 'Orders that differ', 'Orders left unrateable'], rows, 'No generated invoice would change.')}
${x.pagination ? html`<p class="muted">Only the first ${x.examined} invoices were rated; the API pages the rest.</p>` : ''}
<p class="muted">Saving the revision changes no invoice: each invoice's Re-rate preview then offers the correction.</p></section>`;
  return configurationPage(p, { answer, revision });
}

async function resolve(p: ConsolePage): Promise<void> {
  const f = p.form;
  const as_of = instant(f.as_of);
  const r = await p.api.call(ops['billing.configuration.resolve.get'], {
    subscription_id: subscriptionOf(p), event: { seller: (f.seller ?? '').trim(), buyer: (f.buyer ?? '').trim(), occurred_at: instant(f.occurred_at) ?? '' }, ...(as_of ? { as_of } : {}),
  });
  if (!r.ok) return configurationPage(p, { status: r.problem.status, problem: r.problem });
  const x = r.body;
  const answer = html`<section class="card" aria-labelledby="resolved" role="status"><h2 id="resolved">Resolved</h2><dl class="details">
<div><dt>Classification</dt><dd>${x.classification?.replaceAll('_', ' ') ?? `cannot classify: ${x.unclassifiable_reason ?? ''}`}</dd></div>
<div><dt>Relationship</dt><dd>${x.relationship ? html`<code>${x.relationship.id}</code> ${badge(x.relationship.claim_status)}` : 'none registered'}</dd></div>
<div><dt>Baseline</dt><dd>${x.baseline ? `${money(x.baseline.monthly_exempt_amount, x.baseline.currency)} a month (revision ${x.baseline.sequence})` : 'none in force'}</dd></div>
<div><dt>Pricing</dt><dd>${x.pricing ? `${x.pricing.rates_bps.platform_introduced} / ${x.pricing.rates_bps.pre_existing} bps, minimum ${money(x.pricing.minimum_fee, x.pricing.currency)} (revision ${x.pricing.sequence})` : 'none in force'}</dd></div>
<div><dt>As known at</dt><dd>${when(x.as_of)}</dd></div></dl></section>`;
  return configurationPage(p, { answer });
}

async function preview(p: ConsolePage): Promise<void> {
  const currency = (p.form.currency ?? 'GBP').trim().toUpperCase();
  const samples = (p.form.samples ?? '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean).map((l, i) => {
    const [seller = '', buyer = '', amount = '', at = ''] = l.split(',').map((s) => s.trim());
    return { order_id: `line-${i + 1}`, seller, buyer, amount: parseMoney(amount, currency) ?? -1, occurred_at: instant(at) ?? at };
  });
  const as_of = instant(p.form.as_of);
  const r = await p.api.call(ops['billing.configuration.preview.get'], { subscription_id: subscriptionOf(p), samples, ...(as_of ? { as_of } : {}) });
  if (!r.ok) return configurationPage(p, { status: r.problem.status, problem: r.problem });
  const names = await NameBook.load(p.api, { organizations: r.body.items.map((i) => i.buyer) });
  const rows = r.body.items.map((i) => [i.order_id, names.organization(i.buyer), money(i.amount, i.currency), i.classification.replaceAll('_', ' '), i.rate_bps, money(i.exempt_amount, i.currency), money(i.fee, i.currency)]);
  const totals = r.body.totals.map((t) => `${money(t.fee, t.currency)} on ${money(t.amount, t.currency)}`).join(', ');
  const answer = html`<section class="card" aria-labelledby="previewed" role="status"><h2 id="previewed">Preview (nothing was recorded)</h2>
${table('Previewed fees', ['Order', 'Buyer', 'Amount', 'Classification', 'Rate (bps)', 'Exempt', 'Fee'], rows)}<p><strong>Total fees:</strong> ${totals || '—'}</p></section>`;
  return configurationPage(p, { answer });
}
