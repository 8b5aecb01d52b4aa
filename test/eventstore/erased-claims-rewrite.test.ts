// Issue 32: users erased before erasure released email claims kept their claim, so their address could never register
// again. `log encrypt-personal-data` (run once by operators) releases every claim an erased user still holds, under
// the legacy name or the keyed one; its dry run counts them, and a second run finds none.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { backends, openTestDb } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { systemContext } from '../support/system.ts';
import { logText } from '../support/log-rewrite.ts';
import type { Db } from '../../src/db.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { createUser } from '../../src/commands/identity/identity.ts';
import { emailClaimStreams, legacyClaimStream } from '../../src/commands/identity/email-claim-streams.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { backupLog } from '../../src/eventstore/rewrite/backup.ts';
import { TableKeyStore } from '../../src/eventstore/key-table.ts';
import { encryptPersonalData } from '../../src/eventstore/rewrite/encrypt-personal-data.ts';
import { formatRewriteReport } from '../../src/cli/log.ts';

for (const backend of backends()) {
  describe(`log encrypt-personal-data releases claims of users erased before releases existed (${backend})`, () => {
    let db: Db;
    let dir: string;
    let svc: TestService;
    const legacyEmail = 'erased.early@claims.example';
    const keyedEmail = 'erased.keyed@claims.example';
    const reclaimedEmail = 'reclaimed@claims.example';
    const liveEmail = 'alive@claims.example';
    const liveLegacyEmail = 'alive.legacy@claims.example';
    const racedEmail = 'raced@claims.example';
    let keyedStream: string;
    let reclaimedStream: string;

    async function register(email: string): Promise<{ id: string } | { code: string }> {
      const org = await svc.signUp();
      try {
        return { id: (await createUser(systemContext(svc.app), { email, password: 'correct horse battery', organizationId: org.orgId, role: 'member' })).id };
      } catch (err) {
        if (err instanceof DomainError) return { code: err.code };
        throw err;
      }
    }
    const idOf = (r: { id: string } | { code: string }) => {
      if (!('id' in r)) throw new Error(`not registered: ${r.code}`);
      return r.id;
    };
    const streamTypes = async (stream: string) => ((await db.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('type')) as { type: string }[]).map((r) => r.type);

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-claims-'));
      db = await openTestDb(backend);
      svc = await startService(backend, { db });
      const platform = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
      const erase = async (id: string) => expect((await svc.call(ops['identity.users.erase'], { id, legal_basis: 'consent_withdrawn', reason: 'before releases' }, platform)).status).to.equal(200);

      // Older deployment's users, their claims under the legacy name: one to be erased, one live.
      const meta = { org_id: null, actor: { type: 'system' as const, id: 'legacy' }, request_id: null, correlation_id: null, causation_id: null };
      const at = svc.clock.now().toISOString();
      const legacyUser = async (email: string) => {
        const id = crypto.randomUUID();
        await svc.app.store.appendToStream(legacyClaimStream(email), [{ id: crypto.randomUUID(), type: 'EmailClaimed', data: { email, user_id: id }, metadata: meta }], { expectedRevision: 'no_stream' });
        await svc.app.store.appendToStream(`user-${id}`, [
          { id: crypto.randomUUID(), type: 'UserRegistered', data: { user_id: id, email, name: 'Early Bird', registered_at: at }, metadata: meta },
          { id: crypto.randomUUID(), type: 'PasswordSet', data: { set_at: at }, metadata: meta },
        ], { expectedRevision: 'no_stream' });
        return id;
      };
      const early = await legacyUser(legacyEmail);
      await legacyUser(liveLegacyEmail);
      // The race of an upgrade: a new process claimed the keyed name, a previous one the legacy name, and the new one
      // gave its claim back: both names hold events, the legacy one the claim.
      const racedKeyed = (await emailClaimStreams(svc.app.personalData.keys, racedEmail, svc.clock.now())).keyed;
      const loser = crypto.randomUUID();
      await svc.app.store.appendToStream(racedKeyed, [{ id: crypto.randomUUID(), type: 'EmailClaimed', data: { email: racedEmail, user_id: loser }, metadata: meta }], { expectedRevision: 'no_stream' });
      await legacyUser(racedEmail);
      await svc.app.store.appendToStream(racedKeyed, [{ id: crypto.randomUUID(), type: 'EmailClaimReleased', data: { user_id: loser }, metadata: meta }], { expectedRevision: 0n });
      const keyed = idOf(await register(keyedEmail));
      keyedStream = (await emailClaimStreams(svc.app.personalData.keys, keyedEmail, svc.clock.now())).keyed;
      // Erased, then their releases removed: the log as erasure wrote it before it released claims.
      for (const id of [early, keyed]) await erase(id);
      await db.knex('es_events').whereIn('stream_id', [legacyClaimStream(legacyEmail), keyedStream]).where({ type: 'EmailClaimReleased' }).delete();

      // Not to be touched: an erased user whose released address another user holds now, and a live user.
      const before = idOf(await register(reclaimedEmail));
      await erase(before);
      idOf(await register(reclaimedEmail));
      reclaimedStream = (await emailClaimStreams(svc.app.personalData.keys, reclaimedEmail, svc.clock.now())).keyed;
      idOf(await register(liveEmail));
    });
    after(async () => {
      await svc?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('before the rewrite, the early erased users\' addresses cannot register', async () => {
      expect(await register(legacyEmail)).to.deep.equal({ code: 'email_taken' });
      expect(await register(keyedEmail)).to.deep.equal({ code: 'email_taken' });
      expect(await streamTypes(legacyClaimStream(legacyEmail))).to.deep.equal(['EmailClaimed']);
      expect(await streamTypes(keyedStream)).to.deep.equal(['EmailClaimed']);
    });

    it('the dry run counts the two held claims and the three legacy claim streams, and writes nothing', async () => {
      const log = await logText(db.knex);
      const dry = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => svc.clock.now(), dryRun: true });
      expect(dry.claims_released).to.equal(2);
      expect(dry.claim_streams_renamed).to.equal(3);
      expect(formatRewriteReport(dry)).to.include('email claims of erased users released (would be): 2');
      expect(formatRewriteReport(dry)).to.include('email claim streams moved from unkeyed to keyed names (would be): 3');
      expect(await logText(db.knex)).to.deep.equal(log);
    });

    it('the run releases them under whichever name holds them, and the addresses register again; a second run releases nothing', async () => {
      await svc.app.close();
      const backup = await backupLog(db.knex, path.join(dir, 'log.jsonl'), svc.clock.now());
      const report = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => svc.clock.now(), backupFile: backup.file });
      expect(report.claims_released).to.equal(2);
      expect(report.claim_streams_renamed).to.equal(3);
      expect(formatRewriteReport(report)).to.include('email claims of erased users released: 2');
      expect(await streamTypes(keyedStream)).to.deep.equal(['EmailClaimed', 'EmailClaimReleased']);
      // No claim stream is left under a name computable from an address without the key.
      for (const email of [legacyEmail, liveLegacyEmail, racedEmail]) expect(await streamTypes(legacyClaimStream(email))).to.deep.equal([]);
      const names = ((await db.knex('es_events').where('stream_id', 'like', 'useremail-%').distinct('stream_id')) as { stream_id: string }[]).map((r) => r.stream_id);
      expect(names.filter((n) => /^useremail-[0-9a-f]{8}-[0-9a-f]{4}-5/.test(n))).to.deep.equal([]);
      // The live legacy user's claim is under its address's keyed name now (key made by the running service).
      const liveKeyed = (await emailClaimStreams(new TableKeyStore(db.knex), liveLegacyEmail, svc.clock.now())).keyed;
      expect(await streamTypes(liveKeyed)).to.deep.equal(['EmailClaimed']);
      // The raced address: one stream, its holder the legacy claimant (the keyed claim given back comes first).
      const racedKeyed = (await emailClaimStreams(new TableKeyStore(db.knex), racedEmail, svc.clock.now())).keyed;
      expect(((await db.knex('es_events').where({ stream_id: racedKeyed }).orderBy('revision').select('type', 'revision')) as { type: string; revision: string | number }[]).map((r) => `${r.revision}:${r.type}`)).to.deep.equal(['0:EmailClaimed', '1:EmailClaimReleased', '2:EmailClaimed']);
      expect(await streamTypes(reclaimedStream)).to.deep.equal(['EmailClaimed', 'EmailClaimReleased', 'EmailClaimed']);
      // The releases are appended events: a rerun needs a backup that holds them.
      const log = await logText(db.knex);
      const second = await backupLog(db.knex, path.join(dir, 'log-2.jsonl'), svc.clock.now());
      const again = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => svc.clock.now(), backupFile: second.file });
      expect(again).to.include({ claims_released: 0, claim_streams_renamed: 0 });
      expect(await logText(db.knex)).to.deep.equal(log);

      svc = await startService(backend, { db, clock: svc.clock });
      for (const email of [legacyEmail, keyedEmail]) {
        expect(await register(email)).to.have.property('id');
        await svc.app.runner.waitFor(await svc.app.store.headPosition(), [identityProjection], 10_000);
        expect((await svc.call(ops['auth.sessions.insert'], { email, password: 'correct horse battery' })).status).to.equal(200);
      }
      expect(await register(liveEmail)).to.deep.equal({ code: 'email_taken' });
      expect(await register(liveLegacyEmail)).to.deep.equal({ code: 'email_taken' });
      expect(await register(racedEmail)).to.deep.equal({ code: 'email_taken' });
      expect(await register(reclaimedEmail)).to.deep.equal({ code: 'email_taken' });
    });
  });
}
