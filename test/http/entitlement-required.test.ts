// An operation that belongs to a paid feature needs its entitlement in effect for the caller's organization.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { grantEntitlement } from '../support/entitlements.ts';
import { ops } from '../support/ops.ts';
import { VEHICLE_DATA_PRELOAD } from '../../src/commands/vehicles/preload.ts';

for (const backend of backends()) {
  describe(`entitlement-gated operations (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('vehicles.preload answers 403 entitlement_required and writes nothing until the organization has vehicle_data_preload; a revoke takes it away again', async () => {
      const owner = await svc.signUp({ kind: 'supplier' });
      const supplier = await installIntegration(svc, { token: owner.token, scopes: ['supplier'] });
      const body = { identifiers: [{ vrm: { plate: 'AB12CDE', location: { country: 'GB' } } }] };
      const count = async () => Number((await svc.db.knex('es_events').where('stream_id', 'like', 'vehiclepreload-%').count<{ count: string }[]>('* as count'))[0]?.count);
      const before = await count();
      const refused = await svc.callIntegration(ops['vehicles.preload'], body, integrationHeaders(supplier));
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ type: 'VehiclesPreloadError', code: 'entitlement_required' });
      expect(await count()).to.equal(before);

      await grantEntitlement(svc, owner.orgId, VEHICLE_DATA_PRELOAD);
      expect((await svc.callIntegration(ops['vehicles.preload'], body, integrationHeaders(supplier))).status).to.equal(200);
      expect(await count()).to.equal(before + 1);

      const staff = await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] });
      const revoked = await svc.call(ops['billing.entitlement-overrides.insert'], { organization_id: owner.orgId, entitlement_key: VEHICLE_DATA_PRELOAD, mode: 'revoke', reason: 'contract ended' }, staff.token);
      expect(revoked.status).to.equal(200);
      expect((await svc.callIntegration(ops['vehicles.preload'], body, integrationHeaders(supplier))).body.code).to.equal('entitlement_required');
    });

    it('documents the entitlement and its error code in the integrations OpenAPI', async () => {
      const doc = (await (await fetch(`${svc.url}/api/2026-01/openapi.json`)).json()) as {
        paths: Record<string, { post: { description: string } }>;
        components: { schemas: Record<string, { properties: { code: { enum: string[] } } }> };
      };
      expect(doc.paths['/vehicles.preload']?.post.description).to.include('`vehicle_data_preload` entitlement');
      expect(doc.components.schemas.VehiclesPreloadError?.properties.code.enum).to.include('entitlement_required');
    });
  });
}
