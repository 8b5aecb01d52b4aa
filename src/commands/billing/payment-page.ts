// The payment page's operations (internal: invoked in process by src/http/pages/pay.ts as the signed-in member, never routed over
// HTTP): what the page shows, a payment form sent, and an attempt's outcome. The page only renders their answers.
import { operation } from '../../contract/operation.ts';
import {
  PaymentAttemptGetRequest, PaymentAttemptPayRequest, PaymentAttemptPayResult, PaymentAttemptView, PaymentPageRequest, PaymentPageView,
} from '../../contract/schemas/billing-system.ts';
import { type SessionAuth, systemAuth } from '../../context.ts';
import type { RequestContext } from '../../context.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { CHARGE_ATTEMPT_TTL_MS } from '../../domain/billing/charge-attempt.ts';
import { DomainError } from '../../domain/errors.ts';
import { NotificationRejected } from '../../payments/port.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { billingInvoicesProjection } from '../../projections/billing/invoices.ts';
import { billingPaymentMethodsProjection } from '../../projections/billing/payment-methods.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { customerOfOrganization } from '../../queries/billing/customers.ts';
import type { CustomerDoc } from '../../projections/billing/customers.ts';
import { getInvoiceDoc } from '../../queries/billing/invoices.ts';
import { getProfileDoc } from '../../queries/billing/payment-methods.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';
import { paymentAttempts } from './handlers.ts';
import { attemptPayment, paymentAttemptsResume, startPaymentAttempt } from './payment-attempts.ts';

/** The billing customer of the caller's organization, when it is the page's; else customer_not_found (another organization's page looks missing). */
async function pageCustomer(ctx: RequestContext & { auth: SessionAuth }, customerId: string): Promise<CustomerDoc> {
  const customer = await customerOfOrganization(ctx.services.knex, ctx.auth.organizationId);
  if (!customer || customer.id !== customerId) throw billingErrors.error('customer_not_found', 'This payment page is not one of the organization you are signed in to.');
  return customer;
}

/** billing.payment-page.get */
export const paymentPageGet = operation({
  id: 'billing.payment-page.get',
  surface: 'internal',
  tags: ['Billing'],
  summary: "The payment page of the caller's organization: its open invoices still owed and its saved methods.",
  description: 'Internal: the payment page invokes it as the signed-in member. Reads the read models once they have applied everything committed before the call, so an invoice finalized a moment ago is there.',
  request: PaymentPageRequest,
  response: PaymentPageView,
  error: 'billing.PaymentPageError',
  errors: billingErrors.list('customer_not_found'),
  access: 'org_user',
  async handle(ctx, req) {
    await caughtUp(ctx.services, [billingCustomersProjection, billingInvoicesProjection, billingStatementsProjection, billingPaymentMethodsProjection]);
    const customer = await pageCustomer(ctx, req.customer_id);
    const profile = await getProfileDoc(ctx.services.knex, customer.id);
    return {
      customer: { id: customer.id, name: customer.name, organization_id: customer.organization_id },
      invoices: await unpaidInvoices(ctx.services.knex, customer.id),
      methods: (profile?.methods ?? []).map((m) => ({ id: m.id, type: m.type, brand: m.brand, last4: m.last4, bank_name: m.bank_name })),
      default_payment_method_id: profile?.default_payment_method_id ?? null,
    };
  },
});

/** billing.payment-attempts.pay */
export const paymentAttemptsPay = operation({
  id: 'billing.payment-attempts.pay',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Starts (or, for the same form sent again, continues) a payment of an open invoice on the payment page.',
  description:
    'Internal: the payment page invokes it as the signed-in member. Holds the invoice for the attempt (one charge in flight per invoice), '
    + 'then asks the provider for the payment; only the attempt holding the invoice asks for money. Answers where the payer goes next.',
  request: PaymentAttemptPayRequest,
  response: PaymentAttemptPayResult,
  error: 'billing.PaymentAttemptError',
  errors: billingErrors.list('customer_not_found', 'invoice_not_found', 'invoice_not_payable', 'payment_method_not_found', 'payment_attempt_exists', 'payment_attempt_not_found', 'payment_attempt_expired', 'payment_in_progress'),
  access: 'org_user',
  write: true,
  async handle(ctx, req) {
    const customer = await pageCustomer(ctx, req.customer_id);
    const invoice = await getInvoiceDoc(ctx.services.db, req.invoice_id);
    if (!invoice || invoice.customer_id !== customer.id || invoice.status === 'draft') throw ctx.errors.error('invoice_not_found', 'There is no such invoice to pay.');
    const nothingToPay = () => ctx.errors.error('invoice_not_payable', `${invoice.number ?? 'This invoice'} has nothing left to pay.`);
    const methods = (await getProfileDoc(ctx.services.knex, customer.id))?.methods ?? [];
    let state = await paymentAttempts.load(ctx, req.attempt_id);
    if (!state.started) {
      // A new attempt pays what is owed now; the same form sent again continues its attempt (same amount, same method).
      if (invoice.status !== 'open' || invoice.amount_remaining <= 0) throw nothingToPay();
      const method = req.method === 'new' ? null : methods.find((m) => m.id === req.method);
      if (method === undefined) throw ctx.errors.error('payment_method_not_found', 'Choose one of the payment methods shown, or a new card.');
      try {
        state = await startPaymentAttempt(ctx.services, ctx, {
          attempt_id: req.attempt_id, invoice_id: invoice.id, customer_id: customer.id, organization_id: customer.organization_id,
          currency: invoice.currency, payment_method_id: method?.id ?? null, method_type: method?.type ?? 'card',
        });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invoice_not_payable') throw nothingToPay();
        throw err;
      }
    } else if (state.started.invoice_id !== invoice.id || state.started.customer_id !== customer.id) {
      throw ctx.errors.error('payment_attempt_exists', 'This payment form was already used for another invoice. Reload the page.');
    }
    const started = state.started;
    if (!started) throw ctx.errors.error('payment_attempt_not_found', 'The payment could not be started. Reload the page.');
    const method = started.payment_method_id ? methods.find((m) => m.id === started.payment_method_id) : null;
    if (method === undefined) throw ctx.errors.error('payment_method_not_found', 'The chosen payment method was removed meanwhile. Reload the page.', { details: { removed: true } });
    // Only the attempt holding the invoice asks the provider for money; a form whose attempt ended or expired sees its outcome.
    const { payment, holds } = await attemptPayment(ctx.services, started, method?.provider_ref ?? null, req.return_url);
    if (!payment) throw ctx.errors.error('payment_attempt_expired', 'This payment form expired before it was sent to the payment provider: nothing was charged. Reload the page and try again.');
    if (!holds) return { redirect: req.return_url };
    return { redirect: payment.next_action?.type === 'redirect' && payment.status === 'requires_action' ? payment.next_action.url : req.return_url };
  },
});

/** billing.payment-attempts.get */
export const paymentAttemptsGet = operation({
  id: 'billing.payment-attempts.get',
  surface: 'internal',
  tags: ['Billing'],
  summary: "A payment-page attempt's outcome; one still pending is first asked of the provider (its notification may be lost).",
  description: 'Internal: the result page invokes it as the signed-in member; the provider\'s record is applied by billing.payment-attempts.resume, invoked as the payment provider.',
  request: PaymentAttemptGetRequest,
  response: PaymentAttemptView,
  error: 'billing.PaymentAttemptError',
  errors: billingErrors.list('customer_not_found', 'payment_attempt_not_found'),
  access: 'org_user',
  async handle(ctx, req) {
    const customer = await pageCustomer(ctx, req.customer_id);
    let state = await paymentAttempts.load(ctx, req.attempt_id);
    const started = state.started;
    if (!started || started.customer_id !== customer.id) throw ctx.errors.error('payment_attempt_not_found', 'There is no such payment.');
    if (state.status === 'pending') {
      // Still pending: its notification may be lost, so ask the provider (a reload of the result page catches it up).
      const resumed = await resume(ctx, started.attempt_id, started.organization_id);
      if (resumed) state = await paymentAttempts.load(ctx, req.attempt_id);
    }
    const invoice = await getInvoiceDoc(ctx.services.db, started.invoice_id);
    const expired = state.status === 'pending' && state.startedAt !== null && ctx.now.getTime() - Date.parse(state.startedAt) >= CHARGE_ATTEMPT_TTL_MS;
    return { status: state.status, applied: state.applied, amount: started.amount, currency: started.currency, invoice_number: invoice?.number ?? null, failure_message: state.failure?.message ?? null, expired };
  },
});

// The provider acts here, not the member: its record is applied as the payment provider, in this page request's correlation.
async function resume(ctx: RequestContext & { auth: SessionAuth }, attemptId: string, organizationId: string): Promise<boolean> {
  try {
    const { body } = await ctx.services.invoke(paymentAttemptsResume, { attempt_id: attemptId, visible: true }, { auth: systemAuth('payment-provider', organizationId), correlationId: ctx.metadata.correlation_id ?? ctx.requestId });
    return body.applied;
  } catch (err) {
    if (!(err instanceof NotificationRejected)) throw err;
    ctx.logger.warn({ err, attempt_id: attemptId }, 'the provider\'s payment does not match its attempt: left pending');
    return false;
  }
}

/** The payment page's internal operations. */
export const billingPaymentPageCommands = [paymentPageGet, paymentAttemptsPay, paymentAttemptsGet];
