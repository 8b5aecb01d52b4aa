// The test helper installs an integration through the real flow, and the key it returns works.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';

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
      const removed = await svc.callIntegration('integrations.remove', {}, integrationHeaders(installed));
      expect(removed.status).to.equal(200);
      const again = await svc.callIntegration('integrations.remove', {}, integrationHeaders(installed));
      expect(again.status).to.equal(401);
      expect(again.body.code).to.equal('unauthenticated');
    });
  });
}
