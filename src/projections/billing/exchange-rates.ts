// billing_exchange_rates: every recorded rate, one row per (base, target, as_of), read by queries/billing/exchange-rates.ts.
import { type ExchangeRateEvent, exchangeRateCodec } from '../../domain/billing/exchange-rate.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** One rate: exactly the billing.CurrencyExchangeRateListItem body plus when it was recorded. */
export interface ExchangeRateDoc {
  base: string;
  target: string;
  rate: string;
  as_of: string;
  source: string;
  recorded_at: string;
}

/** Builds billing_exchange_rates from exchange-rate events; a correction for the same `as_of` replaces the row. */
export const billingExchangeRatesProjection = documentProjection({
  name: 'billing.exchange-rates',
  version: 1,
  tables: [
    documentTable<ExchangeRateDoc, ExchangeRateEvent>({
      table: 'billing_exchange_rates',
      events: exchangeRateCodec,
      keyOf: (_e, read) => `${read.data.base}:${read.data.target}:${read.data.as_of}`,
      columns: (d) => ({ base: d.base, target: d.target, as_of: d.as_of }),
      handlers: {
        ExchangeRateRecorded: (_doc, d) => ({ ...d }),
      },
    }),
  ],
});
