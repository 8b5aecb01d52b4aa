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
