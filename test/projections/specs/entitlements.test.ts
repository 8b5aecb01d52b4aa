// Entitlements, entitlement overrides and subscriptions read models, given their events.
import { backends } from '../../support/db.ts';
import type { EntitlementEvent } from '../../../src/domain/billing/entitlement.ts';
import type { OverrideEvent } from '../../../src/domain/billing/entitlement-override.ts';
import type { SubscriptionEvent } from '../../../src/domain/billing/subscription.ts';
import { billingEntitlementsProjection } from '../../../src/projections/billing/entitlements.ts';
import { billingEntitlementOverridesProjection } from '../../../src/projections/billing/entitlement-overrides.ts';
import { billingSubscriptionsProjection } from '../../../src/projections/billing/subscriptions.ts';
import { on, projectionSpec } from '../spec.ts';
import { ORG, ORG2 } from './fixtures.ts';

const OV1 = '0190c6a2-0000-7000-8000-000000000d01';
const OV2 = '0190c6a2-0000-7000-8000-000000000d02';
const SUB = '0190c6a2-0000-7000-8000-000000000d11';
const PRICE = '0190c6a2-0000-7000-8000-000000000d21';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';
const T2 = '2026-01-17T09:00:00.000Z';

for (const backend of backends()) {
  describe(`billing entitlements projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.entitlements: one document per key, changes applied', async () => {
      await spec.given(billingEntitlementsProjection, [
        ...on<EntitlementEvent>('entitlement-parts.search', [
          { type: 'EntitlementDefined', data: { key: 'parts.search', name: 'Parts search', description: null, defined_at: T0 } },
          { type: 'EntitlementChanged', data: { changes: { description: 'Find parts' }, updated_at: T1 } },
        ]),
        ...on<EntitlementEvent>('entitlement-api', [{ type: 'EntitlementDefined', data: { key: 'api', name: 'API', description: null, defined_at: T1 } }]),
      ]).then({
        billing_entitlements: [
          { key: 'api', name: 'API', description: null, created_at: T1, updated_at: T1 },
          { key: 'parts.search', name: 'Parts search', description: 'Find parts', created_at: T0, updated_at: T1 },
        ],
      });
    });

    it('billing.entitlement-overrides: a replaced override keeps its creation time; a removed one is gone', async () => {
      const set = (override_id: string, organization_id: string, mode: 'grant' | 'revoke', set_at: string): OverrideEvent => ({
        type: 'EntitlementOverrideSet', data: { override_id, organization_id, entitlement_key: 'api', mode, expires_at: null, reason: `${mode} it`, set_at },
      });
      await spec.given(billingEntitlementOverridesProjection, [
        ...on<OverrideEvent>(`entitlementoverride-${OV1}`, [set(OV1, ORG, 'grant', T0), set(OV1, ORG, 'revoke', T1)]),
        ...on<OverrideEvent>(`entitlementoverride-${OV2}`, [set(OV2, ORG2, 'grant', T0), { type: 'EntitlementOverrideRemoved', data: { removed_at: T2 } }]),
      ]).then({
        billing_entitlement_overrides: [
          { organization_id: ORG, entitlement_key: 'api', doc: { id: OV1, organization_id: ORG, entitlement_key: 'api', mode: 'revoke', expires_at: null, reason: 'revoke it', created_at: T0, updated_at: T1 } },
        ],
      }, { columns: ['organization_id', 'entitlement_key'] });
    });

    it('billing.subscriptions: items and status as last changed', async () => {
      await spec.given(billingSubscriptionsProjection, [
        ...on<SubscriptionEvent>(`subscription-${SUB}`, [
          { type: 'SubscriptionCreated', data: { subscription_id: SUB, organization_id: ORG, items: [{ price_id: PRICE, quantity: 1 }], status: 'active', current_period_start: T0, current_period_end: T2, created_at: T0 } },
          { type: 'SubscriptionUpdated', data: { changes: { items: [{ price_id: PRICE, quantity: 4 }] }, updated_at: T1 } },
          { type: 'SubscriptionUpdated', data: { changes: { status: 'canceled' }, updated_at: T2 } },
        ]),
      ]).then({
        billing_subscriptions: [
          {
            organization_id: ORG, status: 'canceled',
            doc: { id: SUB, organization_id: ORG, items: [{ price_id: PRICE, quantity: 4 }], status: 'canceled', current_period_start: T0, current_period_end: T2, created_at: T0, updated_at: T2 },
          },
        ],
      }, { columns: ['organization_id', 'status'] });
    });
  });
}
