// billing_entitlement_overrides: the overrides in place, one per (organization, entitlement), read by queries/billing/entitlement-overrides.ts.
import { type OverrideEvent, type OverrideTerms, overrideCodec } from '../../domain/billing/entitlement-override.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored override: exactly the billing.EntitlementOverride body. */
export interface OverrideDoc extends OverrideTerms {
  id: string;
  organization_id: string;
  entitlement_key: string;
  created_at: string;
  updated_at: string;
}

/** Builds billing_entitlement_overrides from override events; a removed override's row goes. */
export const billingEntitlementOverridesProjection = documentProjection({
  name: 'billing.entitlement-overrides',
  version: 1,
  tables: [
    documentTable<OverrideDoc, OverrideEvent>({
      table: 'billing_entitlement_overrides',
      events: overrideCodec,
      columns: (d) => ({ organization_id: d.organization_id, entitlement_key: d.entitlement_key }),
      handlers: {
        EntitlementOverrideSet: (doc, d) => ({
          id: d.override_id, organization_id: d.organization_id, entitlement_key: d.entitlement_key, mode: d.mode, expires_at: d.expires_at, reason: d.reason,
          created_at: doc?.created_at ?? d.set_at, updated_at: d.set_at,
        }),
        EntitlementOverrideRemoved: () => null,
      },
    }),
  ],
});
