// assemblies.subscribe.stream over real HTTP: replay from a resume point equals what a never-disconnected
// client saw; a reconnect mid-burst has no gap and no duplicate; 410 past retained history, 400 for a
// malformed point; an organization sees only its own searches.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { openStream, type SseEvent } from '../support/sse.ts';
import { ops } from '../support/ops.ts';
import { runLookupPass } from '../../src/workers/assemblies/lookups.ts';

const RETAINED = 50;
const golf = { vrm: { plate: 'AB21CDE', location: { country: 'GB' } } };
const STREAM = 'assemblies.subscribe.stream';

for (const backend of backends()) {
  describe(`assemblies.subscribe.stream (${backend})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { env: { VEHICLE_DATA_TREE_DELAY_MS: '1000', ASSEMBLY_SUBSCRIBE_RETENTION: String(RETAINED) } });
      // One vehicle with its tree ready, so every search completes.
      const o = await svc.signUp();
      await svc.call(ops['assemblies.v4.search'], { vehicle: golf }, o.token);
      svc.clock.advance(1_000);
      await runLookupPass(svc.app);
      const updates = await openStream(svc, 'assemblies.v4.updates.stream', { vehicle: golf }, o.token);
      await updates.waitFor(1, { event: 'changed' });
      updates.close();
    });
    after(async () => svc?.close());

    /** n completed searches by `token`, `parallel` at a time. */
    async function searches(token: string, n: number, parallel = 1): Promise<void> {
      for (let i = 0; i < n; i += parallel) {
        const batch = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, () => svc.call(ops['assemblies.v4.search'], { vehicle: golf, hca_ids: ['01.01'] }, token)));
        for (const r of batch) {
          expect(r.status, JSON.stringify(r.body)).to.equal(200);
          expect(r.body.in_progress).to.equal(false);
        }
      }
    }
    const searchIds = (events: SseEvent[]) => events.map((e) => String(e.data.search_id));

    it('a dashboard disconnected for an hour resumes from its last id and misses nothing: the replay equals what a connected one saw', async () => {
      const org = await svc.signUp();
      const connected = await openStream(svc, STREAM, {}, org.token);
      const dashboard = await openStream(svc, STREAM, {}, org.token);
      await searches(org.token, 3);
      const before = await dashboard.waitFor(3);
      dashboard.close();
      svc.clock.advance(3_600_000);
      await searches(org.token, 7, 3);
      await connected.waitFor(10);
      const lastId = before.at(-1)?.id ?? '';
      const resumed = await openStream(svc, STREAM, { resume_point: 'pg1:00000000000000000000:00000000000000000000' }, org.token, { 'Last-Event-ID': lastId });
      expect(resumed.status).to.equal(200);
      const replay = await resumed.waitFor(7);
      await searches(org.token, 2);
      const all = [...before, ...(await resumed.waitFor(9))];
      const reference = await connected.waitFor(12);
      expect(replay).to.have.length(7);
      expect(all).to.deep.equal(reference);
      expect(new Set(all.map((e) => e.id)).size).to.equal(12);
      for (const e of all) {
        expect(e.event).to.equal('search_completed');
        expect(e.id).to.equal(e.data.resume_point);
        // Bonnet's assembly (01.01) with its parts and its system above it.
        expect(e.data).to.deep.include({ hca_ids: ['01.01'], result_count: 11, enriched: false });
      }
      const ids = all.map((e) => String(e.id));
      expect(ids).to.deep.equal([...ids].sort());
      connected.close();
      resumed.close();
    });

    it('a client reconnecting mid-burst sees every search once, in log order', async () => {
      const org = await svc.signUp();
      const reference = await openStream(svc, STREAM, {}, org.token);
      const first = await openStream(svc, STREAM, {}, org.token);
      const burst = searches(org.token, 40, 4);
      const part = await first.waitFor(8);
      first.close();
      const cut = part.slice(0, first.events.length);
      const resumed = await openStream(svc, STREAM, { resume_point: String(cut.at(-1)?.id) }, org.token);
      await burst;
      const rest = await resumed.waitFor(40 - cut.length);
      const all = [...cut, ...rest];
      const seen = await reference.waitFor(40);
      expect(searchIds(all)).to.deep.equal(searchIds(seen));
      expect(new Set(searchIds(all)).size).to.equal(40);
      reference.close();
      resumed.close();
    });

    it(`keeps the newest ${RETAINED} searches per organization: a point before them is 410, a point at their edge still replays`, async () => {
      const org = await svc.signUp();
      const watcher = await openStream(svc, STREAM, {}, org.token);
      await searches(org.token, RETAINED + 6, 4);
      const seen = await watcher.waitFor(RETAINED + 6);
      watcher.close();
      // Retained: the newest 50, i.e. from the 7th on; the edge is the 6th.
      const gone = await openStream(svc, STREAM, { resume_point: String(seen[4]?.id) }, org.token);
      expect([gone.status, gone.error?.code, gone.error?.type]).to.deep.equal([410, 'resume_point_expired', 'tier1.AssembliesSearchError']);
      const edge = await openStream(svc, STREAM, { resume_point: String(seen[5]?.id) }, org.token);
      expect(edge.status).to.equal(200);
      expect(searchIds(await edge.waitFor(RETAINED))).to.deep.equal(searchIds(seen.slice(6)));
      edge.close();
    });

    it('a malformed or foreign resume point is 400 before the stream starts; Last-Event-ID wins over resume_point', async () => {
      const org = await svc.signUp();
      for (const [body, headers] of [
        [{ resume_point: 'yesterday' }, {}],
        [{ resume_point: 'esdb1:00000000000000000001:00000000000000000001' }, {}],
        [{}, { 'Last-Event-ID': 'pg1:1:2' }],
        [{ resume_point: 'pg1:00000000000000000000:00000000000000000000' }, { 'Last-Event-ID': 'not-a-position' }],
      ] as const) {
        const res = await openStream(svc, STREAM, body, org.token, headers);
        expect([res.status, res.error?.code, res.error?.type], JSON.stringify(body)).to.deep.equal([400, 'invalid_resume_point', 'tier1.AssembliesSearchError']);
      }
      const unknownField = await openStream(svc, STREAM, { resume_point: 'x', since: 1 }, org.token);
      expect([unknownField.status, unknownField.error?.code]).to.deep.equal([400, 'invalid_request']);
    });

    it("another organization's searches never appear in my stream, live or replayed", async () => {
      const mine = await svc.signUp();
      const theirs = await svc.signUp();
      const stream = await openStream(svc, STREAM, {}, mine.token);
      await searches(theirs.token, 3);
      await searches(mine.token, 1);
      const [only] = await stream.waitFor(1);
      await searches(theirs.token, 2);
      await searches(mine.token, 1);
      await stream.waitFor(2);
      expect(stream.events).to.have.length(2);
      const replay = await openStream(svc, STREAM, { resume_point: 'pg1:00000000000000000000:00000000000000000000' }, mine.token);
      expect(searchIds(await replay.waitFor(2))).to.deep.equal(searchIds(stream.events));
      expect(only?.event).to.equal('search_completed');
      stream.close();
      replay.close();
    });
  });
}
