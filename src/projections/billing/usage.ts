// billing_usage: one row per recorded order with its current facts (a replacement's) and whether it is voided, indexed for
// rating by (subscription, occurred_at, order_id); read by queries/billing/usage.ts.
import { type UsageEvent, type UsageOrder, usageCodec } from '../../domain/billing/usage.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';
import { streamKey } from '../recorded.ts';

/** The stored order: its current facts, when they were first recorded, and its corrections. */
export interface UsageDoc extends UsageOrder {
  id: string;
  recorded_at: string;
  /** 0 as recorded; n after the n-th replacement. Absent in documents built before corrections existed (= 0). */
  revision?: number;
  /** The last correction (void or replacement): what, why and when; absent or null when never corrected. */
  correction?: { kind: 'voided' | 'replaced'; reason: string; at: string } | null;
}

/** Builds billing_usage from usage events. */
export const billingUsageProjection = documentProjection({
  name: 'billing.usage',
  version: 2,
  tables: [
    documentTable<UsageDoc, UsageEvent>({
      table: 'billing_usage',
      events: usageCodec,
      columns: (d) => ({
        order_id: d.order_id, subscription_id: d.subscription_id, seller_id: d.seller, buyer_id: d.buyer, amount: d.amount, currency: d.currency, occurred_at: d.occurred_at,
        voided: d.correction?.kind === 'voided', revision: d.revision ?? 0,
      }),
      handlers: {
        // The first recording is the fact; the decider never appends a second one for the same order.
        UsageRecorded: (doc, d, e) => doc ?? { id: streamKey(e), ...d, revision: 0, correction: null },
        UsageVoided: (doc, d) => doc && { ...doc, correction: { kind: 'voided', reason: d.reason, at: d.voided_at } },
        UsageReplaced: (doc, d) => {
          if (!doc) return doc;
          const { revision, reason, replaced_at, ...facts } = d;
          return { ...doc, ...facts, order_id: doc.order_id, revision, correction: { kind: 'replaced', reason, at: replaced_at } };
        },
      },
    }),
  ],
});
