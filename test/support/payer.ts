// Helpers for payment suites: a payer signed in to the payment page, its forms, and signed provider notifications.
import { expect } from 'chai';
import type { TestService } from './app.ts';
import { ops } from './ops.ts';
import { WebClient, hiddenFields, logIn } from './web.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { SANDBOX_SIGNATURE_HEADER, SANDBOX_WEBHOOK_PATH } from '../../src/payments/sandbox.ts';
import { signPayload } from '../../src/payments/signature.ts';

const PASSWORD = 'correct horse battery';

/** An organization with its billing customer and a browser signed in to it. */
export interface Payer {
  orgId: string;
  token: string;
  customerId: string;
  web: WebClient;
}

/** The payment page of a payer's customer. */
export const payPath = (p: Payer): string => `/billing/pay/${p.customerId}`;

/** Signs up an organization, creates its billing customer and signs a browser in. */
export async function signedInPayer(svc: TestService, name: string): Promise<Payer> {
  const u = await svc.signUp({ name });
  // A session that outlives the test moving the clock by days.
  const token = (await createSession(svc.app.knex, { userId: u.userId, organizationId: u.orgId, now: svc.clock.now(), ttlHours: 24 * 366 })).token;
  const c = await svc.call(ops['billing.customers.insert'], { name: `${name} <Ltd>`, email: 'ap@pay.example', currency: 'GBP', payment_terms_days: 7 }, token);
  expect(c.status, JSON.stringify(c.body)).to.equal(200);
  const web = new WebClient(svc.url);
  const done = await logIn(web, u.email, PASSWORD);
  expect(done.status).to.equal(303);
  return { orgId: u.orgId, token, customerId: c.body.id, web };
}

/** The pay page's form fields for one invoice. */
export async function payForm(p: Payer, invoiceId: string): Promise<Record<string, string> & { attempt_id: string; csrf: string }> {
  const page = await p.web.get(payPath(p));
  expect(page.status).to.equal(200);
  const start = page.html.indexOf(`data-invoice="${invoiceId}"`);
  expect(start, 'the invoice is on the page').to.be.greaterThan(-1);
  const f = hiddenFields(page.html.slice(page.html.lastIndexOf('<form', start)), payPath(p));
  return { ...f, attempt_id: f.attempt_id ?? '', csrf: f.csrf ?? '' };
}

/** POSTs a raw body to the sandbox webhook, signed now with the service's secret (or `secret`). */
export function deliverNotification(svc: TestService, body: string, secret = svc.app.config.sandboxWebhookSecret): Promise<Response> {
  return fetch(`${svc.url}${SANDBOX_WEBHOOK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(secret, body, svc.clock.now()) },
    body,
  });
}

/** Saves a card through the sandbox's setup page (the first one becomes the default and turns automatic collection on); answers the method id. */
export async function saveCard(svc: TestService, p: Pick<Payer, 'customerId' | 'token'>, number: string): Promise<string> {
  const setup = await svc.call(ops['billing.payment-method-setups.insert'], { customer_id: p.customerId, return_url: `${svc.url}/` }, p.token);
  const next = setup.body.next_action;
  if (next?.type !== 'redirect') throw new Error('expected a redirect');
  await new WebClient(svc.url).post(new URL(next.url).pathname, { number });
  // Asks the provider too, so the card is saved even where its notification cannot reach the service.
  expect((await svc.call(ops['billing.payment-method-setups.get'], { id: setup.body.id }, p.token)).body.status).to.equal('succeeded');
  const list = await svc.call(ops['billing.payment-methods.list'], { customer_id: p.customerId }, p.token);
  const m = list.body.items.find((x) => x.last4 === number.slice(-4));
  if (!m) throw new Error('card not saved');
  return m.id;
}

/**
 * The charges the sandbox provider took for an invoice, read from its own tables: the payment page's (one per provider payment,
 * keyed by the payment) and automatic collection's (keyed by the invoice id, a retry by `<invoice id>:<attempt>`).
 */
export async function providerCharges(svc: TestService, invoiceId: string): Promise<{ key: string; status: string; amount: number | null }[]> {
  const knex = svc.app.knex;
  const payments = (await knex('sandbox_provider_payments').whereRaw(`doc->'payment'->'owner'->>'invoice_id' = ?`, [invoiceId]).pluck('id')) as string[];
  const rows = (await knex('sandbox_provider_charges')
    .where((q) => {
      q.whereIn('idempotency_key', payments.length ? payments : ['-']).orWhere('idempotency_key', invoiceId).orWhere('idempotency_key', 'like', `${invoiceId}:%`);
    })
    .select('idempotency_key', 'doc')) as { idempotency_key: string; doc: { status: string; amount?: number } }[];
  return rows.map((r) => ({ key: r.idempotency_key, status: r.doc.status, amount: r.doc.amount ?? null }));
}
