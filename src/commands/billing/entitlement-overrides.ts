// billing.entitlement-overrides.insert (upsert by organization and entitlement) and .remove: platform staff only.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { EntitlementOverride, EntitlementOverridesInsertRequest, EntitlementOverridesRemoveRequest } from '../../contract/schemas/billing-entitlements.ts';
import { overrideOrNotFound } from '../../queries/billing/entitlement-overrides.ts';
import { getOrganization } from '../../queries/identity/identity.ts';
import { entitlementOverrides, entitlements, overrideIdOf } from './handlers.ts';
import { billingEntitlementOverridesProjection } from '../../projections/billing/entitlement-overrides.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

export const entitlementOverridesInsert = operation({
  id: 'billing.entitlement-overrides.insert',
  examples: {
    request: {
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      entitlement_key: 'entitlement_key',
      mode: 'grant',
      reason: 'Agreed with the customer by phone',
    },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      entitlement_key: 'entitlement key',
      mode: 'grant',
      expires_at: null,
      reason: 'Agreed with the customer by phone',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Upserts a manual override for an organization. Platform staff only.',
  description: 'One override per (organization, entitlement): grant turns it on, revoke turns it off, until `expires_at` if given. The same override again records nothing.',
  request: EntitlementOverridesInsertRequest,
  response: EntitlementOverride,
  error: 'billing.EntitlementOverridesUpsertError',
  errors: billingErrors.list('organization_not_found', 'entitlement_not_found', 'invalid_override'),
  access: 'platform_staff',
  write: true,
  readModels: [billingEntitlementOverridesProjection],
  async handle(ctx, req) {
    const id = overrideIdOf(req.organization_id, req.entitlement_key);
    const organization = await getOrganization(ctx.services.knex, req.organization_id);
    const entitlement = await entitlements.load(ctx, req.entitlement_key);
    await entitlementOverrides.run(ctx, id, {
      type: 'SetOverride',
      data: {
        override_id: id, organization_id: req.organization_id, entitlement_key: req.entitlement_key, mode: req.mode, reason: req.reason,
        expires_at: req.expires_at ? new Date(req.expires_at).toISOString() : null,
        organization_exists: organization !== null, entitlement_exists: entitlement.fields !== null,
      },
    }, { orgId: req.organization_id, reason: req.reason });
    await ctx.readYourWrites();
    return overrideOrNotFound(ctx.services.knex, id);
  },
});

export const entitlementOverridesRemove = operation({
  id: 'billing.entitlement-overrides.remove',
  examples: {
    request: { organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679', entitlement_key: 'entitlement_key' },
    response: {},
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Removes an organization's override of an entitlement. Platform staff only.",
  request: EntitlementOverridesRemoveRequest,
  response: Empty,
  error: 'billing.EntitlementOverridesRemoveError',
  errors: billingErrors.list('entitlement_override_not_found'),
  access: 'platform_staff',
  write: true,
  readModels: [billingEntitlementOverridesProjection],
  async handle(ctx, req) {
    const id = overrideIdOf(req.organization_id, req.entitlement_key);
    await entitlementOverrides.run(ctx, id, { type: 'RemoveOverride', data: {} }, { orgId: req.organization_id });
    await ctx.readYourWrites();
    return {};
  },
});

/** Write operations of entitlement overrides. */
export const billingEntitlementOverrideCommands = [entitlementOverridesInsert, entitlementOverridesRemove];
