// The third-party test app installs itself, then does what a bodyshop app does with its key: find a site,
// create a repair job with its own id, and fetch it back.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { at } from '../support/lists.ts';
import { type AfterInstall, startThirdPartyApp, type ThirdPartyApp } from '../support/third-party-app.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';

const PASSWORD = 'correct horse battery';

// The app's after-install step: sites.list, jobs.insert by its own external id, jobs.get by that id.
const createAndFetchJob: AfterInstall = async (app, inst) => {
  const sites = await app.api(inst, ops['sites.list']);
  if (sites.status !== 200) throw new Error(`sites.list answered ${sites.status}`);
  const data = { repairer_site_id: at(sites.body.items, 0).id, claim_number: { value: 'CLM-42' }, vehicle: { identifier: { vrm: { plate: 'ab12 cde', location: { country: 'GB' } } } } };
  const created = await app.api(inst, ops['jobs.insert'], { identity: { external: { value: 'APP-JOB-1' } }, if_: { exists: 'update' }, data });
  if (created.status !== 200) throw new Error(`jobs.insert answered ${created.status}: ${JSON.stringify(created.body)}`);
  const fetched = await app.api(inst, ops['jobs.get'], { identity: { external: { value: 'APP-JOB-1' } } });
  const job = fetched.body;
  const { identifier } = job.vehicle;
  const plate = 'vrm' in identifier ? identifier.vrm.plate : identifier.chassis_number;
  return `<p id="result">Job ${job.id} for ${plate} is ${job.status.type}; same as created: ${JSON.stringify(job) === JSON.stringify(created.body)}.</p>`;
};

for (const backend of backends()) {
  describe(`third-party app creates and fetches a repair job after installing (${backend})`, () => {
    let svc: TestService;
    let app: ThirdPartyApp;
    before(async () => {
      svc = await startService(backend);
      app = await startThirdPartyApp(svc, { name: 'Bodyshop Jobs', scopes: ['repairer'], afterInstall: createAndFetchJob });
    });
    after(async () => {
      await app?.close();
      await svc?.close();
    });

    it('installs, lists its sites, creates a draft job by external id and reads it back with the key', async () => {
      const owner = await svc.signUp({ name: 'Jobs Garage' });
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      const start = await fetch(`${app.url}/install`, { redirect: 'manual' });
      const consent = await web.get(start.headers.get('location')!);
      expect(consent.status).to.equal(200);
      const back = await web.post('/auth/integration/authorize', { ...hiddenFields(consent.html, '/auth/integration/authorize'), decision: 'allow' });
      expect(back.status).to.equal(303);
      const landed = await fetch(back.location!);
      const html = await landed.text();
      expect(landed.status, html).to.equal(200);
      expect(html).to.match(/Job [0-9a-f-]{36} for AB12CDE is draft; same as created: true\./);

      const inst = app.installations.get(owner.orgId)!;
      const sites = await app.api(inst, ops['sites.list']);
      expect(sites.body.items).to.deep.equal([{ id: owner.siteId, name: sites.body.items[0]?.name }]);
      const job = await app.api(inst, ops['jobs.get'], { identity: { external: { value: 'APP-JOB-1' } } });
      expect(job.body).to.deep.include({ site_id: owner.siteId, claim_number: { value: 'CLM-42' }, status: { type: 'draft' } });
    });
  });
}
