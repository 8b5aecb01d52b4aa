// billing.payment-notifications.apply (internal): the payment provider's verified notification, applied as the provider's own
// record says. The webhook (src/http/payment-webhook.ts) verifies the signature, which is HTTP's job, then invokes this as the
// system (job `payment-provider`) with the notification id as correlation id. A notification is a hint, not the truth: the record
// of the setup or payment it names is retrieved and applied (Stripe's advice: retrieve the object an event names before acting on
// it), so a signed but wrong notification changes nothing.
import { operation } from '../../contract/operation.ts';
import { PaymentNotificationApplied, PaymentNotificationApplyRequest } from '../../contract/schemas/billing-system.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import type { PaymentOwner, SetupOwner } from '../../payments/port.ts';
import { billingPaymentMethodsProjection } from '../../projections/billing/payment-methods.ts';
import { applyProviderPayment, paymentOutcomeReadModels } from './payment-attempts.ts';
import { applyProviderSetup } from './payment-methods.ts';

/** billing.payment-notifications.apply */
export const paymentNotificationsApply = operation({
  id: 'billing.payment-notifications.apply',
  surface: 'internal',
  tags: ['Billing'],
  summary: "Applies the provider's record of the setup or payment a verified notification names.",
  description: 'Internal: invoked by the payment webhook once the signature is verified. Answers once the read models show what was applied (the provider\'s page returns the payer only after that).',
  request: PaymentNotificationApplyRequest,
  response: PaymentNotificationApplied,
  error: 'billing.PaymentNotificationError',
  errors: billingErrors.list('notification_mismatch', 'invalid_notification', 'payment_attempt_not_found'),
  access: 'system',
  write: true,
  readModels: [billingPaymentMethodsProjection, ...paymentOutcomeReadModels],
  async handle(ctx, n) {
    const provider = ctx.services.payments;
    const mismatch = () => ctx.errors.error('notification_mismatch', `The notification does not match the provider's record: the provider has no ${n.kind} ${n.ref} for this owner.`);
    if (n.kind === 'setup') {
      const record = await provider.getSetup(n.ref);
      if (!record || !sameOwner<SetupOwner>(record.owner, n.owner, ['setup_id', 'customer_id', 'organization_id'])) throw mismatch();
      await applyProviderSetup(ctx, record, n.notification_id);
      await ctx.readYourWrites();
      return { status: record.status, claimed: n.status };
    }
    const record = await provider.getPayment(n.ref);
    if (!record || !sameOwner<PaymentOwner>(record.owner, n.owner, ['attempt_id', 'invoice_id', 'customer_id', 'organization_id'])) throw mismatch();
    await applyProviderPayment(ctx, record, n.notification_id);
    await ctx.readYourWrites();
    return { status: record.status, claimed: n.status };
  },
});

function sameOwner<O extends SetupOwner | PaymentOwner>(record: O, claimed: O, keys: (keyof O)[]): boolean {
  return keys.every((k) => record[k] === claimed[k]);
}

/** Billing's internal operations of provider notifications. */
export const billingPaymentNotificationCommands = [paymentNotificationsApply];
