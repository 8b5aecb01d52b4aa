// billing.entitlements.insert (upsert by key) and billing.products.entitlements.insert/.remove: platform staff only.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { Entitlement, EntitlementsInsertRequest, ProductEntitlementsAddRequest, ProductEntitlementsRemoveRequest } from '../../contract/schemas/billing-entitlements.ts';
import { entitlementOrNotFound } from '../../queries/billing/entitlements.ts';
import { entitlements, products } from './handlers.ts';
import { billingEntitlementsProjection } from '../../projections/billing/entitlements.ts';
import { billingProductsProjection } from '../../projections/billing/products.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

export const entitlementsInsert = operation({
  id: 'billing.entitlements.insert',
  examples: {
    request: { key: 'invoice_branding', name: 'Acme Repairs Ltd' },
    response: {
      key: 'invoice_branding',
      name: 'Acme Repairs Ltd',
      description: 'Monthly platform fee',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Defines an entitlement or changes its name and description (upsert by key). Platform staff only.',
  description: 'Sending the same values again records nothing and answers the same body.',
  request: EntitlementsInsertRequest,
  response: Entitlement,
  error: 'billing.EntitlementsUpsertError',
  errors: billingErrors.list(),
  access: 'platform_staff',
  write: true,
  readModels: [billingEntitlementsProjection],
  async handle(ctx, req) {
    await entitlements.run(ctx, req.key, { type: 'UpsertEntitlement', data: { key: req.key, name: req.name, description: req.description ?? null } }, { orgId: null });
    await ctx.readYourWrites();
    return entitlementOrNotFound(ctx.services.knex, req.key);
  },
});

export const productEntitlementsInsert = operation({
  id: 'billing.products.entitlements.insert',
  examples: {
    request: { product_id: '0193bebc-9158-7480-8949-565b4dc7a82d', entitlement_key: 'entitlement_key' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Relates a product to an entitlement: its subscribers get it. Relating it again is a no-op.',
  request: ProductEntitlementsAddRequest,
  response: Empty,
  error: 'billing.ProductEntitlementsAddError',
  errors: billingErrors.list('product_not_found', 'entitlement_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [billingProductsProjection],
  async handle(ctx, req) {
    const entitlement = await entitlements.load(ctx, req.entitlement_key);
    await products.run(ctx, req.product_id, {
      type: 'AddProductEntitlement',
      data: { entitlement_key: req.entitlement_key, entitlement_exists: entitlement.fields !== null },
    }, { orgId: null });
    await ctx.readYourWrites();
    return {};
  },
});

export const productEntitlementsRemove = operation({
  id: 'billing.products.entitlements.remove',
  examples: {
    request: { product_id: '0193bebc-9158-7480-8949-565b4dc7a82d', entitlement_key: 'entitlement_key' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Stops a product granting an entitlement.',
  request: ProductEntitlementsRemoveRequest,
  response: Empty,
  error: 'billing.ProductEntitlementsRemoveError',
  errors: billingErrors.list('product_not_found', 'product_entitlement_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [billingProductsProjection],
  async handle(ctx, req) {
    await products.run(ctx, req.product_id, { type: 'RemoveProductEntitlement', data: { entitlement_key: req.entitlement_key } }, { orgId: null });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write operations of entitlements. */
export const billingEntitlementCommands = [entitlementsInsert, productEntitlementsInsert, productEntitlementsRemove];
