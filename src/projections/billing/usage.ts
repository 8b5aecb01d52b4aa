// billing_usage: one row per recorded order, indexed for rating by (subscription, occurred_at, order_id); read by queries/billing/usage.ts.
import { type UsageEvent, type UsageOrder, usageCodec } from '../../domain/billing/usage.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { streamKey } from '../recorded.ts';

/** The stored order: its facts and when they were recorded. */
export interface UsageDoc extends UsageOrder {
  id: string;
  recorded_at: string;
}

/** Builds billing_usage from usage events. */
export const billingUsageProjection = documentProjection({
  name: 'billing.usage',
  version: 1,
  tables: [
    documentTable<UsageDoc, UsageEvent>({
      table: 'billing_usage',
      events: usageCodec,
      columns: (d) => ({
        order_id: d.order_id, subscription_id: d.subscription_id, seller_id: d.seller, buyer_id: d.buyer, amount: d.amount, currency: d.currency, occurred_at: d.occurred_at,
      }),
      handlers: {
        // The first recording is the fact; the decider never appends a second one for the same order.
        UsageRecorded: (doc, d, e) => doc ?? { id: streamKey(e), ...d },
      },
    }),
  ],
});
