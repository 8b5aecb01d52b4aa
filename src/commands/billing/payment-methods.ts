// billing.payment-method-setups.insert and .get (resume) and billing.payment-methods.remove, on the payment profile aggregate.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { PaymentMethodRemoveRequest, PaymentMethodSetupGetRequest, PaymentMethodSetupItem, PaymentMethodSetupStartRequest } from '../../contract/schemas/billing-payment-methods.ts';
import type { CommandContext } from '../../context.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { ProviderSetup } from '../../payments/port.ts';
import { billingPaymentMethodsProjection } from '../../projections/billing/payment-methods.ts';
import { visibleCustomer } from '../../queries/billing/customers.ts';
import { getSetupDoc, setupItem, visibleSetup } from '../../queries/billing/payment-methods.ts';
import { paymentProfiles } from './handlers.ts';

/** Applies the provider's view of a setup (a notification, or a resume when `notificationId` is null); a repeat appends nothing. */
export async function applyProviderSetup(ctx: CommandContext, setup: ProviderSetup, notificationId: string | null) {
  const { method } = setup;
  return paymentProfiles.run(ctx, setup.owner.customer_id, {
    type: 'ApplySetupUpdate',
    data: { setup_id: setup.owner.setup_id, notification_id: notificationId, status: setup.status, method, failure: setup.failure },
  }, { orgId: setup.owner.organization_id, reason: notificationId ? 'provider notification' : 'setup resumed' });
}

/** billing.payment-method-setups.insert */
export const paymentMethodSetupsInsert = operation({
  id: 'billing.payment-method-setups.insert',
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', return_url: 'https://files.example.com/return_url' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      type: 'card',
      status: 'requires_action',
      next_action: null,
      payment_method_id: '01937744-c2b2-7d93-8c9c-f42f2b9bc3a2',
      failure: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Starts an asynchronous reusable payment-method setup.',
  description: 'Answers status requires_action with a next action (a redirect to the provider\'s page). Org owners and admins for their own customer; billing staff for any.',
  request: PaymentMethodSetupStartRequest,
  response: PaymentMethodSetupItem,
  error: 'billing.PaymentMethodSetupError',
  errors: billingErrors.list('customer_not_found', 'customer_removed'),
  access: 'org_admin',
  write: true,
  readModels: [billingPaymentMethodsProjection],
  async handle(ctx, req) {
    const customer = await visibleCustomer(ctx, req.customer_id);
    if (customer.status === 'removed') throw ctx.errors.error('customer_removed', 'The customer was removed.');
    const provider = ctx.services.payments;
    const setupId = ctx.ids.next();
    const setup = await provider.createSetup({ owner: { setup_id: setupId, customer_id: customer.id, organization_id: customer.organization_id }, type: req.type, return_url: req.return_url });
    await paymentProfiles.run(ctx, customer.id, {
      type: 'StartSetup',
      data: { setup_id: setupId, customer_id: customer.id, organization_id: customer.organization_id, type: req.type, provider: provider.name, provider_ref: setup.ref, next_action: setup.next_action, return_url: req.return_url },
    }, { orgId: customer.organization_id });
    await ctx.readYourWrites();
    return setupItem(await visibleSetup(ctx, setupId));
  },
});

/** billing.payment-method-setups.get (resumes) */
export const paymentMethodSetupsGet = operation({
  id: 'billing.payment-method-setups.get',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
      type: 'card',
      status: 'requires_action',
      next_action: null,
      payment_method_id: '01937744-c2b2-7d93-8c9c-f42f2b9bc3a2',
      failure: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Resumes a setup and returns a provider-neutral next action.',
  description: 'Asks the provider for the setup\'s state when it is not final, so a missed notification is caught up; safe to repeat.',
  request: PaymentMethodSetupGetRequest,
  response: PaymentMethodSetupItem,
  error: 'billing.PaymentMethodSetupError',
  errors: billingErrors.list('setup_not_found'),
  access: 'org_user',
  readModels: [billingPaymentMethodsProjection],
  async handle(ctx, req) {
    const doc = await visibleSetup(ctx, req.id);
    if (doc.status !== 'requires_action' && doc.status !== 'processing') return setupItem(doc);
    const seen = await ctx.services.payments.getSetup(doc.provider_ref);
    if (!seen || seen.status === doc.status || seen.owner.setup_id !== doc.id) return setupItem(doc);
    await applyProviderSetup(ctx, seen, null);
    await ctx.readYourWrites();
    const now = await getSetupDoc(ctx.services.knex, doc.id);
    return setupItem(now ?? doc);
  },
});

/** billing.payment-methods.remove */
export const paymentMethodsRemove = operation({
  id: 'billing.payment-methods.remove',
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329', id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Removes a reusable method and turns off automatic collection.',
  description: 'Removing the last method, or the default one, turns automatic collection off (an event).',
  request: PaymentMethodRemoveRequest,
  response: Empty,
  error: 'billing.PaymentMethodRemoveError',
  errors: billingErrors.list('customer_not_found', 'payment_method_not_found'),
  access: 'org_admin',
  write: true,
  readModels: [billingPaymentMethodsProjection],
  async handle(ctx, req) {
    const customer = await visibleCustomer(ctx, req.customer_id);
    await paymentProfiles.run(ctx, customer.id, { type: 'RemoveMethod', data: { payment_method_id: req.id } }, { orgId: customer.organization_id });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write (and resuming) operations of payment methods. */
export const billingPaymentMethodCommands = [paymentMethodSetupsInsert, paymentMethodSetupsGet, paymentMethodsRemove];
