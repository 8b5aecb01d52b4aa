// billing_currency_settings: currencies staff enabled or disabled for billing and their recorded exponents, read by queries/billing/currencies.ts.
import { type CurrencyEvent, currencyCodec } from '../../domain/billing/currency.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** One currency's billing switch (a currency never switched has no row and is off). */
export interface CurrencySettingDoc {
  code: string;
  enabled_for_billing: boolean;
  changed_at: string;
  /** The exponent amounts in the currency are recorded with (fixed when billing in it was first enabled). */
  minor_units: number;
}

/** Builds billing_currency_settings from currency events. */
export const billingCurrenciesProjection = documentProjection({
  name: 'billing.currencies',
  version: 2,
  tables: [
    documentTable<CurrencySettingDoc, CurrencyEvent>({
      table: 'billing_currency_settings',
      events: currencyCodec,
      columns: (d) => ({ enabled_for_billing: d.enabled_for_billing }),
      handlers: {
        CurrencyBillingChanged: (_doc, d) => ({ code: d.code, enabled_for_billing: d.enabled_for_billing, changed_at: d.changed_at, minor_units: d.minor_units }),
      },
    }),
  ],
});
