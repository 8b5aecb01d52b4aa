// Billing catalogue deciders: product, price and currency billing switch.
import { expect } from 'chai';
import { productDecider, type ProductEvent } from '../../src/domain/billing/product.ts';
import { priceDecider, type PriceCommand, type PriceEvent } from '../../src/domain/billing/price.ts';
import { currencyCodec, currencyDecider, isoCurrencies, type CurrencyEvent } from '../../src/domain/billing/currency.ts';
import { readEvent } from '../../src/domain/decider.ts';
import { exchangeRateDecider, type ExchangeRateEvent } from '../../src/domain/billing/exchange-rate.ts';
import { given } from './given.ts';

const PRODUCT = '0190c6a2-0000-7000-8000-0000000000e1';
const PRICE = '0190c6a2-0000-7000-8000-0000000000e2';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';

describe('product decider', () => {
  const created: ProductEvent = { type: 'ProductCreated', data: { product_id: PRODUCT, name: 'Pro', description: null, active: true, metadata: {}, created_at: T0 } };

  it('creates a product once', () => {
    given(productDecider, []).when({ type: 'CreateProduct', data: { product_id: PRODUCT, name: 'Pro', description: null, active: true, metadata: {}, now: T0 } }).then([created]);
    given(productDecider, [created]).when({ type: 'CreateProduct', data: { product_id: PRODUCT, name: 'Pro', description: null, active: true, metadata: {}, now: T1 } }).thenError('product_exists');
  });

  it('archives with active: false; only real changes are recorded', () => {
    const archived: ProductEvent = { type: 'ProductUpdated', data: { changes: { active: false }, updated_at: T1 } };
    const state = given(productDecider, [created, archived]).state;
    expect(state.status).to.equal('archived');
    given(productDecider, [created]).when({ type: 'UpdateProduct', data: { changes: { active: false, name: 'Pro' }, now: T1 } }).then([archived]);
    given(productDecider, [created, archived]).when({ type: 'UpdateProduct', data: { changes: { active: false }, now: T1 } }).thenNothing();
    given(productDecider, []).when({ type: 'UpdateProduct', data: { changes: { name: 'X' }, now: T1 } }).thenError('product_not_found');
  });
});

describe('price decider', () => {
  type CreateData = Extract<PriceCommand, { type: 'CreatePrice' }>['data'];
  const base: CreateData = {
    price_id: PRICE, product_id: PRODUCT, currency: 'GBP', unit_amount: 1500, type: 'one_time', recurring: null,
    active: true, nickname: null, lookup_key: 'pro', metadata: {}, product: 'active', currency_enabled: true, now: T0,
  };
  const create = (over: Partial<CreateData> = {}): PriceCommand => ({ type: 'CreatePrice', data: { ...base, ...over } });
  const created: PriceEvent = {
    type: 'PriceCreated',
    data: { price_id: PRICE, product_id: PRODUCT, currency: 'GBP', unit_amount: 1500, type: 'one_time', recurring: null, active: true, nickname: null, lookup_key: 'pro', metadata: {}, created_at: T0 },
  };

  it('creates a price for an active product in an enabled currency, once', () => {
    given(priceDecider, []).when(create()).then([created]);
    given(priceDecider, [created]).when(create()).thenError('price_exists');
  });

  it('refuses an unknown or archived product and a currency not enabled for billing', () => {
    given(priceDecider, []).when(create({ product: 'none' })).thenError('product_not_found');
    given(priceDecider, []).when(create({ product: 'archived' })).thenError('product_archived');
    given(priceDecider, []).when(create({ currency_enabled: false })).thenError('currency_not_enabled');
  });

  it('takes whole minor units: 0 only for a recurring price, never negative, fractional or huge', () => {
    given(priceDecider, []).when(create({ unit_amount: 0 })).thenError('invalid_amount');
    given(priceDecider, []).when(create({ unit_amount: 0, type: 'per_unit' })).thenError('invalid_amount');
    given(priceDecider, []).when(create({ unit_amount: -1, type: 'recurring', recurring: { interval: 'month' } })).thenError('invalid_amount');
    given(priceDecider, []).when(create({ unit_amount: 1.5 })).thenError('invalid_amount');
    given(priceDecider, []).when(create({ unit_amount: 1e12 + 1 })).thenError('invalid_amount');
    given(priceDecider, []).when(create({ unit_amount: 0, type: 'recurring', recurring: { interval: 'month' } }))
      .then((events) => expect(events[0]?.data).to.include({ unit_amount: 0, type: 'recurring' }));
  });

  it('a recurring price needs an interval and only it has one', () => {
    given(priceDecider, []).when(create({ type: 'recurring' })).thenError('invalid_price');
    given(priceDecider, []).when(create({ recurring: { interval: 'year' } })).thenError('invalid_price');
  });

  it('updates only active, nickname, lookup key and metadata, recording real changes only', () => {
    given(priceDecider, [created]).when({ type: 'UpdatePrice', data: { changes: { nickname: 'Pro monthly', lookup_key: 'pro' }, now: T1 } })
      .then([{ type: 'PriceUpdated', data: { changes: { nickname: 'Pro monthly' }, updated_at: T1 } }]);
    given(priceDecider, [created]).when({ type: 'UpdatePrice', data: { changes: { lookup_key: 'pro', metadata: {} }, now: T1 } }).thenNothing();
    given(priceDecider, []).when({ type: 'UpdatePrice', data: { changes: { active: false }, now: T1 } }).thenError('price_not_found');
  });

  it('remove archives once; a price on a draft invoice line is refused', () => {
    const archived: PriceEvent = { type: 'PriceArchived', data: { archived_at: T1 } };
    given(priceDecider, [created]).when({ type: 'RemovePrice', data: { draft_lines: 0, now: T1 } }).then([archived]);
    given(priceDecider, [created, archived]).when({ type: 'RemovePrice', data: { draft_lines: 0, now: T1 } }).thenNothing();
    given(priceDecider, [created]).when({ type: 'RemovePrice', data: { draft_lines: 2, now: T1 } }).thenError('price_in_use');
    given(priceDecider, []).when({ type: 'RemovePrice', data: { draft_lines: 0, now: T1 } }).thenError('price_not_found');
  });
});

describe('currency decider', () => {
  const on: CurrencyEvent = { type: 'CurrencyBillingChanged', data: { code: 'GBP', enabled_for_billing: true, changed_at: T0, minor_units: 2 } };
  const set = (code: string, enabled_for_billing: boolean, iso_minor_units: number, now = T1) => ({ type: 'SetCurrencyBilling' as const, data: { code, enabled_for_billing, iso_minor_units, now } });

  it('is off until enabled; the same setting twice records nothing; enabling records the ISO exponent', () => {
    given(currencyDecider, []).when(set('GBP', true, 2, T0)).then([on]);
    given(currencyDecider, [on]).when(set('GBP', true, 2)).thenNothing();
    given(currencyDecider, []).when(set('GBP', false, 2)).thenNothing();
    given(currencyDecider, [on]).when(set('GBP', false, 2))
      .then([{ type: 'CurrencyBillingChanged', data: { code: 'GBP', enabled_for_billing: false, changed_at: T1, minor_units: 2 } }]);
  });

  it('an exponent never changes under recorded amounts: a currency recorded with another one cannot be enabled, and can be disabled', () => {
    const iqdOn: CurrencyEvent = { type: 'CurrencyBillingChanged', data: { code: 'IQD', enabled_for_billing: true, changed_at: T0, minor_units: 0 } };
    const iqdOff: CurrencyEvent = { type: 'CurrencyBillingChanged', data: { code: 'IQD', enabled_for_billing: false, changed_at: T1, minor_units: 0 } };
    given(currencyDecider, [iqdOn]).when(set('IQD', true, 3)).thenError('currency_exponent_changed');
    given(currencyDecider, [iqdOn]).when(set('IQD', false, 3)).then([iqdOff]);
    given(currencyDecider, [iqdOn, iqdOff]).when(set('IQD', true, 3)).thenError('currency_exponent_changed');
  });

  it('reads a switch recorded before the service followed ISO 4217 with the exponent the runtime gave then', () => {
    const before = (code: string) => readEvent(currencyCodec, { type: 'CurrencyBillingChanged', data: { code, enabled_for_billing: true, changed_at: T0 } });
    expect(before('IQD').data.minor_units).to.equal(0);
    expect(before('HUF').data.minor_units).to.equal(0);
    expect(before('GBP').data.minor_units).to.equal(2);
    expect(before('KWD').data.minor_units).to.equal(3);
    expect(before('BGN').data.minor_units).to.equal(2);
  });

  it('the list has ISO 4217 codes with Intl names and ISO minor units', () => {
    const byCode = new Map(isoCurrencies().map((c) => [c.code, c]));
    expect(byCode.get('GBP')).to.deep.equal({ code: 'GBP', name: 'British Pound', minor_units: 2 });
    expect(byCode.get('JPY')?.minor_units).to.equal(0);
    expect(byCode.get('KWD')?.minor_units).to.equal(3);
    expect(byCode.get('IQD')?.minor_units).to.equal(3);
    expect(byCode.get('HUF')?.minor_units).to.equal(2);
    expect(byCode.has('XAU')).to.equal(false);
    expect(byCode.has('BGN')).to.equal(false);
    expect(byCode.size).to.be.greaterThan(150);
  });
});

describe('exchange-rate decider', () => {
  const record = (rate: string, as_of = T0, source = 'ECB') => ({ type: 'RecordExchangeRate' as const, data: { base: 'EUR', target: 'GBP', rate, as_of, source, now: T1 } });
  const recorded = (rate: string, as_of = T0, source = 'ECB'): ExchangeRateEvent => ({ type: 'ExchangeRateRecorded', data: { base: 'EUR', target: 'GBP', rate, as_of, source, recorded_at: T1 } });

  it('records decimal strings exactly, trailing fractional zeros dropped', () => {
    given(exchangeRateDecider, []).when(record('1.23456789')).then([recorded('1.23456789')]);
    given(exchangeRateDecider, []).when(record('123456789012.123456789012345678')).then([recorded('123456789012.123456789012345678')]);
    given(exchangeRateDecider, []).when(record('1.50')).then([recorded('1.5')]);
    given(exchangeRateDecider, []).when(record('2.000')).then([recorded('2')]);
  });

  it('the same rate, source and as_of twice is nothing; another rate for that as_of corrects it', () => {
    given(exchangeRateDecider, [recorded('1.5')]).when(record('1.50')).thenNothing();
    given(exchangeRateDecider, [recorded('1.5')]).when(record('1.6')).then([recorded('1.6')]);
    given(exchangeRateDecider, [recorded('1.5')]).when(record('1.5', T1)).then([recorded('1.5', T1)]);
  });

  it('refuses zero, negatives, exponents, numbers too long and a pair of one currency', () => {
    for (const bad of ['0', '0.000', '-1', '1e3', '1.', '.5', '01.5', '1.1234567890123456789', '1234567890123']) given(exchangeRateDecider, []).when(record(bad)).thenError('invalid_rate');
    given(exchangeRateDecider, []).when({ type: 'RecordExchangeRate', data: { base: 'GBP', target: 'GBP', rate: '1', as_of: T0, source: 'x', now: T1 } }).thenError('invalid_rate');
  });
});
