// The payment page that overdue status links to (/billing/pay/<customer id>): a signed-in member of the organization sees its
// open invoices and pays one with the sandbox provider (a saved method, or a new card on the provider's hosted page).
// The page only starts an attempt; the payment is recorded when the provider's signed notification arrives (http/payment-webhook.ts),
// or, when that notification is lost, when the result page asks the provider (billing.payment-attempts.resume).
// An HTTP adapter over invoke: it reads the session and the form, invokes the page's operations (src/commands/billing/payment-page.ts,
// internal) as the signed-in member, and renders their answers.
import express, { type Request, type Response } from 'express';
import type { z } from 'zod';
import { type Services, ProjectionLagError, ReadModelFailedError } from '../../context.ts';
import type { Caller } from '../../contract/caller.ts';
import { ops } from '../../areas/operations.ts';
import { DomainError } from '../../domain/errors.ts';
import { formatMoney } from '../../documents/money.ts';
import { newId } from '../../ids.ts';
import { html, join } from './html.ts';
import { sendErrorPage, sendPage } from './layout.ts';
import { organizationsOf, orgSwitcher } from './login.ts';
import { type WebSession, csrfToken, currentSession, validCsrf } from './web-session.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type View = z.output<(typeof ops)['billing.payment-page.get']['response']>;
type Method = View['methods'][number];
type Attempt = z.output<(typeof ops)['billing.payment-attempts.get']['response']>;

/** The path of a customer's payment page. */
export function payPath(customerId: string): string {
  return `/billing/pay/${customerId}`;
}

function methodLabel(m: Method): string {
  return m.type === 'card' ? `${m.brand ?? 'Card'} ending ${m.last4}` : `${m.bank_name ?? 'Bank'} debit, account ending ${m.last4}`;
}

/** The member as the page's operations see the caller. */
function asMember(res: Response, session: WebSession): Caller {
  const requestId = res.locals.requestId;
  return { auth: session.auth, ...(typeof requestId === 'string' ? { requestId } : {}) };
}

/** The session and what the page shows of its organization's customer when that is the page's customer; otherwise the answer is already sent. */
async function payer(req: Request, res: Response, services: Services, returnTo: string): Promise<{ session: WebSession; view: View } | null> {
  const id = String(req.params.customerId);
  if (!UUID.test(id)) {
    sendErrorPage(res, 404, 'Not found', 'There is no such payment page.');
    return null;
  }
  const session = await currentSession(req, services);
  if (!session) {
    res.redirect(303, `/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    return null;
  }
  try {
    return { session, view: (await services.invoke(ops['billing.payment-page.get'], { customer_id: id }, asMember(res, session))).body };
  } catch (err) {
    if (err instanceof ProjectionLagError || err instanceof ReadModelFailedError) {
      // The page's read models did not apply everything committed before this request in time (an invoice finalized a moment ago).
      services.logger.warn({ err }, 'payment page: read models behind');
      res.set('Retry-After', '2');
      sendErrorPage(res, 503, 'Try again', 'Your invoices are being updated. Reload the page in a moment.');
      return null;
    }
    if (!(err instanceof DomainError && err.code === 'customer_not_found')) throw err;
    // Another organization's billing account looks like a missing one; a member of several organizations may switch here.
    const orgs = await organizationsOf(services, session);
    sendPage(res, 404, 'Not found', html`<h1>Not found</h1><p role="alert">This payment page is not one of the organization you are signed in to.</p>${orgSwitcher(session, orgs, returnTo)}`);
    return null;
  }
}

// The sandbox's hosted page may live at BASE_URL, another origin than the app: the form's redirect must be allowed to go there.
function formTargets(services: Services): string[] {
  return [new URL(services.config.baseUrl).origin];
}

function listPage(res: Response, services: Services, session: WebSession, view: View): void {
  const { customer, invoices, methods } = view;
  const preferred = view.default_payment_method_id;
  const csrf = csrfToken(session);
  const today = services.clock.now().toISOString().slice(0, 10);
  const cards = invoices.map((inv) => {
    const choices = join([
      ...methods.map((m) => html`<label><input type="radio" name="method" value="${m.id}"${m.id === preferred ? html` checked` : ''}> ${methodLabel(m)}</label>`),
      html`<label><input type="radio" name="method" value="new"${preferred ? '' : html` checked`}> A new card (on the sandbox provider's page)</label>`,
    ], '\n');
    const overdue = inv.due_date < today ? html` <strong class="error">past due</strong>` : '';
    const amount = formatMoney(inv.amount_remaining, inv.currency);
    return html`<form method="post" action="${payPath(customer.id)}" class="card" data-invoice="${inv.invoice_id}">
<h2>${inv.number ?? 'Invoice'}</h2>
<p>Due ${inv.due_date}${overdue}. Still owed: <strong>${amount}</strong>. <a href="${payPath(customer.id)}/invoices/${inv.invoice_id}/pdf" download data-pdf="invoice">Download the invoice (PDF)</a></p>
<fieldset><legend>Pay with</legend>
${choices}
</fieldset>
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="invoice_id" value="${inv.invoice_id}">
<input type="hidden" name="attempt_id" value="${newId()}">
<div class="actions"><button type="submit">Pay ${amount}</button></div>
</form>`;
  });
  const body = cards.length ? join(cards, '\n') : html`<p class="notice" id="nothing-owed">Nothing to pay: every invoice is settled.</p>`;
  sendPage(res, 200, 'Pay your invoices', html`<h1>Pay your invoices</h1>
<p>${customer.name}. Payments go through the sandbox payment provider: no real money moves.</p>
${body}`, formTargets(services));
}

function resultPage(res: Response, customerId: string, state: Attempt, invoiceNumber: string): void {
  const back = html`<p><a href="${payPath(customerId)}">Back to your invoices</a></p>`;
  const amount = formatMoney(state.amount, state.currency);
  if (state.status === 'succeeded' && state.applied)
    return sendPage(res, 200, 'Payment received', html`<h1>Payment received</h1><p role="status">${amount} was paid on ${invoiceNumber}. Thank you.</p>${back}`);
  if (state.status === 'succeeded')
    return sendPage(res, 200, 'Payment received', html`<h1>Payment received</h1><p role="status">${amount} was charged, but ${invoiceNumber} had already been settled meanwhile. Billing staff will refund it.</p>${back}`);
  if (state.status === 'failed') {
    const why = state.failure_message ?? 'The payment failed.';
    return sendPage(res, 200, 'Payment declined', html`<h1>Payment declined</h1><p role="alert">${why} Nothing was charged and ${invoiceNumber} is still open. Try another card or payment method.</p>${back}`);
  }
  if (state.expired)
    return sendPage(res, 200, 'Payment not confirmed', html`<h1>Payment not confirmed</h1><p role="alert">The payment provider did not confirm the payment of ${amount} on ${invoiceNumber} in time, so ${invoiceNumber} is open again and you can pay it. If the provider confirms this payment later, it is applied to what you still owe, or refunded if you paid meanwhile.</p>${back}`);
  sendPage(res, 200, 'Payment processing', html`<h1>Payment processing</h1><p role="status">The payment provider has not confirmed the payment of ${amount} on ${invoiceNumber} yet. Reload this page in a moment.</p>${back}`);
}

// Another charge of the invoice is in flight (issue 26): nothing was charged; the page says so, and links to it when it is the page's own.
function inProgressPage(res: Response, customerId: string, invoiceNumber: string, err: DomainError): void {
  const attempt = err.details?.started_by === 'payment_page' && typeof err.details.attempt_id === 'string' ? err.details.attempt_id : null;
  const how = attempt ? html`<p><a href="${payPath(customerId)}/attempts/${attempt}">See that payment</a></p>` : html`<p>Automatic collection is charging your saved payment method.</p>`;
  sendPage(res, 409, 'Payment in progress', html`<h1>Payment in progress</h1><p role="alert" data-code="payment_in_progress">A payment of ${invoiceNumber} is already in progress, so nothing was charged now. Wait for its outcome before paying again.</p>${how}<p><a href="${payPath(customerId)}">Back to your invoices</a></p>`);
}

function field(body: unknown, name: string): string {
  return body && typeof body === 'object' && name in body ? String((body as Record<string, unknown>)[name]) : '';
}

/** Mounts GET/POST /billing/pay/:customerId and GET /billing/pay/:customerId/attempts/:attemptId. */
export function mountPaymentPage(app: express.Express, services: Services): void {
  const form = express.urlencoded({ extended: false, limit: '4kb' });

  app.get('/billing/pay/:customerId', async (req, res) => {
    const who = await payer(req, res, services, req.originalUrl);
    if (who) listPage(res, services, who.session, who.view);
  });

  // The invoice's PDF for the organization: the same document operation the API has, invoked as the signed-in member.
  app.get('/billing/pay/:customerId/invoices/:invoiceId/pdf', async (req, res) => {
    const who = await payer(req, res, services, req.originalUrl);
    if (!who) return;
    const invoiceId = String(req.params.invoiceId);
    if (!UUID.test(invoiceId)) return sendErrorPage(res, 404, 'Not found', 'There is no such invoice.');
    try {
      const { body } = await services.invoke(ops['billing.invoices.document.get'], { invoice_id: invoiceId }, asMember(res, who.session));
      res.redirect(303, body.url);
    } catch (err) {
      if (err instanceof DomainError && (err.code === 'invoice_not_found' || err.code === 'invoice_is_draft')) return sendErrorPage(res, 404, 'Not found', 'There is no such invoice.');
      throw err;
    }
  });

  app.get('/billing/pay/:customerId/attempts/:attemptId', async (req, res) => {
    const who = await payer(req, res, services, req.originalUrl);
    if (!who) return;
    const attemptId = String(req.params.attemptId);
    if (!UUID.test(attemptId)) return sendErrorPage(res, 404, 'Not found', 'There is no such payment.');
    try {
      const { body } = await services.invoke(ops['billing.payment-attempts.get'], { customer_id: who.view.customer.id, attempt_id: attemptId }, asMember(res, who.session));
      resultPage(res, who.view.customer.id, body, body.invoice_number ?? 'the invoice');
    } catch (err) {
      if (err instanceof DomainError && err.code === 'payment_attempt_not_found') return sendErrorPage(res, 404, 'Not found', 'There is no such payment.');
      throw err;
    }
  });

  app.post('/billing/pay/:customerId', form, async (req, res) => {
    const who = await payer(req, res, services, payPath(String(req.params.customerId)));
    if (!who) return;
    const { session, view } = who;
    const customer = view.customer;
    if (!validCsrf(session, field(req.body, 'csrf'))) return sendErrorPage(res, 403, 'Not paid', 'The form expired. Go back, reload the page and try again.');
    const invoiceId = field(req.body, 'invoice_id');
    const attemptId = field(req.body, 'attempt_id');
    if (!UUID.test(invoiceId) || !UUID.test(attemptId)) return sendErrorPage(res, 404, 'Not found', 'There is no such invoice to pay.');
    const returnUrl = `${services.config.appUrl}${payPath(customer.id)}/attempts/${attemptId}`;
    try {
      const { body } = await services.invoke(ops['billing.payment-attempts.pay'], { customer_id: customer.id, invoice_id: invoiceId, attempt_id: attemptId, method: field(req.body, 'method'), return_url: returnUrl }, asMember(res, session));
      res.redirect(303, body.redirect);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      switch (err.code) {
        case 'invoice_not_found':
          return sendErrorPage(res, 404, 'Not found', err.message);
        case 'invoice_not_payable':
          return sendErrorPage(res, 409, 'Nothing to pay', err.message, err.code);
        case 'payment_in_progress':
          return inProgressPage(res, customer.id, view.invoices.find((i) => i.invoice_id === invoiceId)?.number ?? 'This invoice', err);
        case 'payment_method_not_found':
          // A method not among the form's is the payer's choice to make again; one removed since the attempt started is a conflict.
          return sendErrorPage(res, err.details?.removed ? 409 : 400, 'Not paid', err.message);
        case 'payment_attempt_exists':
        case 'payment_attempt_not_found':
          return sendErrorPage(res, 409, 'Not paid', err.message);
        case 'payment_attempt_expired':
          return sendErrorPage(res, 409, 'Not paid', err.message, err.code);
        default:
          return sendErrorPage(res, err.status, 'Not paid', err.message, err.code);
      }
    }
  });
}
