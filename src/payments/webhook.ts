// The provider notification endpoint: verifies the signature and freshness, then applies the setup or payment update (a repeat changes nothing).
import express from 'express';
import type { Services } from '../context.ts';
import { applyProviderSetup, providerContext } from '../commands/billing/payment-methods.ts';
import { applyProviderPayment, paymentOutcomeReadModels } from '../commands/billing/payment-attempts.ts';
import { NotificationRejected } from './port.ts';
import { SANDBOX_WEBHOOK_PATH, paymentProvider } from './sandbox.ts';
import { DomainError } from '../domain/errors.ts';
import { billingPaymentMethodsProjection } from '../projections/billing/payment-methods.ts';

/** Mounts POST /webhooks/payments/sandbox. */
export function mountPaymentWebhooks(app: express.Express, services: Services): void {
  app.post(SANDBOX_WEBHOOK_PATH, express.text({ type: () => true, limit: '64kb' }), async (req, res) => {
    const body = typeof req.body === 'string' ? req.body : '';
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
    try {
      const notification = await paymentProvider(services).handleNotification({ body, headers });
      // Answer once the read models show it: the provider's page returns the payer only after this answer.
      if (notification.kind === 'setup') {
        const { owner } = notification.setup;
        const applied = await applyProviderSetup(providerContext(services, owner.organization_id), notification.setup, notification.id);
        await services.runner.waitFor(applied.position, [billingPaymentMethodsProjection], services.config.projectionWaitMs);
      } else {
        const { owner } = notification.payment;
        const position = await applyProviderPayment(providerContext(services, owner.organization_id), notification.payment, notification.id);
        await services.runner.waitFor(position, paymentOutcomeReadModels, services.config.projectionWaitMs);
      }
      res.json({ received: true });
    } catch (err) {
      if (err instanceof NotificationRejected) return void res.status(400).json({ code: 'invalid_notification', message: err.message });
      if (err instanceof DomainError) return void res.status(err.status).json({ code: err.code, message: err.message });
      services.logger.error({ err }, 'payment notification failed');
      res.status(500).json({ code: 'internal_error', message: 'The notification could not be processed.' });
    }
  });
}
