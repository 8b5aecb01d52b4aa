// billing.prices.insert, .update, .remove: platform staff price the catalogue's products.
import { operation } from '../../contract/operation.ts';
import { PriceCreateRequest, PriceDetailItem, PriceUpdateRequest } from '../../contract/schemas/billing-catalogue.ts';
import { Empty, Uuid } from '../../contract/schemas/common.ts';
import { priceOrNotFound } from '../../queries/billing/prices.ts';
import { currencySettings, prices, products } from './handlers.ts';
import { billingPricesProjection } from '../../projections/billing/prices.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { billable } from '../../domain/billing/currency.ts';

/**
 * Draft invoice lines that name a price. Invoice lines are manual today (no price id), so none can:
 * the rule lives in the price decider for when priced lines arrive (docs/decisions.md).
 */
const DRAFT_LINES_NAMING_A_PRICE = 0;

export const pricesInsert = operation({
  id: 'billing.prices.insert',
  examples: {
    request: { product_id: '0193bebc-9158-7480-8949-565b4dc7a82d', currency: 'GBP', unit_amount: 12000, type: 'one_time' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      product_id: '0193bebc-9158-7480-8949-565b4dc7a82d',
      currency: 'GBP',
      unit_amount: 12000,
      type: 'one_time',
      recurring: null,
      active: false,
      nickname: 'Visa ending 4242',
      lookup_key: 'platform_monthly',
      created_at: '2026-01-15T09:30:00.000Z',
      metadata: {},
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'New price for an existing product.',
  description: 'The product must exist and be active; the currency must be enabled for billing; `unit_amount` is whole minor units, at least 1 (0 only for recurring prices).',
  request: PriceCreateRequest,
  response: PriceDetailItem,
  error: 'billing.PriceInsertError',
  errors: billingErrors.list('product_not_found', 'product_archived', 'currency_not_enabled', 'invalid_amount', 'invalid_price', 'price_exists'),
  access: 'platform_staff',
  write: true,
  readModels: [billingPricesProjection],
  async handle(ctx, req) {
    const id = ctx.ids.next();
    const product = await products.load(ctx, req.product_id);
    const currency = await currencySettings.load(ctx, req.currency);
    await prices.run(ctx, id, {
      type: 'CreatePrice',
      data: {
        price_id: id, product_id: req.product_id, currency: req.currency, unit_amount: req.unit_amount, type: req.type, recurring: req.recurring ?? null,
        active: req.active, nickname: req.nickname ?? null, lookup_key: req.lookup_key ?? null, metadata: req.metadata,
        product: product.status, currency_enabled: billable(currency, req.currency),
      },
    }, { orgId: null });
    await ctx.readYourWrites();
    return priceOrNotFound(ctx.services.knex, id);
  },
});

export const pricesUpdate = operation({
  id: 'billing.prices.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      product_id: '0193bebc-9158-7480-8949-565b4dc7a82d',
      currency: 'GBP',
      unit_amount: 12000,
      type: 'one_time',
      recurring: null,
      active: false,
      nickname: 'Visa ending 4242',
      lookup_key: 'platform_monthly',
      created_at: '2026-01-15T09:30:00.000Z',
      metadata: {},
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Changes whether a price is active, its nickname, lookup key or metadata; the amount, currency and type never change.',
  request: PriceUpdateRequest,
  response: PriceDetailItem,
  error: 'billing.PriceUpdateError',
  errors: billingErrors.list('price_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [billingPricesProjection],
  async handle(ctx, req) {
    const { id, ...changes } = req;
    await prices.run(ctx, id, { type: 'UpdatePrice', data: { changes } }, { orgId: null });
    await ctx.readYourWrites();
    return priceOrNotFound(ctx.services.knex, id);
  },
});

export const pricesRemove = operation({
  id: 'billing.prices.remove',
  examples: {
    request: '01930208-3f45-79e0-8a61-2425c0c1a17e',
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Archives a price (it stays readable, inactive); refused while a draft invoice line uses it. Archiving twice is a no-op.',
  request: Uuid,
  response: Empty,
  error: 'billing.PriceRemoveError',
  errors: billingErrors.list('price_not_found', 'price_in_use'),
  access: 'platform_staff',
  write: true,
  readModels: [billingPricesProjection],
  async handle(ctx, id) {
    await prices.run(ctx, id, { type: 'RemovePrice', data: { draft_lines: DRAFT_LINES_NAMING_A_PRICE } }, { orgId: null });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write operations of prices. */
export const billingPriceCommands = [pricesInsert, pricesUpdate, pricesRemove];
