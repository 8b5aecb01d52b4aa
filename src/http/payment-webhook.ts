// The provider notification endpoint. A verified notification is a hint, not the truth: the provider's own record of the setup
// or payment it names is retrieved and applied (Stripe's advice: retrieve the object an event names before acting on it), so a
// signed but wrong notification changes nothing. Answers: 200 `{received, status, matched}` (`status` is the record's, the one
// applied; `matched` says whether the notification said the same); 400 `invalid_notification` (signature, freshness, unreadable
// body, with `issues`) or `notification_mismatch` (the provider has no such object, or it belongs to someone else); 404/409 from
// the aggregates; 503 when the read models lag. Every answer but 200 has the service's error body with `request_id`.
import express from 'express';
import type { Services } from '../context.ts';
import { toErrorResponse } from './errors.ts';
import { applyProviderSetup, providerContext } from '../commands/billing/payment-methods.ts';
import { applyProviderPayment, paymentOutcomeReadModels } from '../commands/billing/payment-attempts.ts';
import { NotificationRejected, type PaymentOwner, type PaymentProvider, type ProviderNotification, type SetupOwner } from '../payments/port.ts';
import { billingPaymentMethodsProjection } from '../projections/billing/payment-methods.ts';
import { billingErrors } from '../domain/billing/errors.ts';
import type { DomainError } from '../domain/errors.ts';

/** The `type` of the webhook's error bodies. */
export const PAYMENT_NOTIFICATION_ERROR = 'billing.PaymentNotificationError';

/** What applying a notification did: the provider's status (applied) and whether the notification said the same. */
interface Applied {
  status: string;
  claimed: string;
}

/** Mounts POST /webhooks/payments/<provider name> (the sandbox's: /webhooks/payments/sandbox). */
export function mountPaymentWebhooks(app: express.Express, services: Services): void {
  app.post(`/webhooks/payments/${services.payments.name}`, express.text({ type: () => true, limit: '64kb' }), async (req, res) => {
    const requestId = res.locals.requestId as string;
    const body = typeof req.body === 'string' ? req.body : '';
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
    try {
      const provider = services.payments;
      const notification = await provider.handleNotification({ body, headers });
      const applied = notification.kind === 'setup' ? await applySetup(services, provider, notification) : await applyPayment(services, provider, notification);
      const matched = applied.status === applied.claimed;
      // A genuine notification can only be older than the record; one claiming what the record never said was forged or mangled.
      if (!matched) services.logger.warn({ request_id: requestId, notification_id: notification.id, claimed: applied.claimed, provider_status: applied.status }, 'payment notification disagrees with the provider\'s record: the record was applied');
      res.json({ received: true, status: applied.status, matched });
    } catch (err) {
      const mapped = err instanceof NotificationRejected ? billingErrors.error('invalid_notification', `The notification was refused: ${err.message}.`, err.issues.length ? { issues: err.issues } : {}) : err;
      const out = toErrorResponse(mapped, PAYMENT_NOTIFICATION_ERROR, requestId);
      if (out.internal) services.logger.error({ err, request_id: requestId }, 'payment notification failed');
      res.status(out.status).set(out.headers).json(out.body);
    }
  });
}

// Retrieves the setup the notification names and applies the provider's record; answers once the read model shows it.
async function applySetup(services: Services, provider: PaymentProvider, n: Extract<ProviderNotification, { kind: 'setup' }>): Promise<Applied> {
  const record = await provider.getSetup(n.setup.ref);
  if (!record || !sameOwner(record.owner, n.setup.owner, ['setup_id', 'customer_id', 'organization_id'])) throw mismatch('setup', n.setup.ref);
  const ctx = providerContext(services, record.owner.organization_id, [billingPaymentMethodsProjection]);
  await applyProviderSetup(ctx, record, n.id);
  await ctx.readYourWrites();
  return { status: record.status, claimed: n.setup.status };
}

// Retrieves the payment the notification names and applies the provider's record; answers once the read models show it
// (the provider's page returns the payer only after this answer).
async function applyPayment(services: Services, provider: PaymentProvider, n: Extract<ProviderNotification, { kind: 'payment' }>): Promise<Applied> {
  const record = await provider.getPayment(n.payment.ref);
  if (!record || !sameOwner(record.owner, n.payment.owner, ['attempt_id', 'invoice_id', 'customer_id', 'organization_id'])) throw mismatch('payment', n.payment.ref);
  const ctx = providerContext(services, record.owner.organization_id, paymentOutcomeReadModels);
  await applyProviderPayment(ctx, record, n.id);
  await ctx.readYourWrites();
  return { status: record.status, claimed: n.payment.status };
}

function sameOwner<O extends SetupOwner | PaymentOwner>(record: O, claimed: O, keys: (keyof O)[]): boolean {
  return keys.every((k) => record[k] === claimed[k]);
}

function mismatch(kind: 'setup' | 'payment', ref: string): DomainError {
  return billingErrors.error('notification_mismatch', `The notification does not match the provider's record: the provider has no ${kind} ${ref} for this owner.`);
}
