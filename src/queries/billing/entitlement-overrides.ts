// billing.entitlement-overrides.list, reading billing_entitlement_overrides (written by projections/billing/entitlement-overrides.ts).
import type { Knex } from 'knex';
import { z } from 'zod';
import { operation } from '../../contract/operation.ts';
import { EntitlementOverride, EntitlementOverridesListRequest } from '../../contract/schemas/billing-entitlements.ts';
import type { OverrideDoc } from '../../projections/billing/entitlement-overrides.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** The overrides in place for an organization (expired ones included), by entitlement key. */
export async function overridesOf(knex: Knex, organizationId: string): Promise<OverrideDoc[]> {
  return ((await knex('billing_entitlement_overrides').where({ organization_id: organizationId }).select('doc').orderBy('entitlement_key')) as { doc: OverrideDoc }[]).map((r) => r.doc);
}

/** One override by id; 404 when there is none. */
export async function overrideOrNotFound(knex: Knex, id: string): Promise<OverrideDoc> {
  const row = await knex('billing_entitlement_overrides').where({ id }).first('doc');
  if (!row) throw billingErrors.error('entitlement_override_not_found', 'This organization has no override of that entitlement.');
  return row.doc as OverrideDoc;
}

export const entitlementOverridesList = operation({
  id: 'billing.entitlement-overrides.list',
  examples: {
    request: { organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: [
      {
        id: '019387ea-5dfc-7b8e-884d-848979496e70',
        organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
        entitlement_key: 'entitlement key',
        mode: 'grant',
        expires_at: null,
        reason: 'Agreed with the customer by phone',
        created_at: '2026-01-15T09:30:00.000Z',
        updated_at: '2026-01-15T09:30:00.000Z',
      },
    ],
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "Lists an organization's entitlement overrides (expired ones too), by entitlement key. Platform staff only.",
  request: EntitlementOverridesListRequest,
  response: z.array(EntitlementOverride),
  error: 'billing.EntitlementOverridesListError',
  errors: billingErrors.list(),
  access: 'platform_staff',
  handle: (ctx, req) => overridesOf(ctx.services.knex, req.organization_id),
});

/** Read operations of entitlement overrides. */
export const billingEntitlementOverrideQueries = [entitlementOverridesList];
