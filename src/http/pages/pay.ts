// The payment page that overdue status links to (/billing/pay/<customer id>): a signed-in member of the organization sees its
// open invoices and pays one with the sandbox provider (a saved method, or a new card on the provider's hosted page).
// The page only starts an attempt; the payment is recorded when the provider's signed notification arrives (http/payment-webhook.ts),
// or, when that notification is lost, when the result page asks the provider (resumeProviderPayment).
import express, { type Request, type Response } from 'express';
import type { CommandContext, Services } from '../../context.ts';
import { paymentAttempts } from '../../commands/billing/handlers.ts';
import { attemptPayment, paymentOutcomeReadModels, resumeProviderPayment, startPaymentAttempt } from '../../commands/billing/payment-attempts.ts';
import type { PaymentAttemptState } from '../../domain/billing/payment-attempt.ts';
import { DomainError } from '../../domain/errors.ts';
import { displayMinorUnits } from '../../iso4217.ts';
import { IdSource, newId } from '../../ids.ts';
import { NotificationRejected } from '../../payments/port.ts';
import { type CustomerDoc, billingCustomersProjection } from '../../projections/billing/customers.ts';
import { type ProfileDoc, billingPaymentMethodsProjection } from '../../projections/billing/payment-methods.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { customerOfOrganization } from '../../queries/billing/customers.ts';
import { getInvoiceDoc } from '../../queries/billing/invoices.ts';
import { getProfileDoc } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';
import { html, join } from './html.ts';
import { sendErrorPage, sendPage } from './layout.ts';
import { organizationsOf, orgSwitcher } from './login.ts';
import { type WebSession, csrfToken, currentSession, validCsrf } from './web-session.ts';
import { eventMetadata } from '../../pipeline/invoke.ts';
import { caughtUp } from '../../pipeline/read-models.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type Method = ProfileDoc['methods'][number];

/** The path of a customer's payment page. */
export function payPath(customerId: string): string {
  return `/billing/pay/${customerId}`;
}

/** An amount in minor units as people read it (`£12.34`, `IQD 12.345`), with ISO 4217's digits (never the runtime's CLDR ones). */
export function formatMoney(amount: number, currency: string): string {
  const digits = displayMinorUnits(currency);
  if (digits === null) return `${amount} ${currency} (minor units)`;
  return new Intl.NumberFormat('en-GB', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits);
}

function methodLabel(m: Method): string {
  return m.type === 'card' ? `${m.brand ?? 'Card'} ending ${m.last4}` : `${m.bank_name ?? 'Bank'} debit, account ending ${m.last4}`;
}

/** Lets the page's read models apply everything committed before this request, so an invoice finalized a moment ago is there. */
async function readModelsReady(res: Response, services: Services): Promise<boolean> {
  try {
    await caughtUp(services, [billingCustomersProjection, billingInvoicesProjection, billingStatementsProjection, billingPaymentMethodsProjection]);
    return true;
  } catch (err) {
    services.logger.warn({ err }, 'payment page: read models behind');
    res.set('Retry-After', '2');
    sendErrorPage(res, 503, 'Try again', 'Your invoices are being updated. Reload the page in a moment.');
    return false;
  }
}

/** The session and the customer of its organization when that is the page's customer; otherwise the answer is already sent. */
async function payer(req: Request, res: Response, services: Services, returnTo: string): Promise<{ session: WebSession; customer: CustomerDoc } | null> {
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
  if (!(await readModelsReady(res, services))) return null;
  const customer = await customerOfOrganization(services.knex, session.auth.organizationId);
  if (!customer || customer.id !== id) {
    // Another organization's billing account looks like a missing one; a member of several organizations may switch here.
    const orgs = await organizationsOf(services, session.auth.userId);
    sendPage(res, 404, 'Not found', html`<h1>Not found</h1><p role="alert">This payment page is not one of the organization you are signed in to.</p>${orgSwitcher(session, orgs, returnTo)}`);
    return null;
  }
  return { session, customer };
}

function commandContext(services: Services, session: WebSession): CommandContext {
  const now = services.clock.now();
  const { auth } = session;
  return { store: services.store, ids: IdSource.random(now), now, metadata: eventMetadata({ auth, requestId: newId() }) };
}

// The sandbox's hosted page may live at BASE_URL, another origin than the app: the form's redirect must be allowed to go there.
function formTargets(services: Services): string[] {
  return [new URL(services.config.baseUrl).origin];
}

async function listPage(res: Response, services: Services, session: WebSession, customer: CustomerDoc): Promise<void> {
  const invoices = await unpaidInvoices(services.knex, customer.id);
  const profile = await getProfileDoc(services.knex, customer.id);
  const methods = profile?.methods ?? [];
  const preferred = profile?.default_payment_method_id ?? null;
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
<p>Due ${inv.due_date}${overdue}. Still owed: <strong>${amount}</strong>.</p>
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

function resultPage(res: Response, customerId: string, state: PaymentAttemptState, invoiceNumber: string): void {
  const back = html`<p><a href="${payPath(customerId)}">Back to your invoices</a></p>`;
  const amount = state.started ? formatMoney(state.started.amount, state.started.currency) : '';
  if (state.status === 'succeeded' && state.applied)
    return sendPage(res, 200, 'Payment received', html`<h1>Payment received</h1><p role="status">${amount} was paid on ${invoiceNumber}. Thank you.</p>${back}`);
  if (state.status === 'succeeded')
    return sendPage(res, 200, 'Payment received', html`<h1>Payment received</h1><p role="status">${amount} was charged, but ${invoiceNumber} had already been settled meanwhile. Billing staff will refund it.</p>${back}`);
  if (state.status === 'failed') {
    const why = state.failure?.message ?? 'The payment failed.';
    return sendPage(res, 200, 'Payment declined', html`<h1>Payment declined</h1><p role="alert">${why} Nothing was charged and ${invoiceNumber} is still open. Try another card or payment method.</p>${back}`);
  }
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
    if (who) await listPage(res, services, who.session, who.customer);
  });

  app.get('/billing/pay/:customerId/attempts/:attemptId', async (req, res) => {
    const who = await payer(req, res, services, req.originalUrl);
    if (!who) return;
    const attemptId = String(req.params.attemptId);
    let state = UUID.test(attemptId) ? await paymentAttempts.load(services, attemptId) : null;
    if (!state?.started || state.started.customer_id !== who.customer.id) return sendErrorPage(res, 404, 'Not found', 'There is no such payment.');
    const invoiceId = state.started.invoice_id;
    // Still pending: its notification may be lost, so ask the provider (a reload of this page catches it up).
    const resumed = await resumeProviderPayment(services, state, paymentOutcomeReadModels).catch((err: unknown) => {
      if (!(err instanceof NotificationRejected)) throw err;
      services.logger.warn({ err, attempt_id: attemptId }, 'the provider\'s payment does not match its attempt: left pending');
      return false;
    });
    if (resumed) state = await paymentAttempts.load(services, attemptId);
    const invoice = await getInvoiceDoc(services.db, invoiceId);
    resultPage(res, who.customer.id, state, invoice?.number ?? 'the invoice');
  });

  app.post('/billing/pay/:customerId', form, async (req, res) => {
    const who = await payer(req, res, services, payPath(String(req.params.customerId)));
    if (!who) return;
    const { session, customer } = who;
    if (!validCsrf(session, field(req.body, 'csrf'))) return sendErrorPage(res, 403, 'Not paid', 'The form expired. Go back, reload the page and try again.');
    const invoiceId = field(req.body, 'invoice_id');
    const attemptId = field(req.body, 'attempt_id');
    const choice = field(req.body, 'method');
    const invoice = UUID.test(invoiceId) ? await getInvoiceDoc(services.db, invoiceId) : null;
    if (!invoice || invoice.customer_id !== customer.id || invoice.status === 'draft' || !UUID.test(attemptId)) return sendErrorPage(res, 404, 'Not found', 'There is no such invoice to pay.');
    const methods = (await getProfileDoc(services.knex, customer.id))?.methods ?? [];
    const ctx = commandContext(services, session);
    let state = await paymentAttempts.load(services, attemptId);
    try {
      if (!state.started) {
        // A new attempt pays what is owed now; the same form sent again continues its attempt (same amount, same method).
        if (invoice.status !== 'open' || invoice.amount_remaining <= 0) return sendErrorPage(res, 409, 'Nothing to pay', `${invoice.number ?? 'This invoice'} has nothing left to pay.`, 'invoice_not_payable');
        const method = choice === 'new' ? null : methods.find((m) => m.id === choice);
        if (method === undefined) return sendErrorPage(res, 400, 'Not paid', 'Choose one of the payment methods shown, or a new card.');
        state = await startPaymentAttempt(services, ctx, {
          attempt_id: attemptId, invoice_id: invoice.id, customer_id: customer.id, organization_id: customer.organization_id,
          currency: invoice.currency, payment_method_id: method?.id ?? null, method_type: method?.type ?? 'card',
        });
      } else if (state.started.invoice_id !== invoice.id || state.started.customer_id !== customer.id) return sendErrorPage(res, 409, 'Not paid', 'This payment form was already used for another invoice. Reload the page.');
    } catch (err) {
      if (err instanceof DomainError && err.code === 'payment_in_progress') return inProgressPage(res, customer.id, invoice.number ?? 'This invoice', err);
      if (err instanceof DomainError && err.code === 'invoice_not_payable') return sendErrorPage(res, 409, 'Nothing to pay', `${invoice.number ?? 'This invoice'} has nothing left to pay.`, err.code);
      if (err instanceof DomainError) return sendErrorPage(res, err.status, 'Not paid', err.message, err.code);
      throw err;
    }
    const started = state.started;
    if (!started) return sendErrorPage(res, 409, 'Not paid', 'The payment could not be started. Reload the page.');
    const resultUrl = `${services.config.appUrl}${payPath(customer.id)}/attempts/${attemptId}`;
    const method = started.payment_method_id ? methods.find((m) => m.id === started.payment_method_id) : null;
    if (method === undefined) return sendErrorPage(res, 409, 'Not paid', 'The chosen payment method was removed meanwhile. Reload the page.');
    // Only the attempt holding the invoice asks the provider for money; a form whose attempt ended or expired sees its outcome.
    const { payment, holds } = await attemptPayment(services, started, method?.provider_ref ?? null, resultUrl);
    if (!payment) return sendErrorPage(res, 409, 'Not paid', 'This payment form expired before it was sent to the payment provider: nothing was charged. Reload the page and try again.', 'payment_attempt_expired');
    if (!holds) return res.redirect(303, resultUrl);
    res.redirect(303, payment.next_action?.type === 'redirect' && payment.status === 'requires_action' ? payment.next_action.url : resultUrl);
  });
}
