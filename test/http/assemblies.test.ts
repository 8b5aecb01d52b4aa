// Assemblies over HTTP: preload -> search in_progress -> updates stream `changed` twice -> the full answer;
// one lookup however many search at once; HCA filters; VRM vs chassis decoding; heartbeats on the TestClock;
// the experimental free-text search.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { type RequestOf, startService, type TestService } from '../support/app.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { grantEntitlement } from '../support/entitlements.ts';
import { openStream } from '../support/sse.ts';
import { ops } from '../support/ops.ts';
import { VEHICLE_DATA_PRELOAD } from '../../src/commands/vehicles/preload.ts';
import { runLookupPass } from '../../src/workers/assemblies/lookups.ts';
import { vehicleIdOf } from '../../src/domain/vehicles/identifier.ts';

const DELAYS = { VEHICLE_DATA_DECODE_DELAY_MS: '500', VEHICLE_DATA_TREE_DELAY_MS: '2000', VEHICLE_DATA_ENRICH_DELAY_MS: '3000' };
const golf = { vrm: { plate: 'ab21 cde', location: { country: 'gb' } } };

for (const backend of backends()) {
  describe(`assemblies (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let repairer: Awaited<ReturnType<TestService['signUp']>>;
    before(async () => {
      svc = await startService(backend, { env: DELAYS });
      repairer = await svc.signUp();
    });
    after(async () => svc?.close());

    const search = (body: RequestOf<(typeof ops)['assemblies.v4.search']>, token = repairer.token) => svc.call(ops['assemblies.v4.search'], body, token);

    it('a preloaded vehicle: in_progress with retry_after, `changed` twice on the updates stream (tree, then enrichments), then the full answer', async () => {
      const supplier = await svc.signUp({ kind: 'supplier' });
      await grantEntitlement(svc, supplier.orgId, VEHICLE_DATA_PRELOAD);
      const app = await installIntegration(svc, { token: supplier.token, scopes: ['supplier'] });
      const pre = await svc.callIntegration(ops['vehicles.preload'], { identifiers: [golf, { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } }] }, integrationHeaders(app));
      expect(pre.status, JSON.stringify(pre.body)).to.equal(200);

      const first = await svc.call(ops['assemblies.v4.search'], { vehicle: golf }, repairer.token);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.deep.equal({ in_progress: true, retry_after: 2 });
      // Preload and search name one vehicle (plates normalised): exactly one lookup queued.
      const vehicleId = vehicleIdOf({ vrm: { plate: 'AB21CDE', location: { country: 'GB' } } });
      const queued = await svc.app.knex('es_events').where({ stream_id: `vehiclelookup-${vehicleId}` }).select('type');
      expect(queued.map((r) => r.type)).to.deep.equal(['VehicleLookupQueued']);

      const updates = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: golf }, repairer.token);
      expect(updates.status).to.equal(200);
      expect(updates.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(updates.headers.get('cache-control')).to.equal('no-cache, no-transform');
      // Not due yet: the worker passes without a tree.
      expect((await runLookupPass(svc.app)).waiting).to.be.greaterThan(0);
      svc.clock.advance(2_000);
      expect((await runLookupPass(svc.app)).trees).to.equal(1);
      const [tree] = await updates.waitFor(1, { event: 'changed' });
      expect(tree?.data).to.include({ type: 'changed', vehicle_id: vehicleId, status: 'tree_ready' });
      expect(tree?.id).to.match(/^pg1:\d{20}:\d{20}$/);

      const partial = await search({ vehicle: golf });
      if (partial.body.in_progress !== false) throw new Error(`expected the tree: ${JSON.stringify(partial.body)}`);
      expect(partial.body.enriched).to.equal(false);
      expect(partial.body.vehicle).to.include({ make: 'Volkswagen', model: 'Golf', variant: '1.5 TSI 130 Life', trim: 'Life', colour: 'Moonstone Grey', decoded_from: 'vrm' });
      expect(partial.body.assemblies.length).to.be.greaterThan(150);
      expect(partial.body.assemblies.every((n) => n.part_numbers.length === 0)).to.equal(true);

      svc.clock.advance(3_000);
      expect((await runLookupPass(svc.app)).enrichments).to.equal(1);
      const changes = await updates.waitFor(2, { event: 'changed' });
      expect(changes.map((c) => c.data.status)).to.deep.equal(['tree_ready', 'enriched']);
      const full = await search({ vehicle: golf });
      if (full.body.in_progress !== false) throw new Error('expected the answer');
      expect(full.body.enriched).to.equal(true);
      const bonnet = full.body.assemblies.find((n) => n.name === 'Bonnet');
      expect(bonnet?.synonyms).to.include('hood');
      expect(bonnet?.part_numbers).to.have.length(1);
      expect(bonnet?.images[0]).to.match(/^https:\/\//);
      // A petrol Golf has no high-voltage system; the tree keeps parents before children.
      expect(full.body.assemblies.some((n) => n.name === 'Traction battery')).to.equal(false);
      const seen = new Set<string>();
      for (const n of full.body.assemblies) {
        if (n.parent_id !== null) expect(seen.has(n.parent_id), n.hca_id).to.equal(true);
        seen.add(n.hca_id);
      }

      // A second listener gets one `changed` at connect (already answered), and a heartbeat each 30 s of the clock.
      const late = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: golf }, repairer.token);
      const [atConnect] = await late.waitFor(1, { event: 'changed' });
      expect(atConnect?.data.status).to.equal('enriched');
      expect(atConnect?.id).to.equal(changes[1]?.id);
      svc.clock.advance(30_000);
      const [beat] = await late.waitFor(1, { event: 'heartbeat' });
      expect(beat?.data).to.include({ type: 'heartbeat', vehicle_id: vehicleId, status: null });
      expect(late.events.filter((e) => e.event === 'changed')).to.have.length(1);
      late.close();
      updates.close();
    });

    it('concurrent searches of one new vehicle queue one lookup', async () => {
      const fiesta = { vrm: { plate: 'FD19 STL', location: { country: 'GB' } } };
      const answers = await Promise.all(Array.from({ length: 12 }, () => search({ vehicle: fiesta })));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(12).fill(200));
      expect(answers.every((a) => a.body.in_progress === true)).to.equal(true);
      const events = await svc.app.knex('es_events').where({ stream_id: `vehiclelookup-${vehicleIdOf(fiesta)}` }).select('type');
      expect(events.map((e) => e.type)).to.deep.equal(['VehicleLookupQueued']);
    });

    it('filters by HCA ids (the node, what is under it and what is above it) and reports ids the vehicle lacks', async () => {
      const focus = { vrm: { plate: 'GF20FOC', location: { country: 'GB' } } };
      await search({ vehicle: focus });
      svc.clock.advance(2_000);
      await runLookupPass(svc.app);
      const updates = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: focus }, repairer.token);
      await updates.waitFor(1, { event: 'changed' });
      updates.close();
      const res = await search({ vehicle: focus, hca_ids: ['01.02', '03.01.01', '07.02.01'] });
      if (res.body.in_progress !== false) throw new Error('expected the answer');
      const ids = res.body.assemblies.map((n) => n.hca_id);
      expect(ids).to.include.members(['01', '01.02', '01.02.01', '03', '03.01', '03.01.01']);
      expect(ids.filter((i) => i.startsWith('01.01'))).to.deep.equal([]);
      // 07.02 is the high-voltage system: a diesel Focus has none.
      expect(res.body.unmatched_hca_ids).to.deep.equal(['07.02.01']);
      const bad = await svc.send('assemblies.v4.search', { vehicle: focus, hca_ids: ['wing'] }, repairer.token);
      expect([bad.status, bad.body.code, bad.body.type]).to.deep.equal([400, 'invalid_request', 'tier1.AssembliesSearchError']);
    });

    it('a chassis number of a line with two variants decodes the model but not the variant; the VRM tells it; an unknown vehicle is 404', async () => {
      const vin = { chassis_number: 'WVWZZZCDZMW999999' };
      const unknown = { vrm: { plate: 'ZZ99ZZZ', location: { country: 'GB' } } };
      await search({ vehicle: vin });
      await search({ vehicle: unknown });
      svc.clock.advance(2_000);
      const pass = await runLookupPass(svc.app);
      expect(pass.trees).to.be.greaterThan(0);
      expect(pass.not_found).to.equal(1);
      const updates = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: unknown }, repairer.token);
      const [failed] = await updates.waitFor(1, { event: 'changed' });
      expect(failed?.data.status).to.equal('not_found');
      updates.close();
      const missing = await search({ vehicle: unknown });
      expect([missing.status, missing.body.code]).to.deep.equal([404, 'vehicle_not_found']);
      const byVin = await search({ vehicle: vin });
      if (byVin.body.in_progress !== false) throw new Error(`expected the answer: ${JSON.stringify(byVin.body)}`);
      expect(byVin.body.vehicle).to.include({ make: 'Volkswagen', model: 'Golf', variant: null, trim: null, colour: null, decoded_from: 'chassis_number' });
      expect(byVin.body.vehicle.candidates.map((c) => c.variant).sort()).to.deep.equal(['1.4 TSI eHybrid GTE', '1.5 TSI 130 Life']);
      // Either variant's nodes: the plug-in hybrid's charging flap and the petrol one's exhaust.
      expect(byVin.body.assemblies.map((n) => n.name)).to.include.members(['Charging port flap', 'Catalytic converter']);
    });

    it('experimental search: synonyms, stemming and typos, ranked, with the match explained', async () => {
      const find = async (query: string) => {
        const res = await svc.call(ops['assemblies.experimental.search'], { query, limit: 5 }, repairer.token);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body.items;
      };
      const hood = await find('hood');
      expect(hood[0]).to.deep.include({ hca_id: '01.01.01', name: 'Bonnet', level: 'part' });
      expect(hood[0]?.match).to.deep.include({ field: 'synonym', term: 'hood', method: 'exact' });
      expect(hood[0]?.path).to.deep.equal(['Body panels', 'Front end', 'Bonnet']);
      const fender = await find('fenders');
      expect(fender[0]?.name).to.match(/^Front wing/);
      expect(fender[0]?.match.method).to.equal('full_text');
      const typo = await find('bonet');
      expect(typo[0]?.name).to.equal('Bonnet');
      expect(typo[0]?.match.method).to.equal('trigram');
      expect(typo[0]?.match.similarity).to.be.greaterThan(0.5);
      const scores = typo.map((i) => i.score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(await find('qqqqzzzz')).to.deep.equal([]);
      const empty = await svc.send('assemblies.experimental.search', { query: '   ' }, repairer.token);
      expect([empty.status, empty.body.code, empty.body.type]).to.deep.equal([400, 'invalid_request', 'tier1.ExperimentalSearchError']);
    });

    it('documents the six names of the spec, the tier1 tag, and the streams as text/event-stream', async () => {
      const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, { post: { tags: string[]; responses: Record<string, { content: Record<string, unknown> }> } }>; components: { schemas: Record<string, unknown> } };
      const names = ['AssembliesSearchRequest', 'AssembliesSearchResponse', 'AssembliesSearchError', 'AssembliesUpdatesRequest', 'AssembliesUpdate', 'AssembliesSubscribeRequest', 'AssemblySubscribeEvent', 'ExperimentalSearchRequest', 'ExperimentalSearchResponse', 'ExperimentalSearchError'];
      expect(Object.keys(doc.components.schemas)).to.include.members(names.map((n) => `tier1.${n}`));
      for (const id of ['assemblies.v4.search', 'assemblies.experimental.search', 'assemblies.v4.updates.stream', 'assemblies.subscribe.stream']) expect(doc.paths[`/${id}`]?.post.tags).to.deep.equal(['tier1']);
      expect(Object.keys(doc.paths['/assemblies.subscribe.stream']?.post.responses['200']?.content ?? {})).to.deep.equal(['text/event-stream']);
    });

    it('streams answer bad input and missing credentials with a JSON error before any event', async () => {
      const bad = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: { vrm: { plate: 'X' } } }, repairer.token);
      expect([bad.status, bad.error?.code, bad.error?.type]).to.deep.equal([400, 'invalid_request', 'tier1.AssembliesSearchError']);
      const anon = await svc.send('assemblies.v4.updates.stream', { vehicle: golf }, null);
      expect([anon.status, anon.body.code]).to.deep.equal([401, 'unauthenticated']);
    });
  });
}
