// The test helper installs an integration through the real flow; the key works; the read models rebuild to the same rows.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { integrationsProjection } from '../../src/projections/integrations/integrations.ts';
import { ops } from '../support/ops.ts';


for (const backend of backends()) {
  describe(`installIntegration helper (${backend})`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('returns a working svc_key_ API key for the integration', async () => {
      const owner = await svc.signUp();
      const installed = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      expect(installed.apiKey).to.match(/^svc_key_/);
      expect(installed.clientSecret).to.match(/^svc_secret_/);
      const me = await svc.callIntegration(ops['integrations.get'], undefined, integrationHeaders(installed));
      expect(me.body).to.deep.include({ integration_id: installed.integrationId, client_id: installed.clientId, scopes: ['repairer'] });
      const removed = await svc.callIntegration(ops['integrations.remove'], {}, integrationHeaders(installed));
      expect(removed.status).to.equal(200);
      const again = await svc.callIntegration(ops['integrations.remove'], {}, integrationHeaders(installed));
      expect(again.status).to.equal(401);
      expect(again.body.code).to.equal('unauthenticated');
    });

    it('rebuilding the integrations read models from the log gives the same rows', async () => {
      const owner = await svc.signUp();
      await installIntegration(svc, { token: owner.token, scopes: ['supplier', 'repairer'] });
      const snapshot = async () => ({
        clients: await svc.app.knex('integration_clients').orderBy('id').select(),
        installs: await svc.app.knex('integration_installs').orderBy('id').select(),
      });
      const live = await snapshot();
      expect(live.installs.length).to.be.greaterThan(1);
      await svc.app.runner.rebuild([integrationsProjection.name]);
      expect(await snapshot()).to.deep.equal(live);
    });
  });
}
