// billing_prices: one document per price, read by queries/billing/prices.ts.
import { type PriceChanges, type PriceEvent, type PriceTerms, priceCodec } from '../../domain/billing/price.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored price: exactly the billing.PriceDetailItem body. */
export interface PriceDoc extends PriceTerms, PriceChanges {
  id: string;
  created_at: string;
  updated_at: string;
}

/** Builds billing_prices from price events. */
export const billingPricesProjection = documentProjection({
  name: 'billing.prices',
  version: 1,
  tables: [
    documentTable<PriceDoc, PriceEvent>({
      table: 'billing_prices',
      events: priceCodec,
      columns: (d) => ({ product_id: d.product_id, currency: d.currency, active: d.active, type: d.type, lookup_key: d.lookup_key, created_at: d.created_at }),
      handlers: {
        PriceCreated: (_doc, d) => {
          const { price_id, created_at, ...fields } = d;
          return { id: price_id, ...fields, created_at, updated_at: created_at };
        },
        PriceUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        PriceArchived: (doc, d) => doc && { ...doc, active: false, updated_at: d.archived_at },
      },
    }),
  ],
});
