// Issue 32: an email's claim stream is named by a keyed hash (the key is outside the log), so whoever holds the log
// cannot confirm that an address registered by hashing a guess. Claims an older deployment made under the unkeyed
// name (uuid v5 of the email) still hold their address, and erasure releases them; the first claimant still wins.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { systemContext } from '../support/system.ts';
import { createUser } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { EMAIL_CLAIM_KEY_SUBJECT, emailClaimStreams, legacyClaimStream } from '../../src/commands/identity/email-claim-streams.ts';
import { ReservedSubjectError } from '../../src/eventstore/keys.ts';
import { nameId } from '../../src/ids.ts';

for (const backend of backends()) {
  describe(`email claims under a keyed name (${backend})`, () => {
    let svc: TestService;
    let platform: string;
    before(async () => {
      svc = await startService(backend);
      platform = (await svc.signUp({ kind: 'platform', role: 'member', staff: ['platform_staff'] })).token;
    });
    after(async () => svc?.close());

    /** Registers `email` as a member of a new organization: the new user's id, or the refusal's code. */
    async function register(email: string, password = 'correct horse battery'): Promise<{ id: string } | { code: string }> {
      const org = await svc.signUp();
      try {
        return { id: (await createUser(systemContext(svc.app), { email, password, organizationId: org.orgId, role: 'member' })).id };
      } catch (err) {
        if (err instanceof DomainError) return { code: err.code };
        throw err;
      }
    }

    /** Signs in over HTTP (once the identity read model has the user): the answer's status. */
    const signIn = async (email: string, password = 'correct horse battery') => {
      await svc.app.runner.waitFor(await svc.app.store.headPosition(), [identityProjection], 10_000);
      return (await svc.call(ops['auth.sessions.insert'], { email, password })).status;
    };
    const streamTypes = async (stream: string) => ((await svc.app.knex('es_events').where({ stream_id: stream }).orderBy('revision').select('type')) as { type: string }[]).map((r) => r.type);

    /** A user as an older deployment wrote it: registered, its claim under the legacy (unkeyed) name. */
    async function legacyUser(email: string): Promise<string> {
      const id = crypto.randomUUID();
      const meta = { org_id: null, actor: { type: 'system' as const, id: 'legacy' }, request_id: null, correlation_id: null, causation_id: null };
      const at = svc.clock.now().toISOString();
      await svc.app.store.appendToStream(legacyClaimStream(email), [{ id: crypto.randomUUID(), type: 'EmailClaimed', data: { email, user_id: id }, metadata: meta }], { expectedRevision: 'no_stream' });
      await svc.app.store.appendToStream(`user-${id}`, [
        { id: crypto.randomUUID(), type: 'UserRegistered', data: { user_id: id, email, name: 'Old Timer', registered_at: at }, metadata: meta },
        { id: crypto.randomUUID(), type: 'PasswordSet', data: { set_at: at }, metadata: meta },
      ], { expectedRevision: 'no_stream' });
      return id;
    }

    it('registers under a name derived with the claim key: the log holds no stream named by the email alone', async () => {
      const email = 'keyed01@claims.example';
      const res = await register(email);
      expect(res).to.have.property('id');
      expect(await signIn(email)).to.equal(200);
      // The unkeyed name an attacker would compute from a guess is nowhere in the log.
      expect(legacyClaimStream(email)).to.equal(`useremail-${nameId('email', email)}`);
      expect(await streamTypes(legacyClaimStream(email))).to.deep.equal([]);
      const { keyed } = await emailClaimStreams(svc.app.personalData.keys, email, svc.clock.now());
      expect(await streamTypes(keyed)).to.deep.equal(['EmailClaimed']);
      expect(keyed).to.match(/^useremail-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The key lives outside the log, once; a second address's claim is under another name from the same key.
      const keyRows = await svc.app.knex('data_subject_keys').where({ subject: EMAIL_CLAIM_KEY_SUBJECT }).select('key');
      expect(keyRows).to.have.length(1);
      expect(Buffer.from(keyRows[0].key as Uint8Array)).to.have.length(32);
      expect((await emailClaimStreams(svc.app.personalData.keys, 'other@claims.example', svc.clock.now())).keyed).to.not.equal(keyed);
      expect(await register(email)).to.deep.equal({ code: 'email_taken' });
    });

    it('a registered then erased user\'s address registers again, under the same keyed name', async () => {
      const email = 'again02@claims.example';
      const first = await register(email);
      if (!('id' in first)) throw new Error(`not registered: ${first.code}`);
      const erase = await svc.call(ops['identity.users.erase'], { id: first.id, legal_basis: 'consent_withdrawn', reason: 'Ticket 7001' }, platform);
      expect(erase.status, JSON.stringify(erase.body)).to.equal(200);
      const { keyed } = await emailClaimStreams(svc.app.personalData.keys, email, svc.clock.now());
      expect(await streamTypes(keyed)).to.deep.equal(['EmailClaimed', 'EmailClaimReleased']);
      const second = await register(email, 'a new horse battery');
      expect(second).to.have.property('id').that.not.equals(first.id);
      expect(await signIn(email, 'a new horse battery')).to.equal(200);
      expect(await streamTypes(keyed)).to.deep.equal(['EmailClaimed', 'EmailClaimReleased', 'EmailClaimed']);
      expect(await streamTypes(legacyClaimStream(email))).to.deep.equal([]);
    });

    it('a claim an older deployment made under the unkeyed name still holds its address, and erasing its user releases it there', async () => {
      const email = 'legacy03@claims.example';
      const id = await legacyUser(email);
      expect(await register(email)).to.deep.equal({ code: 'email_taken' });
      const { keyed } = await emailClaimStreams(svc.app.personalData.keys, email, svc.clock.now());
      // The refused registration wrote no claim.
      expect(await streamTypes(keyed)).to.deep.equal([]);
      const erase = await svc.call(ops['identity.users.erase'], { id, legal_basis: 'consent_withdrawn', reason: 'Ticket 7002' }, platform);
      expect(erase.status, JSON.stringify(erase.body)).to.equal(200);
      expect(await streamTypes(legacyClaimStream(email))).to.deep.equal(['EmailClaimed', 'EmailClaimReleased']);
      expect(await streamTypes(keyed)).to.deep.equal([]);
      expect(await register(email)).to.have.property('id');
      expect(await signIn(email)).to.equal(200);
      expect(await streamTypes(keyed)).to.deep.equal(['EmailClaimed']);
      expect(await streamTypes(legacyClaimStream(email))).to.deep.equal(['EmailClaimed', 'EmailClaimReleased']);
    });

    it('concurrent registrations of one address give exactly one winner, beside a released legacy claim; a held legacy claim lets none win', async () => {
      // A legacy claim released by erasure: the address is free, and its claimants race for the keyed name.
      const email = 'race04@claims.example';
      const old = await legacyUser(email);
      expect((await svc.call(ops['identity.users.erase'], { id: old, legal_basis: 'consent_withdrawn', reason: 'Ticket 7003' }, platform)).status).to.equal(200);
      const results = await Promise.all(Array.from({ length: 6 }, () => register(email)));
      const winners = results.filter((r) => 'id' in r);
      expect(winners, JSON.stringify(results)).to.have.length(1);
      expect(results.filter((r) => 'code' in r && r.code === 'email_taken')).to.have.length(5);
      const { keyed } = await emailClaimStreams(svc.app.personalData.keys, email, svc.clock.now());
      expect(await streamTypes(keyed)).to.deep.equal(['EmailClaimed']);
      expect(await signIn(email)).to.equal(200);

      // A legacy claim still held: every claimant is refused, and no keyed claim stays behind.
      const held = 'race05@claims.example';
      await legacyUser(held);
      const refused = await Promise.all(Array.from({ length: 4 }, () => register(held)));
      expect(refused).to.deep.equal(Array.from({ length: 4 }, () => ({ code: 'email_taken' })));
      expect(await streamTypes((await emailClaimStreams(svc.app.personalData.keys, held, svc.clock.now())).keyed)).to.deep.equal([]);
    });

    it('refuses to erase the claim key, which stays', async () => {
      const before = await svc.app.knex('data_subject_keys').where({ subject: EMAIL_CLAIM_KEY_SUBJECT }).first('key');
      let refusal: unknown;
      try {
        await svc.app.personalData.eraseSubjects([`user:${crypto.randomUUID()}`, EMAIL_CLAIM_KEY_SUBJECT], svc.clock.now());
      } catch (err) {
        refusal = err;
      }
      expect(refusal).to.be.instanceOf(ReservedSubjectError);
      expect((refusal as Error).message).to.match(/refusing to erase reserved key system:email-claims/);
      // The table refuses a tombstone too (migration 0167), whoever writes it.
      let sqlRefusal: unknown;
      try {
        await svc.app.knex('data_subject_keys').where({ subject: EMAIL_CLAIM_KEY_SUBJECT }).update({ key: null });
      } catch (err) {
        sqlRefusal = err;
      }
      expect(String(sqlRefusal)).to.match(/data_subject_keys_reserved_kept/);
      expect(await svc.app.knex('data_subject_keys').where({ subject: EMAIL_CLAIM_KEY_SUBJECT }).first('key')).to.deep.equal(before);
      const email = 'kept06@claims.example';
      expect(await register(email)).to.have.property('id');
      expect(await register(email)).to.deep.equal({ code: 'email_taken' });
    });
  });
}
