// jobs.get / jobs.insert / vehicles.preload over HTTP with really installed integrations.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { approve, authorizeUrl, installIntegration, integrationHeaders, registerClient } from '../support/integrations.ts';
import { systemContext } from '../support/system.ts';
import { addSite } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { ops } from '../support/ops.ts';
import { grantEntitlement } from '../support/entitlements.ts';
import { VEHICLE_DATA_PRELOAD } from '../../src/commands/vehicles/preload.ts';


type Installed = Awaited<ReturnType<typeof installIntegration>>;
type Owner = Awaited<ReturnType<TestService['signUp']>>;

const car = { identifier: { vrm: { plate: 'ab12 cde', location: { country: 'gb' } } } };
const carNormalised = { identifier: { vrm: { plate: 'AB12CDE', location: { country: 'GB' } } } };
const van = { identifier: { chassis_number: 'WVWZZZ1JZXW000001' } };

for (const backend of backends()) {
  describe(`repair jobs over HTTP (${backend})`, () => {
    let svc: TestService;
    let ownerA: Owner;
    let ownerB: Owner;
    let repairerA: Installed;
    let repairerA2: Installed;
    let repairerB: Installed;
    let supplierA: Installed;
    let secondSiteA: string;
    const jobs = (op: 'jobs.get' | 'jobs.insert' | 'vehicles.preload', body: unknown, as: Installed) => svc.send(op, body, null, integrationHeaders(as), 'integrations');
    const create = (external: string, as: Installed, data: Record<string, unknown> = {}) =>
      jobs('jobs.insert', { identity: { external: { value: external } }, if_: { exists: 'update' }, data: { repairer_site_id: ownerA.siteId, vehicle: car, ...data } }, as);

    before(async () => {
      svc = await startService(backend);
      ownerA = await svc.signUp();
      ownerB = await svc.signUp();
      repairerA = await installIntegration(svc, { token: ownerA.token, scopes: ['repairer'] });
      repairerA2 = await installIntegration(svc, { token: ownerA.token, scopes: ['repairer'] });
      repairerB = await installIntegration(svc, { token: ownerB.token, scopes: ['repairer'] });
      supplierA = await installIntegration(svc, { token: ownerA.token, scopes: ['supplier'] });
      await grantEntitlement(svc, ownerA.orgId, VEHICLE_DATA_PRELOAD);
      const site = await addSite(systemContext(svc.app, 'test site'), ownerA.orgId, 'Second site');
      await svc.app.runner.waitFor(site.position, [identityProjection], 10_000);
      secondSiteA = site.id;
    });
    after(async () => svc?.close());

    it('creates a draft job by external id and returns what jobs.get returns, by id and by external id', async () => {
      const created = await create('EXT-CREATE', repairerA, { claim_number: { value: 'CLM-1' } });
      expect(created.status).to.equal(200);
      expect(created.body).to.deep.include({
        external_id: { value: 'EXT-CREATE' },
        claim_number: { value: 'CLM-1' },
        job_number: {},
        work_provider_id: {},
        vehicle: carNormalised,
        site_id: ownerA.siteId,
        images: [],
        status: { type: 'draft' },
      });
      const byId = await jobs('jobs.get', { identity: { id: created.body.id } }, repairerA);
      const byExternal = await jobs('jobs.get', { identity: { external: { value: 'EXT-CREATE' } } }, repairerA);
      expect(byId.status).to.equal(200);
      expect(byId.body).to.deep.equal(created.body);
      expect(byExternal.body).to.deep.equal(created.body);
    });

    it('update merges the given fields into the same job; replace overwrites the data', async () => {
      const first = await create('EXT-UPD', repairerA, { claim_number: { value: 'CLM-1' }, job_number: { value: 'J-1' } });
      const updated = await jobs('jobs.insert', { identity: { external: { value: 'EXT-UPD' } }, if_: { exists: 'update' }, data: { job_number: { value: 'J-2' }, work_provider_id: { value: 'WP-9' } } }, repairerA);
      expect(updated.status).to.equal(200);
      expect(updated.body).to.deep.include({ id: first.body.id, claim_number: { value: 'CLM-1' }, job_number: { value: 'J-2' }, work_provider_id: { value: 'WP-9' }, vehicle: carNormalised, site_id: ownerA.siteId });

      const replaced = await jobs('jobs.insert', { identity: { id: first.body.id }, if_: { exists: 'replace' }, data: { repairer_site_id: secondSiteA, vehicle: van, job_number: { value: 'J-3' } } }, repairerA);
      expect(replaced.status).to.equal(200);
      expect(replaced.body).to.deep.include({ id: first.body.id, external_id: { value: 'EXT-UPD' }, claim_number: {}, job_number: { value: 'J-3' }, work_provider_id: {}, vehicle: van, site_id: secondSiteA });
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-UPD' } } }, repairerA)).body).to.deep.equal(replaced.body);
    });

    it('replace without a site or vehicle is 400 job_data_incomplete and changes nothing', async () => {
      const first = await create('EXT-REPL', repairerA);
      const res = await jobs('jobs.insert', { identity: { id: first.body.id }, if_: { exists: 'replace' }, data: { job_number: { value: 'J' } } }, repairerA);
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ type: 'JobsInsertError', code: 'job_data_incomplete' });
      expect((await jobs('jobs.get', { identity: { id: first.body.id } }, repairerA)).body).to.deep.equal(first.body);
    });

    it('sites.list shows the key\'s organization\'s sites only, to repairer keys', async () => {
      const res = await svc.callIntegration(ops['sites.list'], undefined, integrationHeaders(repairerA));
      expect(res.status).to.equal(200);
      expect(res.body.items.map((s: { id: string }) => s.id)).to.deep.equal([ownerA.siteId, secondSiteA]);
      expect((await svc.callIntegration(ops['sites.list'], undefined, integrationHeaders(repairerB))).body.items.map((s: { id: string }) => s.id)).to.deep.equal([ownerB.siteId]);
      expect((await svc.callIntegration(ops['sites.list'], undefined, integrationHeaders(supplierA))).status).to.equal(403);
    });

    it('cannot create a job by our id: an unknown id is 404 job_not_found', async () => {
      const res = await jobs('jobs.insert', { identity: { id: '01900000-0000-7000-8000-000000000999' }, if_: { exists: 'update' }, data: { repairer_site_id: ownerA.siteId, vehicle: car } }, repairerA);
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('job_not_found');
    });

    it('a new job without a site and vehicle is 400 job_data_incomplete and leaves the external id free', async () => {
      const res = await jobs('jobs.insert', { identity: { external: { value: 'EXT-INCOMPLETE' } }, if_: { exists: 'update' }, data: { claim_number: { value: 'C' } } }, repairerA);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('job_data_incomplete');
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-INCOMPLETE' } } }, repairerA)).status).to.equal(404);
      expect((await create('EXT-INCOMPLETE', repairerA)).status).to.equal(200);
    });

    it('rejects a site of another organization with 400 site_not_found and creates nothing', async () => {
      const res = await create('EXT-SITE', repairerA, { repairer_site_id: ownerB.siteId });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ type: 'JobsInsertError', code: 'site_not_found' });
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-SITE' } } }, repairerA)).status).to.equal(404);
    });

    it('hides another organization\'s job: org X\'s key gets 404 reading or writing org Y\'s job', async () => {
      const mine = await create('EXT-PRIVATE', repairerA);
      const read = await jobs('jobs.get', { identity: { id: mine.body.id } }, repairerB);
      expect(read.status).to.equal(404);
      expect(read.body).to.include({ type: 'JobsGetError', code: 'job_not_found' });
      const write = await jobs('jobs.insert', { identity: { id: mine.body.id }, if_: { exists: 'update' }, data: { job_number: { value: 'HACK' } } }, repairerB);
      expect(write.status).to.equal(404);
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-PRIVATE' } } }, repairerB)).status).to.equal(404);
      // Org Y using the same external id gets its own job, not org X's.
      const theirs = await jobs('jobs.insert', { identity: { external: { value: 'EXT-PRIVATE' } }, if_: { exists: 'update' }, data: { repairer_site_id: ownerB.siteId, vehicle: van } }, repairerB);
      expect(theirs.status).to.equal(200);
      expect(theirs.body.id).to.not.equal(mine.body.id);
      expect((await jobs('jobs.get', { identity: { id: mine.body.id } }, repairerA)).body).to.deep.equal(mine.body);
    });

    it('scopes external ids to the integration (app); our id reaches any job of the organization', async () => {
      const a = await create('EXT-SHARED', repairerA);
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-SHARED' } } }, repairerA2)).status).to.equal(404);
      expect((await jobs('jobs.get', { identity: { id: a.body.id } }, repairerA2)).body).to.deep.equal(a.body);
      const b = await create('EXT-SHARED', repairerA2);
      expect(b.body.id).to.not.equal(a.body.id);
    });

    it('keeps an app\'s external ids across uninstall and reinstall of the same client', async () => {
      const client = await registerClient(svc, { scopes: ['repairer'] });
      const install = async (): Promise<Installed> => {
        const state = `s-${Math.random().toString(36).slice(2)}`;
        const back = await approve(svc, authorizeUrl(svc, { clientId: client.clientId, redirectUrl: client.redirectUrl, state, scopes: '["repairer"]' }), ownerA.token);
        const res = await svc.callIntegration(ops['integrations.insert'], { access_code: back.searchParams.get('code') ?? '', client_id: client.clientId, client_secret: client.clientSecret });
        expect(res.status).to.equal(200);
        return { apiKey: res.body.api_key, integrationId: res.body.integration_id, clientId: client.clientId, clientSecret: client.clientSecret };
      };
      const first = await install();
      const job = await create('EXT-REINSTALL', first);
      expect((await svc.callIntegration(ops['integrations.remove'], {}, integrationHeaders(first))).status).to.equal(200);
      const second = await install();
      expect(second.integrationId).to.not.equal(first.integrationId);
      expect((await jobs('jobs.get', { identity: { external: { value: 'EXT-REINSTALL' } } }, second)).body).to.deep.equal(job.body);
      const updated = await create('EXT-REINSTALL', second, { job_number: { value: 'J-R' } });
      expect(updated.body).to.deep.include({ id: job.body.id, job_number: { value: 'J-R' } });
    });

    it('creates one job when two requests race to create the same external id', async () => {
      const [x, y] = await Promise.all([create('EXT-RACE', repairerA, { job_number: { value: 'X' } }), create('EXT-RACE', repairerA, { job_number: { value: 'Y' } })]);
      expect([x.status, y.status]).to.deep.equal([200, 200]);
      expect(x.body.id).to.equal(y.body.id);
      const rows = await svc.app.knex('jobs').where({ organization_id: ownerA.orgId, external_id: 'EXT-RACE' }).count<{ count: string | number }[]>('* as count');
      expect(Number(rows[0]!.count)).to.equal(1);
    });

    it('needs the right scope: repairer keys cannot preload (403), supplier keys cannot read jobs (403)', async () => {
      const preload = await jobs('vehicles.preload', { identifiers: [van.identifier] }, repairerA);
      expect(preload.status).to.equal(403);
      expect(preload.body).to.include({ type: 'VehiclesPreloadError', code: 'forbidden' });
      const get = await jobs('jobs.get', { identity: { external: { value: 'EXT-CREATE' } } }, supplierA);
      expect(get.status).to.equal(403);
      expect(get.body.code).to.equal('forbidden');
    });

    it('preloads 1 to 100 identifiers; 0 or 101 is 400 naming the limit', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => ({ chassis_number: `VIN${String(i).padStart(14, '0')}` }));
      for (const n of [0, 101]) {
        const res = await jobs('vehicles.preload', { identifiers: many(n) }, supplierA);
        expect(res.status, `${n} identifiers`).to.equal(400);
        expect(res.body.code).to.equal('invalid_request');
        expect(res.body.issues?.[0]?.path).to.equal('identifiers');
        expect(res.body.issues?.[0]?.message).to.contain(n === 0 ? '1' : '100');
      }
      const ok = await jobs('vehicles.preload', { identifiers: many(100) }, supplierA);
      expect(ok.status).to.equal(200);
      expect(ok.body).to.deep.equal({});
    });

    it('records one VehiclePreloadRequested event per distinct identifier, normalised', async () => {
      // This request's stream: the one holding the plate no other test uses.
      const requestEvents = async () => {
        const all = (await svc.app.store.readAll({ from: 'start', maxCount: 100_000 })).filter((e) => e.type === 'VehiclePreloadRequested');
        const stream = all.find((e) => JSON.stringify(e.data).includes('XY99ZZZ'))?.streamId;
        return all.filter((e) => e.streamId === stream);
      };
      const res = await jobs('vehicles.preload', {
        identifiers: [
          { vrm: { plate: 'xy99 zzz', location: { country: 'ie' } } },
          { vrm: { plate: 'XY99ZZZ', location: { country: 'IE' } } },
          { vrm: { plate: 'XY 99 ZZZ', location: { country: 'IE', region: 'D' } } },
          { chassis_number: 'vin0000000000001' },
          { chassis_number: 'VIN0000000000001' },
        ],
      }, supplierA);
      expect(res.status).to.equal(200);
      // The global log shows a commit once older transactions have finished; one request's events are one commit.
      let added = await requestEvents();
      for (let i = 0; added.length === 0 && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        added = await requestEvents();
      }
      expect(added.map((e) => (e.data as { identifier: unknown }).identifier)).to.deep.equal([
        { vrm: { plate: 'XY99ZZZ', location: { country: 'IE' } } },
        { vrm: { plate: 'XY99ZZZ', location: { country: 'IE', region: 'D' } } },
        { chassis_number: 'VIN0000000000001' },
      ]);
      expect(added.every((e) => e.metadata.org_id === ownerA.orgId && e.metadata.actor.type === 'integration' && (e.data as { integration_id: string }).integration_id === supplierA.integrationId)).to.equal(true);
    });

    it('answers bad input with 400 invalid_request, never 500', async () => {
      const site = ownerA.siteId;
      const bad: [string, unknown][] = [
        ['jobs.get', {}],
        ['jobs.get', { identity: { id: 'not-a-uuid' } }],
        ['jobs.get', { identity: { id: '01900000-0000-7000-8000-000000000999', external: { value: 'X' } } }],
        ['jobs.get', { identity: { external: { value: '' } } }],
        ['jobs.get', { identity: { external: 'X' } }],
        ['jobs.get', []],
        ['jobs.get', 'X'],
        ['jobs.insert', { identity: { external: { value: 'E' } }, data: { repairer_site_id: site, vehicle: car } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'merge' }, data: { repairer_site_id: site, vehicle: car } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: car, colour: 'red' } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: 'site-1', vehicle: car } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: { identifier: { vrm: { plate: '   ', location: { country: 'GB' } } } } } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: { identifier: { vrm: { plate: 'AB1', location: { country: 'UK' } } } } } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: { identifier: { chassis_number: 'V', vrm: { plate: 'AB1', location: { country: 'GB' } } } } } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: car, claim_number: { value: '' } } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: { repairer_site_id: site, vehicle: car, claim_number: 'CLM' } }],
        ['jobs.insert', { identity: { external: { value: 'E' } }, if_: { exists: 'update' }, data: null }],
      ];
      for (const [op, body] of bad) {
        const res = await svc.send(op, body, null, integrationHeaders(repairerA), 'integrations');
        expect(res.status, `${op} ${JSON.stringify(body)}`).to.equal(400);
        expect(res.body.code, `${op} ${JSON.stringify(body)}`).to.equal('invalid_request');
      }
      for (const body of [{ identifiers: [{ chassis_number: '' }] }, { identifiers: [{ vrm: { plate: 'A', location: {} } }] }, { identifiers: 'AB12CDE' }, { identifiers: [van.identifier], extra: 1 }]) {
        const res = await jobs('vehicles.preload', body, supplierA);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('invalid_request');
      }
      expect((await jobs('jobs.get', { identity: { external: { value: 'E' } } }, repairerA)).status).to.equal(404);
    });

    it('replays a jobs.insert retried with the same Idempotency-Key, and refuses the key with another body (422)', async () => {
      const body = { identity: { external: { value: 'EXT-IDEM' } }, if_: { exists: 'update' as const }, data: { repairer_site_id: ownerA.siteId, vehicle: car } };
      const headers = { ...integrationHeaders(repairerA), 'idempotency-key': 'idem-jobs-1' };
      const first = await svc.callIntegration(ops['jobs.insert'], body, headers);
      const again = await svc.callIntegration(ops['jobs.insert'], body, headers);
      expect(first.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      const other = await svc.callIntegration(ops['jobs.insert'], { ...body, data: { ...body.data, job_number: { value: 'J' } } }, headers);
      expect(other.status).to.equal(422);
    });

    it('rebuilds the jobs read model from the log into the same rows', async () => {
      const rows = () => svc.app.knex('jobs').orderBy('id').select('id', 'organization_id', 'client_id', 'external_id', 'created_at', 'doc');
      const live = await rows();
      expect(live.length).to.be.greaterThan(5);
      await svc.app.runner.rebuild(['jobs']);
      expect(await rows()).to.deep.equal(live);
    });
  });
}
