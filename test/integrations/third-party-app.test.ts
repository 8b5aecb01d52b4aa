// The whole install flow between the service and a real third-party app, over plain HTTP (no browser).
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { startThirdPartyApp, type ThirdPartyApp } from '../support/third-party-app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`third-party app install over HTTP (${backend})`, () => {
    let svc: TestService;
    let app: ThirdPartyApp;
    before(async () => {
      svc = await startService(backend);
      app = await startThirdPartyApp(svc);
    });
    after(async () => {
      await app?.close();
      await svc?.close();
    });

    /** Browser steps: the app's /install, the service's pages, back to the app. Returns the app's last answer. */
    async function install(web: WebClient, opts: { decision?: 'allow' | 'deny'; email?: string; beforeConsent?: () => void } = {}) {
      const start = await fetch(`${app.url}/install`, { redirect: 'manual' });
      expect(start.status).to.equal(302);
      let r = await web.get(start.headers.get('location')!);
      if (r.status === 303 && r.location!.startsWith('/auth/login')) {
        const form = await web.get(r.location!);
        r = await web.post('/auth/login', { ...hiddenFields(form.html, '/auth/login'), email: opts.email!, password: PASSWORD });
        expect(new URL(r.location!, svc.url).toString()).to.equal(start.headers.get('location'));
        r = await web.get(r.location!);
      }
      expect(r.status).to.equal(200);
      opts.beforeConsent?.();
      const back = await web.post('/auth/integration/authorize', { ...hiddenFields(r.html, '/auth/integration/authorize'), decision: opts.decision ?? 'allow' });
      expect(back.status).to.equal(303);
      expect(back.location!.startsWith(`${app.redirectUrl}?`)).to.equal(true);
      const landed = await fetch(back.location!);
      return { status: landed.status, html: await landed.text(), location: back.location! };
    }

    it('installs while signed in: the app exchanges the code and calls the API with the key', async () => {
      const owner = await svc.signUp({ name: 'Signed-in Garage' });
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      const res = await install(web);
      expect(res.status).to.equal(200);
      expect(res.html).to.contain('Connected to Signed-in Garage with scopes repairer');
      const inst = app.installations.get(owner.orgId)!;
      expect((await app.api(inst, ops['integrations.get'])).status).to.equal(200);
    });

    it('installs when not signed in yet: login, then the same consent, no manual step', async () => {
      const owner = await svc.signUp({ name: 'Later Garage' });
      const res = await install(new WebClient(svc.url), { email: owner.email });
      expect(res.status).to.equal(200);
      expect(res.html).to.contain('Connected to Later Garage');
    });

    it('deny: the app is told access_denied and gets no key', async () => {
      const owner = await svc.signUp();
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      const res = await install(web, { decision: 'deny' });
      expect(res.html).to.contain('Not installed: access_denied');
      expect(app.installations.has(owner.orgId)).to.equal(false);
    });

    it('the app refuses a forged, a replayed and an expired state', async () => {
      const owner = await svc.signUp();
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      const forged = await fetch(`${app.redirectUrl}?code=svc_code_x&state=forged`);
      expect(forged.status).to.equal(400);
      const ok = await install(web);
      expect(ok.status).to.equal(200);
      const replayed = await fetch(ok.location);
      expect(replayed.status).to.equal(400);
      const late = await install(web, { beforeConsent: () => svc.clock.advance(15 * 60_000) });
      expect(late.status).to.equal(400);
      expect(app.rejected.length).to.equal(3);
    });
  });
}
