// billing.entitlements.effective.get (extension): an organization's entitlements and why each is on or off.
// Owns no table: it reads subscriptions, prices, products, entitlements, overrides and access through their query modules.
import type { Knex } from 'knex';
import type { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasRole } from '../../context.ts';
import { EffectiveEntitlements, EffectiveEntitlementsRequest } from '../../contract/schemas/billing-entitlements.ts';
import { effectiveEntitlements } from '../../domain/billing/entitlement.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { getOrganization } from '../identity/identity.ts';
import { accessOf } from './access.ts';
import { customerOfOrganization } from './customers.ts';
import { allEntitlements } from './entitlements.ts';
import { overridesOf } from './entitlement-overrides.ts';
import { pricesByIds } from './prices.ts';
import { productsByIds } from './products.ts';
import { activeSubscriptionsOf } from './subscriptions.ts';

/** Whether an organization's access is suspended for non-payment now. */
async function suspended(knex: Knex, organizationId: string): Promise<boolean> {
  const customer = await customerOfOrganization(knex, organizationId);
  return customer ? ((await accessOf(knex, customer.id))?.suspended ?? false) : false;
}

/** The effective entitlements of `organizationId` at `now`. */
export async function effectiveOf(knex: Knex, organizationId: string, now: Date): Promise<z.input<typeof EffectiveEntitlements>> {
  const subs = await activeSubscriptionsOf(knex, organizationId);
  const priceDocs = await pricesByIds(knex, [...new Set(subs.flatMap((s) => s.items.map((i) => i.price_id)))]);
  const productDocs = await productsByIds(knex, [...new Set([...priceDocs.values()].map((p) => p.product_id))]);
  const catalogue = await allEntitlements(knex);
  const names = new Map(catalogue.map((e) => [e.key, e.name]));
  const isSuspended = await suspended(knex, organizationId);
  const items = effectiveEntitlements({
    keys: catalogue.map((e) => e.key),
    productGrants: [...productDocs.values()].map((p) => ({ product_id: p.id, entitlement_keys: p.entitlements })),
    overrides: await overridesOf(knex, organizationId),
    suspended: isSuspended,
    now: now.toISOString(),
  });
  return { organization_id: organizationId, suspended: isSuspended, as_of: now.toISOString(), entitlements: items.map((i) => ({ ...i, name: names.get(i.key) ?? i.key })) };
}

/** Whether `organizationId` has entitlement `key` in effect at `now` (the HTTP binding's check for operations that declare one). */
export async function entitledTo(knex: Knex, organizationId: string, key: string, now: Date): Promise<boolean> {
  return (await effectiveOf(knex, organizationId, now)).entitlements.some((e) => e.key === key && e.enabled);
}

export const effectiveEntitlementsGet = operation({
  id: 'billing.entitlements.effective.get',
  examples: {
    request: { organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: {
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      suspended: false,
      as_of: '2026-01-15T09:30:00.000Z',
      entitlements: [
        {
          key: 'invoice_branding',
          name: 'Acme Repairs Ltd',
          enabled: false,
          reason: 'suspended',
          products: ['019338a0-0715-7abe-87cc-01a5b6e9cc41'],
          override: null,
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "An organization's effective entitlements, each with why it is on or off (extension).",
  description: 'Granted by the products of its active subscriptions, plus unexpired grants, minus unexpired revokes; all off while access is suspended for non-payment. Org users read their own organization; platform staff any.',
  request: EffectiveEntitlementsRequest,
  response: EffectiveEntitlements,
  error: 'billing.EffectiveEntitlementsGetError',
  errors: billingErrors.list('organization_not_found'),
  access: 'org_user',
  async handle(ctx, req) {
    const organizationId = req.organization_id ?? ctx.auth.organizationId;
    if (organizationId !== ctx.auth.organizationId && !hasRole(ctx.auth, 'platform_staff')) throw forbidden("Only platform staff read another organization's entitlements.");
    if (!(await getOrganization(ctx.services.knex, organizationId))) throw ctx.errors.error('organization_not_found', `No organization ${organizationId}.`);
    return effectiveOf(ctx.services.knex, organizationId, ctx.now);
  },
});

/** Read operations of effective entitlements. */
export const billingEffectiveEntitlementQueries = [effectiveEntitlementsGet];
