// The provider notification endpoint: an HTTP adapter over invoke. It verifies the notification (signature, freshness, body:
// HTTP's job, through the provider port), then invokes billing.payment-notifications.apply as the system (job `payment-provider`)
// with the notification id as correlation id, and presents the answer. Answers: 200 `{received, status, matched}` (`status` is the
// provider record's, the one applied; `matched` says whether the notification said the same); 400 `invalid_notification`
// (signature, freshness, unreadable body, with `issues`) or `notification_mismatch` (the provider has no such object, or it belongs
// to someone else); 404/409 from the aggregates; 503 when the read models lag. Every answer but 200 has the service's error body
// with `request_id`.
import express from 'express';
import { type Services, systemAuth } from '../context.ts';
import { toErrorResponse } from './errors.ts';
import { NotificationRejected, type ProviderNotification } from '../payments/port.ts';
import { billingErrors } from '../domain/billing/errors.ts';
import { ops } from '../areas/operations.ts';

/** The `type` of the webhook's error bodies. */
export const PAYMENT_NOTIFICATION_ERROR = 'billing.PaymentNotificationError';

/** Mounts POST /webhooks/payments/<provider name> (the sandbox's: /webhooks/payments/sandbox). */
export function mountPaymentWebhooks(app: express.Express, services: Services): void {
  app.post(`/webhooks/payments/${services.payments.name}`, express.text({ type: () => true, limit: '64kb' }), async (req, res) => {
    const requestId = res.locals.requestId as string;
    const body = typeof req.body === 'string' ? req.body : '';
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
    try {
      const notification = await services.payments.handleNotification({ body, headers });
      const input = applyInput(notification);
      const { body: applied } = await services.invoke(ops['billing.payment-notifications.apply'], input, {
        auth: systemAuth('payment-provider', input.owner.organization_id), requestId, correlationId: notification.id,
      });
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

/** What the notification claims: the object it names, its owner and status (the operation applies the provider's record of it). */
function applyInput(n: ProviderNotification) {
  return n.kind === 'setup'
    ? { kind: 'setup' as const, notification_id: n.id, ref: n.setup.ref, status: n.setup.status, owner: { setup_id: n.setup.owner.setup_id, customer_id: n.setup.owner.customer_id, organization_id: n.setup.owner.organization_id } }
    : { kind: 'payment' as const, notification_id: n.id, ref: n.payment.ref, status: n.payment.status, owner: { attempt_id: n.payment.owner.attempt_id, invoice_id: n.payment.owner.invoice_id, customer_id: n.payment.owner.customer_id, organization_id: n.payment.owner.organization_id } };
}
