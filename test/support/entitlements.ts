// Paid features in tests: platform staff define an entitlement and grant it to an organization by override.
import { expect } from 'chai';
import type { TestService } from './app.ts';
import { ops } from './ops.ts';

/** Defines entitlement `key` (idempotent upsert) and grants it to `organizationId`. */
export async function grantEntitlement(svc: TestService, organizationId: string, key: string): Promise<void> {
  const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] });
  const defined = await svc.call(ops['billing.entitlements.insert'], { key, name: key }, staff.token);
  expect(defined.status, JSON.stringify(defined.body)).to.equal(200);
  const granted = await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: organizationId, entitlement_key: key, mode: 'grant', reason: 'test set-up' }, staff.token);
  expect(granted.status, JSON.stringify(granted.body)).to.equal(200);
}
