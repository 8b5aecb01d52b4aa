// Create and edit a customer (issue 28 §3) through billing.customers.insert / .update: the API's validation comes back
// next to each field in words, and what was typed stays in the form.
import type express from 'express';
import type { Services } from '../../../context.ts';
import type { ApiProblem } from './api.ts';
import { field, formGuard, qs, sendConsole, table, UUID } from './layout.ts';
import { type SafeHtml, html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';
import { type Refusal, errorOf, refusalOf, typed } from './form-state.ts';

/** The form's fields: name in the form, API path, label, and what the input is. */
const ADDRESS = ['line1', 'line2', 'city', 'postal_code', 'region', 'country'] as const;

/** API paths whose form field has another name (the address's parts are flat in the form). */
const PATHS: Record<string, string> = Object.fromEntries(ADDRESS.map((a) => [`billing_address.${a}`, a]));

/** The customer forms' values, as the form names them. */
type Values = Record<string, string>;

/** Mounts the new-customer and edit-customer forms. */
export function mountCustomerForms(app: express.Express, services: Services): void {
  app.get('/console/customers/new', ...consoleRoute(services, (p) => newCustomerPage(p)));
  app.post('/console/customers', ...consoleRoute(services, createCustomer));
  app.get('/console/customers/:id/edit', ...consoleRoute(services, (p) => editCustomerPage(p, String(p.req.params.id))));
  app.post('/console/customers/:id', ...consoleRoute(services, (p) => saveCustomer(p, String(p.req.params.id))));
}

/** The address the form holds: null when every part is empty, else the parts typed (the API says which are missing). */
function addressOf(v: Values): { line1: string; city: string; country: string; line2?: string; postal_code?: string; region?: string } | null {
  const t = (k: string) => (v[k] ?? '').trim();
  if (ADDRESS.every((a) => !t(a))) return null;
  const optional = (k: 'line2' | 'postal_code' | 'region') => (t(k) ? { [k]: t(k) } : {});
  return { line1: t('line1'), city: t('city'), country: t('country').toUpperCase(), ...optional('line2'), ...optional('postal_code'), ...optional('region') };
}

// Days as typed: a number goes as one; anything else as NaN, so the API names the field ("Enter a number.") with the others.
function daysOf(v: string | undefined): number | undefined {
  const t = (v ?? '').trim();
  return t === '' ? undefined : Number(t);
}

function customerFields(v: (name: string) => string, e: (name: string) => string | undefined, creating: boolean): SafeHtml {
  const text = (name: string, label: string, attrs: { required?: boolean; max: number; hint?: string; type?: string }) =>
    field(`c-${name}`, label, html`<input id="c-${name}" name="${name}" type="${attrs.type ?? 'text'}" maxlength="${attrs.max}"${attrs.required ? html` required` : ''} value="${v(name)}">`, attrs.hint, e(name));
  return html`<div class="grid">
${text('name', 'Name on invoices', { required: true, max: 200 })}
${text('email', 'Billing email', { required: true, max: 320, hint: 'Where invoices are sent.' })}
${text('currency', 'Currency', { required: true, max: 3, hint: creating ? 'ISO 4217, like GBP or EUR.' : 'Changes the currency of new invoices only.' })}
${text('payment_terms_days', 'Payment terms (days)', { max: 3, hint: 'Days from issue to due date, 0 to 365.' })}
${text('tax_id', 'Tax id (optional)', { max: 50 })}
</div>
<fieldset><legend>Billing address (optional)</legend><div class="grid">
${text('line1', 'Address line 1', { max: 200 })}
${text('line2', 'Address line 2', { max: 200 })}
${text('city', 'City or town', { max: 100 })}
${text('postal_code', 'Postal code', { max: 20 })}
${text('region', 'County, state or region', { max: 100 })}
${text('country', 'Country code', { max: 2, hint: 'Two letters, like GB or FR.' })}
</div></fieldset>`;
}

async function newCustomerPage(p: ConsolePage, refusal?: Refusal, problem: ApiProblem | null = null, status = 200): Promise<void> {
  const orgId = typed(refusal, 'customer', 'organization_id', typeof p.req.query.organization_id === 'string' ? p.req.query.organization_id : '');
  const find = typeof p.req.query.organization === 'string' ? p.req.query.organization.trim() : '';
  // The organization to bill: chosen by name (billing.search.list), never pasted.
  if (!UUID.test(orgId)) {
    const found = find.length >= 2 ? await p.api.call(ops['billing.search.list'], { query: find, kinds: ['organizations'], limit: 20 }) : null;
    const rows = found?.ok
      ? found.body.organizations.map((o) => [o.name, o.kind, o.customer ? html`has <a href="/console/customers/${o.customer.id}">${o.customer.name}</a>` : html`<a href="/console/customers/new${qs({ organization_id: o.id })}">Create its customer</a>`])
      : [];
    return void sendConsole(p.res, p.session, found && !found.ok ? found.problem.status : status, {
      title: 'New customer', section: 'customers', problem: problem ?? (found && !found.ok ? found.problem : null),
      body: html`<h1>New customer</h1><p>Each organization has one billing customer. Find the organization first.</p>
<form method="get" action="/console/customers/new" class="card filters" role="search">
${field('organization', 'Organization name', html`<input id="organization" name="organization" type="search" required minlength="2" value="${find}">`, 'The start of its name.')}
<div class="actions"><button type="submit">Find organization</button></div></form>
${find.length >= 2 ? table('Organizations found', ['Organization', 'Kind', 'Billing customer'], rows, 'No organization starts with that.') : ''}`,
    });
  }
  const org = await p.api.call(ops['billing.search.list'], { query: orgId, kinds: ['organizations'], limit: 1 });
  const o = org.ok ? org.body.organizations[0] : undefined;
  const v = (name: string) => typed(refusal, 'customer', name, name === 'payment_terms_days' ? '30' : name === 'currency' ? 'GBP' : '');
  sendConsole(p.res, p.session, status, {
    title: 'New customer', section: 'customers', problem,
    body: html`<h1>New customer${o ? html` of ${o.name}` : ''}</h1>
${o?.customer ? html`<p class="problem" role="alert">${o.name} already has a billing customer: <a href="/console/customers/${o.customer.id}">${o.customer.name}</a>.</p>` : ''}
<form method="post" action="/console/customers" class="card" novalidate>${formGuard(p.session)}
<input type="hidden" name="organization_id" value="${orgId}">
${customerFields(v, (n) => errorOf(refusal, 'customer', n), true)}
<div class="actions"><button type="submit">Create customer</button><a href="/console/customers">Cancel</a></div></form>`,
  });
}

async function createCustomer(p: ConsolePage): Promise<void> {
  const f = p.form;
  const address = addressOf(f);
  const taxId = (f.tax_id ?? '').trim();
  const days = daysOf(f.payment_terms_days);
  const r = await p.api.call(ops['billing.customers.insert'], {
    organization_id: f.organization_id ?? '', name: f.name ?? '', email: (f.email ?? '').trim(), currency: (f.currency ?? '').trim().toUpperCase(),
    ...(days === undefined ? {} : { payment_terms_days: days }), ...(taxId ? { tax_id: taxId } : {}), ...(address ? { billing_address: address } : {}),
  }, { idempotencyKey: f.idem });
  if (!r.ok) return newCustomerPage(p, refusalOf('customer', f, r.problem, PATHS), r.problem, r.problem.status);
  p.res.redirect(303, `/console/customers/${encodeURIComponent(r.body.id)}?done=customer_created`);
}

async function editCustomerPage(p: ConsolePage, id: string, refusal?: Refusal, problem: ApiProblem | null = null, status = 200): Promise<void> {
  const c = await p.api.call(ops['billing.customers.get'], { id });
  if (!c.ok) return void sendConsole(p.res, p.session, c.problem.status, { title: 'Customer', section: 'customers', problem: c.problem, body: html`<h1>Customer</h1><p><a href="/console/customers">Back to the customers</a></p>` });
  const x = c.body;
  const saved: Values = {
    name: x.name, email: x.email, currency: x.currency, payment_terms_days: String(x.payment_terms_days), tax_id: x.tax_id ?? '',
    ...Object.fromEntries(ADDRESS.map((a) => [a, x.billing_address?.[a] ?? ''])),
  };
  const v = (name: string) => typed(refusal, 'customer', name, saved[name] ?? '');
  sendConsole(p.res, p.session, status, {
    title: `Edit ${x.name}`, section: 'customers', problem,
    body: html`<h1>Edit ${x.name}</h1>
<form method="post" action="/console/customers/${id}" class="card" novalidate>${formGuard(p.session)}
${customerFields(v, (n) => errorOf(refusal, 'customer', n), false)}
${field('c-reason', 'Why is it changed? (optional, kept in the history)', html`<input id="c-reason" name="reason" maxlength="500" value="${typed(refusal, 'customer', 'reason')}">`)}
<div class="actions"><button type="submit">Save customer</button><a href="/console/customers/${id}">Cancel</a></div></form>`,
  });
}

async function saveCustomer(p: ConsolePage, id: string): Promise<void> {
  const f = p.form;
  const taxId = (f.tax_id ?? '').trim();
  const days = daysOf(f.payment_terms_days);
  const reason = (f.reason ?? '').trim();
  const r = await p.api.call(ops['billing.customers.update'], {
    id, name: f.name ?? '', email: (f.email ?? '').trim(), currency: (f.currency ?? '').trim().toUpperCase(),
    ...(days === undefined ? {} : { payment_terms_days: days }), tax_id: taxId || null, billing_address: addressOf(f),
  }, { idempotencyKey: f.idem, reason: reason || undefined });
  if (!r.ok) return editCustomerPage(p, id, refusalOf('customer', f, r.problem, PATHS), r.problem, r.problem.status);
  p.res.redirect(303, `/console/customers/${encodeURIComponent(id)}?done=customer_saved`);
}
