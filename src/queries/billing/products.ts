// billing.products.get and .list, reading billing_products (written by projections/billing/products.ts).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { ProductDetailItem, ProductListPage, ProductListRequest } from '../../contract/schemas/billing-catalogue.ts';
import { Uuid } from '../../contract/schemas/common.ts';
import type { ProductDoc } from '../../projections/billing/products.ts';
import { documentPage } from '../pagination.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Loads a product document, or null. */
export async function getProductDoc(knex: Knex, id: string): Promise<ProductDoc | null> {
  const row = await knex('billing_products').where({ id }).first('doc');
  return row ? (row.doc as ProductDoc) : null;
}

/** A product by id; 404 when there is none. Every signed-in user may read the catalogue. */
export async function productOrNotFound(knex: Knex, id: string): Promise<ProductDoc> {
  const doc = await getProductDoc(knex, id);
  if (!doc) throw billingErrors.error('product_not_found', `No product ${id}.`);
  return doc;
}

/** The documents of the given products that exist, by id. */
export async function productsByIds(knex: Knex, ids: string[]): Promise<Map<string, ProductDoc>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('billing_products').whereIn('id', ids).select('doc')) as { doc: ProductDoc }[];
  return new Map(rows.map((r) => [r.doc.id, r.doc]));
}

export const productsGet = operation({
  id: 'billing.products.get',
  examples: {
    request: '01930208-3f45-79e0-8a61-2425c0c1a17e',
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      name: 'Acme Repairs Ltd',
      description: 'Monthly platform fee',
      active: false,
      metadata: {},
      entitlements: ['entitlement'],
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Returns one product of the catalogue.',
  request: Uuid,
  response: ProductDetailItem,
  error: 'billing.ProductGetError',
  errors: billingErrors.list('product_not_found'),
  access: 'org_user',
  handle: (ctx, id) => productOrNotFound(ctx.services.knex, id),
});

export const productsList = operation({
  id: 'billing.products.list',
  examples: {
    request: { active: false },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          name: 'Acme Repairs Ltd',
          description: 'Monthly platform fee',
          active: false,
          metadata: {},
          entitlements: ['entitlement'],
          created_at: '2026-01-15T09:30:00.000Z',
          updated_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists the products of the catalogue, oldest first, with keyset pagination.',
  request: ProductListRequest,
  response: ProductListPage,
  error: 'billing.ProductListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'org_user',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_products').select('id', 'created_at', 'doc');
    if (req.active !== undefined) q.where('active', req.active);
    const res = await documentPage<ProductDoc>(q, req);
    return { items: res.docs, pagination: res.pagination };
  },
});

/** Read operations of products. */
export const billingProductQueries = [productsGet, productsList];
