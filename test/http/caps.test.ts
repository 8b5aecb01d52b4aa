// Issue 25 caps: open streams per token and per organization, upload URLs per organization per minute, and idempotency
// keys that expire after 24 h and are purged. Time moves with the injected clock.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type SseClient, openStream } from '../support/sse.ts';
import { configuredSeller, buyer, relate } from '../support/configuration.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import { idempotencyKeysWorker } from '../../src/workers/identity/idempotency-keys.ts';

const STREAM = 'assemblies.subscribe.stream';

for (const backend of backends()) {
  describe(`caps on open streams (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    const open: SseClient[] = [];
    before(async () => {
      svc = await startService(backend, { env: { STREAMS_PER_TOKEN: '2', STREAMS_PER_ORGANIZATION: '3' } });
    });
    after(async () => {
      for (const s of open) s.close();
      await svc?.close();
    });
    const stream = async (token: string) => {
      const s = await openStream(svc, STREAM, {}, token);
      if (s.status === 200) open.push(s);
      return s;
    };

    it('refuses a token past its streams and an organization past its streams with 429; a closed stream frees its slot', async () => {
      const owner = await svc.signUp();
      const second = (await createSession(svc.app.knex, { userId: owner.userId, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
      const first = await stream(owner.token);
      expect((await stream(owner.token)).status).to.equal(200);
      const third = await stream(owner.token);
      expect([third.status, third.error?.code, third.headers.get('retry-after')]).to.deep.equal([429, 'rate_limited', '10']);
      // Another token of the organization: one more stream fits, then the organization's 3 are open.
      expect((await stream(second)).status).to.equal(200);
      const overOrg = await stream(second);
      expect([overOrg.status, overOrg.error?.code]).to.deep.equal([429, 'rate_limited']);
      // Other organizations are not held back.
      expect((await stream((await svc.signUp()).token)).status).to.equal(200);

      first.close();
      // The server frees the slot when it sees the connection close; until then the answer is still 429.
      let reopened = await stream(owner.token);
      for (let i = 0; reopened.status === 429 && i < 500; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        reopened = await stream(owner.token);
      }
      expect(reopened.status).to.equal(200);
      expect((await stream(owner.token)).status).to.equal(429);
    });
  });

  describe(`cap on upload URLs per organization per minute (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { env: { RATE_LIMIT_UPLOAD_URLS_PER_MINUTE: '12' } });
    });
    after(async () => svc?.close());
    const files = (n: number) => Array.from({ length: n }, (_, i) => ({ filename: `f${i}.pdf`, content_type: 'application/pdf' as const, size: 100 }));

    it('attachment prepares count their URLs: past 12 a minute, 429 with Retry-After (nothing counted); the next minute they are issued again', async () => {
      const owner = await svc.signUp();
      const customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Capped Ltd', email: 'c@example.com', currency: 'GBP' }, owner.token)).body.id;
      const prepare = (n: number) => svc.call(ops['billing.customers.attachments.prepare'], { customer_id: customerId, files: files(n) }, owner.token);
      expect((await prepare(10)).status).to.equal(200);
      const over = await prepare(3);
      expect([over.status, over.body.code]).to.deep.equal([429, 'rate_limited']);
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
      expect((await prepare(2)).status).to.equal(200);
      expect((await prepare(1)).status).to.equal(429);
      const other = await svc.signUp();
      const otherCustomer = (await svc.call(ops['billing.customers.insert'], { name: 'Other Ltd', email: 'o@example.com', currency: 'GBP' }, other.token)).body.id;
      expect((await svc.call(ops['billing.customers.attachments.prepare'], { customer_id: otherCustomer, files: files(10) }, other.token)).status).to.equal(200);
      svc.clock.advance(60_000);
      expect((await prepare(10)).status).to.equal(200);
    });

    it('relationship evidence and async imports count towards the same cap of the organization', async () => {
      const c = await configuredSeller(svc);
      const rel = await relate(svc, c, await buyer(svc));
      const evidence = (n: number) => svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: files(n) }, c.billingStaff);
      expect((await evidence(10)).status).to.equal(200);
      const importPrepare = () => svc.call(ops['async-imports.prepare'], { kind: 'sellable_items', format: 'csv', size: 100 }, c.seller.token);
      expect((await importPrepare()).status).to.equal(200);
      expect((await importPrepare()).status).to.equal(200);
      const over = await importPrepare();
      expect([over.status, over.body.code]).to.deep.equal([429, 'rate_limited']);
      expect((await evidence(1)).body.code).to.equal('rate_limited');
    });
  });

  describe(`idempotency keys expire after 24 h and are purged (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend);
    });
    after(async () => svc?.close());
    const rows = async (key: string) => Number((await svc.app.knex('idempotency_keys').where({ key }).count({ n: '*' }))[0]?.n);

    it('a key is replayed for 24 h; then its row is purged and the same key with another body is a new request', async () => {
      const owner = await svc.signUp();
      const customerId = (await svc.call(ops['billing.customers.insert'], { name: 'Noted Ltd', email: 'n@example.com', currency: 'GBP' }, owner.token)).body.id;
      const insert = (token: string, key: string, body: string) => svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: customerId }, body }, token, { 'idempotency-key': key });
      const first = await insert(owner.token, 'purged-key', 'First Ltd');
      expect(first.status).to.equal(200);
      const kept = await insert(owner.token, 'kept-key', 'Kept Ltd');
      expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
      expect((await insert(owner.token, 'purged-key', 'Other Ltd')).body.code).to.equal('idempotency_key_reused');

      svc.clock.advance(23 * 3_600_000);
      expect((await idempotencyKeysWorker.runOnce(svc.app)).purged).to.equal(0);
      const replay = await insert(owner.token, 'purged-key', 'First Ltd');
      expect([replay.body.id, replay.headers.get('idempotent-replayed')]).to.deep.equal([first.body.id, 'true']);
      // A fresh key, 1 h before the others expire.
      const young = await insert(owner.token, 'young-key', 'Young Ltd');
      expect(young.status, JSON.stringify(young.body)).to.equal(200);

      svc.clock.advance(3_600_000 + 1000);
      // The session of sign-up lived 24 h: the same user signs in again (keys belong to the user in the organization).
      const token = (await createSession(svc.app.knex, { userId: owner.userId, organizationId: owner.orgId, now: svc.clock.now(), ttlHours: 24 })).token;
      const pass = await idempotencyKeysWorker.runOnce(svc.app);
      expect(pass.purged).to.be.at.least(2);
      expect([await rows('purged-key'), await rows('kept-key'), await rows('young-key')]).to.deep.equal([0, 0, 1]);
      const anew = await insert(token, 'purged-key', 'Other Ltd');
      expect(anew.status).to.equal(200);
      expect(anew.headers.get('idempotent-replayed')).to.equal(null);
      expect(anew.body.id).to.not.equal(first.body.id);
      expect(anew.body.body).to.equal('Other Ltd');
      expect((await idempotencyKeysWorker.runOnce(svc.app)).purged).to.equal(0);
    });
  });
}
