// analytics.events.insert over HTTP: origin and referer recorded as given (null when absent), counts per name and UTC day,
// bad events refused without a write, retries recorded once, and a burst of concurrent events all counted.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';

for (const backend of backends()) {
  describe(`analytics events (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    const eventCount = async () => Number((await svc.app.knex('es_events').where({ type: 'AnalyticsEventRecorded' }).count({ n: '*' }))[0]?.n ?? 0);
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());

    it('records the origin and referer headers as given, and null when they are absent', async () => {
      const me = await svc.signUp();
      const withHeaders = await svc.call(ops['analytics.events.insert'], { name: 'search.completed', properties: { hits: 3, vrm: 'AB12CDE' } }, me.token, { origin: 'https://estimator.example', referer: 'https://estimator.example/jobs/42?tab=parts' });
      expect(withHeaders.status).to.equal(200);
      expect(withHeaders.body).to.deep.include({ name: 'search.completed', origin: 'https://estimator.example', referer: 'https://estimator.example/jobs/42?tab=parts' });
      svc.clock.advance(1000);
      const without = await svc.call(ops['analytics.events.insert'], { name: 'page_view' }, me.token);
      expect([without.body.origin, without.body.referer]).to.deep.equal([null, null]);
      const listed = await svc.call(ops['analytics.events.list'], {}, me.token);
      expect(listed.body.items.map((e) => [e.name, e.origin, e.referer, e.properties])).to.deep.equal([
        ['search.completed', 'https://estimator.example', 'https://estimator.example/jobs/42?tab=parts', { hits: 3, vrm: 'AB12CDE' }],
        ['page_view', null, null, {}],
      ]);
    });

    it('counts events per name and UTC day of occurred_at, for the caller\'s organization only', async () => {
      const me = await svc.signUp();
      const other = await svc.signUp();
      const now = svc.clock.now();
      const yesterday = new Date(now.getTime() - 86_400_000);
      const day = (d: Date) => d.toISOString().slice(0, 10);
      const sends = [
        ...Array.from({ length: 3 }, () => ({ name: 'search.completed' })),
        ...Array.from({ length: 2 }, () => ({ name: 'search.completed', occurred_at: yesterday.toISOString() })),
        { name: 'page_view', occurred_at: yesterday.toISOString() },
      ];
      for (const body of sends) expect((await svc.call(ops['analytics.events.insert'], body, me.token)).status).to.equal(200);
      await svc.call(ops['analytics.events.insert'], { name: 'search.completed' }, other.token);
      const counts = await svc.call(ops['analytics.counts.list'], { from: day(yesterday), to: day(now) }, me.token);
      expect(counts.body.items).to.deep.equal([
        { day: day(yesterday), name: 'page_view', count: 1 },
        { day: day(yesterday), name: 'search.completed', count: 2 },
        { day: day(now), name: 'search.completed', count: 3 },
      ]);
      const one = await svc.call(ops['analytics.counts.list'], { from: day(now), to: day(now), name: 'search.completed' }, me.token);
      expect(one.body.items).to.deep.equal([{ day: day(now), name: 'search.completed', count: 3 }]);
      const page = await svc.call(ops['analytics.counts.list'], { from: day(yesterday), to: day(now), limit: 2 }, me.token);
      const rest = await svc.call(ops['analytics.counts.list'], { from: day(yesterday), to: day(now), limit: 2, cursor: page.body.pagination?.cursor }, me.token);
      expect([...page.body.items, ...rest.body.items]).to.deep.equal(counts.body.items);
      const backwards = await svc.call(ops['analytics.counts.list'], { from: day(now), to: day(yesterday) }, me.token);
      expect([backwards.status, backwards.body.code]).to.deep.equal([400, 'invalid_period']);
    });

    it('refuses a bad event with a 400 and records nothing', async () => {
      const me = await svc.signUp();
      const before = await eventCount();
      const future = new Date(svc.clock.now().getTime() + 3_600_000).toISOString();
      const old = new Date(svc.clock.now().getTime() - 31 * 86_400_000).toISOString();
      const tooLate = await svc.call(ops['analytics.events.insert'], { name: 'x', occurred_at: future }, me.token);
      const tooOld = await svc.call(ops['analytics.events.insert'], { name: 'x', occurred_at: old }, me.token);
      expect([tooLate.status, tooLate.body.code, tooOld.status, tooOld.body.code]).to.deep.equal([400, 'occurred_at_out_of_range', 400, 'occurred_at_out_of_range']);
      for (const body of [{ name: '' }, { name: 'has space' }, { name: 'x', properties: { nested: { a: 1 } } }, { name: 'x', extra: true }, { name: 'x', properties: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }]) {
        const res = await svc.send('analytics.events.insert', body, me.token);
        expect([res.status, res.body.code], JSON.stringify(body).slice(0, 80)).to.deep.equal([400, 'invalid_request']);
      }
      expect(await eventCount()).to.equal(before);
    });

    it('records a retried request (same Idempotency-Key) once, and every one of a burst of concurrent events', async () => {
      const me = await svc.signUp();
      const before = await eventCount();
      const a = await svc.call(ops['analytics.events.insert'], { name: 'retry.me' }, me.token, { 'idempotency-key': 'evt-1' });
      const b = await svc.call(ops['analytics.events.insert'], { name: 'retry.me' }, me.token, { 'idempotency-key': 'evt-1' });
      expect(b.body.id).to.equal(a.body.id);
      expect(await eventCount()).to.equal(before + 1);
      const replies = await Promise.all(Array.from({ length: 64 }, (_, i) => svc.call(ops['analytics.events.insert'], { name: 'burst', properties: { i } }, me.token)));
      expect(replies.map((r) => r.status)).to.deep.equal(replies.map(() => 200));
      const today = svc.clock.now().toISOString().slice(0, 10);
      const counts = await svc.call(ops['analytics.counts.list'], { from: today, to: today, name: 'burst' }, me.token);
      expect(counts.body.items).to.deep.equal([{ day: today, name: 'burst', count: 64 }]);
      expect(await eventCount()).to.equal(before + 65);
    });
  });
}
