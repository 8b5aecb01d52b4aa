// Issue 30: the demo `npm start` seeds fills the console: a platform staff login, enabled currencies, a product with a
// price and the entitlement the demo organization uses (vehicle_data_preload), and its subscription.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { type TestService, startService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { DEMO_PASSWORD, DEMO_PLATFORM, seedDemo } from '../../src/seed.ts';
import { entitledTo } from '../../src/queries/billing/effective-entitlements.ts';

for (const backend of backends()) {
  describe(`demo seed (${backend})`, function () {
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('seeds a platform staff login, enabled currencies, a product with a price, and Acme subscribed and entitled', async () => {
      const seed = await seedDemo(svc.app);
      expect(seed).to.not.equal(null);
      const signIn = await svc.call(ops['auth.sessions.insert'], { email: DEMO_PLATFORM, password: DEMO_PASSWORD });
      expect(signIn.status, JSON.stringify(signIn.body)).to.equal(200);
      const staff = signIn.body.token;
      const currencies = await svc.call(ops['billing.currencies.list'], {}, staff);
      expect(currencies.body.filter((c) => c.enabled_for_billing).map((c) => c.code)).to.include.members(['GBP', 'EUR', 'USD']);
      const subscriptions = await svc.call(ops['billing.subscriptions.list'], { organization_id: seed!.orgId }, staff);
      expect(subscriptions.body).to.have.length(1);
      expect(await entitledTo(svc.app.knex, seed!.orgId, 'vehicle_data_preload', svc.clock.now())).to.equal(true);
      // A second start finds data and seeds nothing more.
      expect(await seedDemo(svc.app)).to.equal(null);
    });
  });
}
