// The repair-job operations as an integrator first meets them: documented in the integrations OpenAPI, closed without a key.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`repair-job operations: documentation and authentication (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('lists jobs.get, jobs.insert and vehicles.preload in the integrations OpenAPI with the spec\'s schema names', async () => {
      const res = await fetch(`${svc.url}/api/2026-01/openapi.json`);
      const doc = (await res.json()) as { paths: Record<string, { post: { tags: string[] } }>; components: { schemas: Record<string, unknown> } };
      for (const op of ['jobs.get', 'jobs.insert', 'vehicles.preload']) expect(doc.paths[`/${op}`]?.post.tags, op).to.deep.equal(['Integrations']);
      expect(doc.components.schemas).to.include.keys('JobIdentityV1', 'VehicleIdentifierV1', 'LocationV1', 'ExternalInsertV1', 'IfConflictOnInsert', 'Job');
      const core = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(core.paths).to.not.have.property('/jobs.get');
    });

    it('answers 401 with the error body when no API key is sent', async () => {
      const res = await svc.callIntegration(ops['jobs.get'], { identity: { external: { value: 'X' } } });
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ type: 'JobsGetError', code: 'unauthenticated' });
    });
  });
}
