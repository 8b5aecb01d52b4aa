// billing.products.insert and .update (extension operations): platform staff keep the catalogue.
import { operation } from '../../contract/operation.ts';
import { ProductCreateRequest, ProductDetailItem, ProductUpdateRequest } from '../../contract/schemas/billing-catalogue.ts';
import { productOrNotFound } from '../../queries/billing/products.ts';
import { products } from './handlers.ts';
import { billingProductsProjection } from '../../projections/billing/products.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

export const productsInsert = operation({
  id: 'billing.products.insert',
  examples: {
    request: { name: 'Acme Repairs Ltd' },
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
  summary: 'Adds a product to the catalogue (extension: prices need products).',
  request: ProductCreateRequest,
  response: ProductDetailItem,
  error: 'billing.ProductInsertError',
  errors: billingErrors.list('product_exists'),
  access: 'platform_staff',
  write: true,
  readModels: [billingProductsProjection],
  async handle(ctx, req) {
    const id = ctx.ids.next();
    await products.run(ctx, id, { type: 'CreateProduct', data: { product_id: id, name: req.name, description: req.description ?? null, active: req.active, metadata: req.metadata } }, { orgId: null });
    await ctx.readYourWrites();
    return productOrNotFound(ctx.services.knex, id);
  },
});

export const productsUpdate = operation({
  id: 'billing.products.update',
  examples: {
    request: { id: '019387ea-5dfc-7b8e-884d-848979496e70' },
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
  summary: 'Changes a product; `active: false` archives it (its prices stay, it takes no new ones). Omitted fields stay as they are.',
  request: ProductUpdateRequest,
  response: ProductDetailItem,
  error: 'billing.ProductUpdateError',
  errors: billingErrors.list('product_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [billingProductsProjection],
  async handle(ctx, req) {
    const { id, ...changes } = req;
    await products.run(ctx, id, { type: 'UpdateProduct', data: { changes } }, { orgId: null });
    await ctx.readYourWrites();
    return productOrNotFound(ctx.services.knex, id);
  },
});

/** Write operations of products. */
export const billingProductCommands = [productsInsert, productsUpdate];
