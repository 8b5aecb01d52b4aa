// billing_entitlements: one document per entitlement key, read by queries/billing/entitlements.ts.
import { type EntitlementEvent, type EntitlementFields, entitlementCodec } from '../../domain/billing/entitlement.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored entitlement: exactly the billing.Entitlement body. */
export interface EntitlementDoc extends EntitlementFields {
  key: string;
  created_at: string;
  updated_at: string;
}

/** Builds billing_entitlements from entitlement events. */
export const billingEntitlementsProjection = documentProjection({
  name: 'billing.entitlements',
  version: 1,
  tables: [
    documentTable<EntitlementDoc, EntitlementEvent>({
      table: 'billing_entitlements',
      events: entitlementCodec,
      columns: () => ({}),
      handlers: {
        EntitlementDefined: (_doc, d) => ({ key: d.key, name: d.name, description: d.description, created_at: d.defined_at, updated_at: d.defined_at }),
        EntitlementChanged: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
      },
    }),
  ],
});
