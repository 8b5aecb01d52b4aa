// billing_subscriptions: one document per subscription, read by queries/billing/subscriptions.ts.
import { type SubscriptionEvent, type SubscriptionFields, subscriptionCodec } from '../../domain/billing/subscription.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored subscription: exactly the billing.Subscription body. */
export interface SubscriptionDoc extends SubscriptionFields {
  id: string;
  organization_id: string;
  created_at: string;
  updated_at: string;
}

/** Builds billing_subscriptions from subscription events. */
export const billingSubscriptionsProjection = documentProjection({
  name: 'billing.subscriptions',
  version: 1,
  tables: [
    documentTable<SubscriptionDoc, SubscriptionEvent>({
      table: 'billing_subscriptions',
      events: subscriptionCodec,
      columns: (d) => ({ organization_id: d.organization_id, status: d.status, created_at: d.created_at }),
      handlers: {
        SubscriptionCreated: (_doc, d) => {
          const { subscription_id, created_at, ...rest } = d;
          return { id: subscription_id, ...rest, created_at, updated_at: created_at };
        },
        SubscriptionUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
      },
    }),
  ],
});
