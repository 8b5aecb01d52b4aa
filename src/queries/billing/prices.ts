// billing.prices.get and .list, reading billing_prices (written by projections/billing/prices.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { PriceDetailItem, PriceListPage, PriceListRequest } from '../../contract/schemas/billing-catalogue.ts';
import { Uuid } from '../../contract/schemas/common.ts';
import type { PriceDoc } from '../../projections/billing/prices.ts';
import { documentPage } from '../pagination.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** A price by id; 404 when there is none. Every signed-in user may read prices. */
export async function priceOrNotFound(knex: Knex, id: string): Promise<PriceDoc> {
  const row = await knex('billing_prices').where({ id }).first('doc');
  if (!row) throw billingErrors.error('price_not_found', `No price ${id}.`);
  return row.doc as PriceDoc;
}

/** The documents of the given prices that exist, by id. */
export async function pricesByIds(knex: Knex, ids: string[]): Promise<Map<string, PriceDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('billing_prices').whereIn('id', ids).select('doc')) as { doc: PriceDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

export const pricesGet = operation({
  id: 'billing.prices.get',
  examples: {
    request: '01930208-3f45-79e0-8a61-2425c0c1a17e',
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
  summary: 'Returns one price.',
  request: Uuid,
  response: PriceDetailItem,
  error: 'billing.PriceGetError',
  errors: billingErrors.list('price_not_found'),
  access: 'org_user',
  handle: (ctx, id) => priceOrNotFound(ctx.services.knex, id),
});

export const pricesList = operation({
  id: 'billing.prices.list',
  examples: {
    request: { product: '019338a0-0715-7abe-87cc-01a5b6e9cc41', currency: 'GBP', active: false, type: 'one_time', lookup_key: 'platform_monthly' },
    response: {
      items: [
        {
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
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists prices, oldest first, by product, currency, active, type or lookup key, with keyset pagination.',
  request: PriceListRequest,
  response: PriceListPage,
  error: 'billing.PriceListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_prices').select('id', 'created_at', 'doc');
    if (req.product) q.where('product_id', req.product);
    if (req.currency) q.where('currency', req.currency);
    if (req.active !== undefined) q.where('active', req.active);
    if (req.type) q.where('type', req.type);
    if (req.lookup_key) q.where('lookup_key', req.lookup_key);
    const res = await documentPage<PriceDoc>(q, req);
    return {
      items: res.docs.map((d) => ({
        id: d.id, product_id: d.product_id, currency: d.currency, unit_amount: d.unit_amount, type: d.type, recurring: d.recurring,
        active: d.active, nickname: d.nickname, lookup_key: d.lookup_key, created_at: d.created_at,
      })),
      pagination: res.pagination,
    };
  },
});

/** Read operations of prices. */
export const billingPriceQueries = [pricesGet, pricesList];
