// Schemas of entitlements, overrides, effective entitlements and subscriptions, named as the spec names them.
import { z } from 'zod';
import { MAX_SUBSCRIPTION_QUANTITY } from '../../domain/billing/subscription.ts';
import { RequestInstant, Timestamp, Uuid } from './common.ts';

/** An entitlement key: lower case, digits, `.`, `_`, `:` and `-`. */
export const EntitlementKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,99}$/, 'must be 1-100 characters: a-z, 0-9, ".", "_", ":" or "-", starting with a letter or digit')
  .describe('Stable key of the entitlement, e.g. `parts.search`.');

export const EntitlementsInsertRequest = z
  .strictObject({
    key: EntitlementKey,
    name: z.string().trim().min(1).max(200).describe('Human name.'),
    description: z.string().trim().max(2000).nullable().optional().describe('What it allows; omitted or null for none.'),
  })
  .meta({ id: 'billing.EntitlementsInsertRequest' });

export const Entitlement = z
  .object({ key: z.string(), name: z.string(), description: z.string().nullable(), created_at: Timestamp, updated_at: Timestamp })
  .meta({ id: 'billing.Entitlement' });

export const ProductEntitlementsAddRequest = z
  .strictObject({ product_id: Uuid.describe('Product id.'), entitlement_key: EntitlementKey.describe('An existing entitlement the product will grant.') })
  .meta({ id: 'billing.ProductEntitlementsAddRequest' });

export const ProductEntitlementsRemoveRequest = z
  .strictObject({ product_id: Uuid.describe('Product id.'), entitlement_key: EntitlementKey.describe('The entitlement the product stops granting.') })
  .meta({ id: 'billing.ProductEntitlementsRemoveRequest' });

export const OverrideMode = z.enum(['grant', 'revoke']).describe('grant: on whatever the products say; revoke: off whatever the products say.');

export const EntitlementOverridesInsertRequest = z
  .strictObject({
    organization_id: Uuid.describe('The organization the override is for.'),
    entitlement_key: EntitlementKey,
    mode: OverrideMode,
    expires_at: RequestInstant.nullable().optional().describe('When the override stops counting; omitted or null for never. Must be in the future.'),
    reason: z.string().trim().min(1).max(1000).describe('Why (kept for the audit trail).'),
  })
  .meta({ id: 'billing.EntitlementOverridesInsertRequest' });

export const EntitlementOverride = z
  .object({
    id: Uuid,
    organization_id: Uuid,
    entitlement_key: z.string(),
    mode: OverrideMode,
    expires_at: Timestamp.nullable(),
    reason: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.EntitlementOverride' });

export const EntitlementOverridesListRequest = z
  .strictObject({ organization_id: Uuid.describe('Whose overrides.') })
  .meta({ id: 'billing.EntitlementOverridesListRequest' });

export const EntitlementOverridesRemoveRequest = z
  .strictObject({ organization_id: Uuid, entitlement_key: EntitlementKey })
  .meta({ id: 'billing.EntitlementOverridesRemoveRequest' });

export const EffectiveEntitlementsRequest = z
  .strictObject({ organization_id: Uuid.optional().describe('Staff: any organization. Others: only their own (the default).') })
  .meta({ id: 'billing.EffectiveEntitlementsGetRequest' });

export const EffectiveEntitlementItem = z
  .object({
    key: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    reason: z.enum(['suspended', 'revoked', 'product', 'granted', 'not_granted']).describe(
      'Why: suspended (access suspended for non-payment: everything is off), revoked (an override), product (a subscribed product grants it), granted (an override), not_granted.',
    ),
    products: z.array(Uuid).describe('Products of active subscriptions that grant it.'),
    override: OverrideMode.nullable().describe('The unexpired override in force, if any.'),
  })
  .meta({ id: 'billing.EffectiveEntitlementItem' });

export const EffectiveEntitlements = z
  .object({
    organization_id: Uuid,
    suspended: z.boolean().describe('Access suspended for non-payment.'),
    as_of: Timestamp,
    entitlements: z.array(EffectiveEntitlementItem).describe('Every defined entitlement, by key.'),
  })
  .meta({ id: 'billing.EffectiveEntitlements' });

const Quantity = z.int().max(MAX_SUBSCRIPTION_QUANTITY).describe(`Whole number from 1 to ${MAX_SUBSCRIPTION_QUANTITY.toLocaleString('en')}.`);
export const SubscriptionItem = z.strictObject({ price_id: Uuid, quantity: Quantity }).meta({ id: 'billing.SubscriptionItem' });
const SubscriptionStatus = z.enum(['active', 'canceled']).describe('canceled is final.');

export const SubscriptionCreateRequest = z
  .strictObject({
    organization_id: Uuid.describe('The subscribing organization.'),
    items: z.array(SubscriptionItem).max(50).describe('Active prices and quantities; each price once.'),
    current_period_start: RequestInstant,
    current_period_end: RequestInstant.describe('After current_period_start.'),
  })
  .meta({ id: 'billing.SubscriptionCreateRequest' });

export const SubscriptionUpdateRequest = z
  .strictObject({
    id: Uuid.describe('Subscription id.'),
    items: z.array(SubscriptionItem).max(50).optional().describe('Replaces the items.'),
    status: SubscriptionStatus.optional(),
    current_period_start: RequestInstant.optional(),
    current_period_end: RequestInstant.optional(),
  })
  .meta({ id: 'billing.SubscriptionUpdateRequest' });

export const SubscriptionListRequest = z
  .strictObject({ organization_id: Uuid.optional().describe('Staff: any organization (default all). Others: only their own.') })
  .meta({ id: 'billing.SubscriptionListRequest' });

export const Subscription = z
  .object({
    id: Uuid,
    organization_id: Uuid,
    items: z.array(z.object({ price_id: Uuid, quantity: z.int() })),
    status: SubscriptionStatus,
    current_period_start: Timestamp,
    current_period_end: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'billing.Subscription' });
