// Billing catalogue read models (products, prices, currency switches), given their events.
import { backends } from '../../support/db.ts';
import type { ProductEvent } from '../../../src/domain/billing/product.ts';
import type { PriceEvent } from '../../../src/domain/billing/price.ts';
import type { CurrencyEvent } from '../../../src/domain/billing/currency.ts';
import { billingProductsProjection } from '../../../src/projections/billing/products.ts';
import { billingPricesProjection } from '../../../src/projections/billing/prices.ts';
import { billingCurrenciesProjection } from '../../../src/projections/billing/currencies.ts';
import type { ExchangeRateEvent } from '../../../src/domain/billing/exchange-rate.ts';
import { billingExchangeRatesProjection } from '../../../src/projections/billing/exchange-rates.ts';
import { on, projectionSpec } from '../spec.ts';

const PRODUCT = '0190c6a2-0000-7000-8000-000000000e01';
const PRODUCT2 = '0190c6a2-0000-7000-8000-000000000e02';
const PRICE = '0190c6a2-0000-7000-8000-000000000e11';
const PRICE2 = '0190c6a2-0000-7000-8000-000000000e12';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';
const T2 = '2026-01-17T09:00:00.000Z';

for (const backend of backends()) {
  describe(`billing catalogue projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.products: an archived product keeps its fields; changes apply on top', async () => {
      await spec.given(billingProductsProjection, [
        ...on<ProductEvent>(`product-${PRODUCT}`, [
          { type: 'ProductCreated', data: { product_id: PRODUCT, name: 'Pro', description: 'All features', active: true, metadata: { a: '1' }, created_at: T0 } },
          { type: 'ProductUpdated', data: { changes: { active: false, description: null }, updated_at: T1 } },
          { type: 'ProductEntitlementAdded', data: { entitlement_key: 'parts.search', added_at: T1 } },
          { type: 'ProductEntitlementAdded', data: { entitlement_key: 'parts.order', added_at: T1 } },
          { type: 'ProductEntitlementRemoved', data: { entitlement_key: 'parts.search', removed_at: T2 } },
        ]),
        ...on<ProductEvent>(`product-${PRODUCT2}`, [{ type: 'ProductCreated', data: { product_id: PRODUCT2, name: 'Basic', description: null, active: true, metadata: {}, created_at: T1 } }]),
      ]).then({
        billing_products: [
          { id: PRODUCT, name: 'Pro', description: null, active: false, metadata: { a: '1' }, entitlements: ['parts.order'], created_at: T0, updated_at: T2 },
          { id: PRODUCT2, name: 'Basic', description: null, active: true, metadata: {}, entitlements: [], created_at: T1, updated_at: T1 },
        ],
      });
    });

    it('billing.prices: updated then archived, with the indexed columns the list filters on', async () => {
      const created = (price_id: string, over: Partial<Extract<PriceEvent, { type: 'PriceCreated' }>['data']> = {}): PriceEvent => ({
        type: 'PriceCreated',
        data: { price_id, product_id: PRODUCT, currency: 'GBP', unit_amount: 1500, type: 'one_time', recurring: null, active: true, nickname: null, lookup_key: null, metadata: {}, created_at: T0, ...over },
      });
      await spec.given(billingPricesProjection, [
        ...on<PriceEvent>(`price-${PRICE}`, [
          created(PRICE),
          { type: 'PriceUpdated', data: { changes: { nickname: 'Launch', lookup_key: 'pro' }, updated_at: T1 } },
          { type: 'PriceArchived', data: { archived_at: T2 } },
        ]),
        ...on<PriceEvent>(`price-${PRICE2}`, [created(PRICE2, { currency: 'JPY', unit_amount: 0, type: 'recurring', recurring: { interval: 'year' } })]),
      ]).then({
        billing_prices: [
          {
            product_id: PRODUCT, currency: 'GBP', active: false, type: 'one_time', lookup_key: 'pro',
            doc: { id: PRICE, product_id: PRODUCT, currency: 'GBP', unit_amount: 1500, type: 'one_time', recurring: null, active: false, nickname: 'Launch', lookup_key: 'pro', metadata: {}, created_at: T0, updated_at: T2 },
          },
          {
            product_id: PRODUCT, currency: 'JPY', active: true, type: 'recurring', lookup_key: null,
            doc: { id: PRICE2, product_id: PRODUCT, currency: 'JPY', unit_amount: 0, type: 'recurring', recurring: { interval: 'year' }, active: true, nickname: null, lookup_key: null, metadata: {}, created_at: T0, updated_at: T0 },
          },
        ],
      }, { columns: ['product_id', 'currency', 'active', 'type', 'lookup_key'] });
    });

    it('billing.exchange-rates: one row per pair and as_of; a correction replaces its row; rates stay strings', async () => {
      const rate = (base: string, value: string, as_of: string, recorded_at = T1): ExchangeRateEvent => ({ type: 'ExchangeRateRecorded', data: { base, target: 'GBP', rate: value, as_of, source: 'ECB', recorded_at } });
      await spec.given(billingExchangeRatesProjection, [
        ...on<ExchangeRateEvent>('exchangerate-EUR_GBP', [rate('EUR', '0.85', T0), rate('EUR', '0.86', T1), rate('EUR', '0.851234567890123456', T0, T2)]),
        ...on<ExchangeRateEvent>('exchangerate-USD_GBP', [rate('USD', '0.79', T0)]),
      ]).then({
        billing_exchange_rates: [
          { base: 'EUR', target: 'GBP', as_of: new Date(T0), doc: { base: 'EUR', target: 'GBP', rate: '0.851234567890123456', as_of: T0, source: 'ECB', recorded_at: T2 } },
          { base: 'EUR', target: 'GBP', as_of: new Date(T1), doc: { base: 'EUR', target: 'GBP', rate: '0.86', as_of: T1, source: 'ECB', recorded_at: T1 } },
          { base: 'USD', target: 'GBP', as_of: new Date(T0), doc: { base: 'USD', target: 'GBP', rate: '0.79', as_of: T0, source: 'ECB', recorded_at: T1 } },
        ],
      }, { columns: ['base', 'target', 'as_of'] });
    });

    it('billing.currencies: the last switch of each currency wins', async () => {
      await spec.given(billingCurrenciesProjection, [
        ...on<CurrencyEvent>('currency-EUR', [
          { type: 'CurrencyBillingChanged', data: { code: 'EUR', enabled_for_billing: true, changed_at: T0, minor_units: 2 } },
          { type: 'CurrencyBillingChanged', data: { code: 'EUR', enabled_for_billing: false, changed_at: T1, minor_units: 2 } },
        ]),
        ...on<CurrencyEvent>('currency-GBP', [{ type: 'CurrencyBillingChanged', data: { code: 'GBP', enabled_for_billing: true, changed_at: T0, minor_units: 2 } }]),
      ]).then({
        billing_currency_settings: [
          { code: 'EUR', enabled_for_billing: false, changed_at: T1, minor_units: 2 },
          { code: 'GBP', enabled_for_billing: true, changed_at: T0, minor_units: 2 },
        ],
      });
    });
  });
}
