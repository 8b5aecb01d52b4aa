// Attacks on the install flow and the API keys, each one automated: replay, foreign codes, wrong secrets,
// expiry, mismatched integration ids, uninstall, and no plaintext secret anywhere in the database.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { approve, authorizeUrl, installIntegration, integrationHeaders, registerClient } from '../support/integrations.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { systemContext } from '../support/system.ts';
import { revokeClientSecret, rotateClientSecret } from '../../src/commands/integrations/clients.ts';

import { s256 } from '../../src/commands/integrations/access-codes.ts';
import { integrationsProjection } from '../../src/projections/integrations/integrations.ts';
import { ops } from '../support/ops.ts';

const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`integrations security (${backend})`, () => {
    let svc: TestService;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let clientA: Awaited<ReturnType<typeof registerClient>>;
    let clientB: Awaited<ReturnType<typeof registerClient>>;
    const secrets: string[] = [];

    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp();
      clientA = await registerClient(svc, { name: 'App A' });
      clientB = await registerClient(svc, { name: 'App B' });
      secrets.push(owner.token, clientA.clientSecret, clientB.clientSecret, PASSWORD);
    });
    after(async () => svc?.close());

    async function codeFor(client: { clientId: string; redirectUrl: string }, scopes = 'repairer'): Promise<string> {
      const back = await approve(svc, authorizeUrl(svc, { clientId: client.clientId, redirectUrl: client.redirectUrl, state: 's', scopes }), owner.token);
      const code = back.searchParams.get('code')!;
      secrets.push(code);
      return code;
    }
    async function exchange(code: string, client: { clientId: string; clientSecret: string }) {
      const res = await svc.callIntegration(ops['integrations.insert'], { access_code: code, client_id: client.clientId, client_secret: client.clientSecret });
      if (res.status === 200) secrets.push(res.body.api_key);
      return res;
    }
    const me = (key: { api_key: string; integration_id: string }) => svc.callIntegration(ops['integrations.get'], undefined, integrationHeaders({ apiKey: key.api_key, integrationId: key.integration_id }));

    it('exchanges a code once for a working key, with Cache-Control: no-store', async () => {
      const res = await exchange(await codeFor(clientA), clientA);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.api_key).to.match(/^svc_key_[0-9A-Za-z]{30,}$/);
      const got = await me(res.body);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.include({ integration_id: res.body.integration_id, client_id: clientA.clientId, scopes: ['repairer'] });
      expect(got.body.organization.id).to.equal(owner.orgId);
    });

    it('code replay: the second exchange fails with invalid_grant and the first key stops working', async () => {
      const code = await codeFor(clientA);
      const first = await exchange(code, clientA);
      expect(first.status).to.equal(200);
      const second = await exchange(code, clientA);
      expect(second.status).to.equal(400);
      expect(second.body).to.include({ type: 'integrations.IntegrationInsertError', code: 'invalid_grant' });
      expect(second.headers.get('cache-control')).to.equal('no-store');
      const after = await me(first.body);
      expect(after.status).to.equal(401);
      expect(after.body.code).to.equal('unauthenticated');
      const history = [];
      for await (const e of svc.app.store.readStream(`integration-${first.body.integration_id}`)) history.push(e);
      expect(history.map((e) => e.type)).to.deep.equal(['IntegrationInstalled', 'IntegrationRemoved']);
      expect(history[1]!.data).to.include({ reason: 'access_code_replayed' });
    });

    it('two exchanges of one code at the same time leave no working key', async () => {
      const code = await codeFor(clientA);
      const both = await Promise.all([exchange(code, clientA), exchange(code, clientA)]);
      expect(both.filter((r) => r.status === 200).length).to.be.at.most(1);
      for (const r of both.filter((x) => x.status !== 200)) expect(r.body.code).to.equal('invalid_grant');
      for (const r of both.filter((x) => x.status === 200)) expect((await me(r.body)).status).to.equal(401);
    });

    it("a code of client A exchanged with client B's credentials is invalid_grant (and A can still use it)", async () => {
      const code = await codeFor(clientA);
      const stolen = await exchange(code, clientB);
      expect(stolen.status).to.equal(400);
      expect(stolen.body.code).to.equal('invalid_grant');
      expect((await exchange(code, clientA)).status).to.equal(200);
    });

    it('a wrong secret, an unknown client or a secret of another client is 401 invalid_client, and the code survives', async () => {
      const code = await codeFor(clientA);
      for (const creds of [
        { clientId: clientA.clientId, clientSecret: clientA.clientSecret.slice(0, -1) + (clientA.clientSecret.endsWith('x') ? 'y' : 'x') },
        { clientId: clientA.clientId, clientSecret: clientB.clientSecret },
        { clientId: '01900000-0000-7000-8000-000000000000', clientSecret: clientA.clientSecret },
        { clientId: 'nonsense', clientSecret: 'nonsense' },
      ]) {
        const res = await exchange(code, creds);
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('invalid_client');
      }
      expect((await exchange(code, clientA)).status).to.equal(200);
    });

    it('an unknown or malformed code is invalid_grant; a malformed body is invalid_request', async () => {
      for (const code of ['svc_code_doesnotexist', 'x', clientA.clientSecret]) expect((await exchange(code, clientA)).body.code).to.equal('invalid_grant');
      const bad = await svc.send('integrations.insert', { access_code: 'x', client_id: clientA.clientId }, null, {}, 'integrations');
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_request');
    });

    it('an expired code (clock moved past 15 minutes) is invalid_grant; at 14:59 it still works', async () => {
      const early = await codeFor(clientA);
      const late = await codeFor(clientA);
      svc.clock.advance(14 * 60_000 + 59_000);
      expect((await exchange(early, clientA)).status).to.equal(200);
      svc.clock.advance(1_001);
      const res = await exchange(late, clientA);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('invalid_grant');
    });

    it('PKCE (S256): a code issued with a challenge needs the matching code_verifier; a verifier without a challenge is refused', async () => {
      const verifier = 'v'.repeat(20) + '-._~' + 'A1'.repeat(12);
      const withChallenge = async () => {
        const u = `${authorizeUrl(svc, { clientId: clientA.clientId, redirectUrl: clientA.redirectUrl, state: 'p', scopes: 'repairer' })}&code_challenge=${s256(verifier)}&code_challenge_method=S256`;
        const code = (await approve(svc, u, owner.token)).searchParams.get('code')!;
        secrets.push(code);
        return code;
      };
      const code = await withChallenge();
      const send = (c: string, code_verifier?: string) =>
        svc.callIntegration(ops['integrations.insert'], { access_code: c, client_id: clientA.clientId, client_secret: clientA.clientSecret, ...(code_verifier ? { code_verifier } : {}) });
      expect((await send(code)).body.code).to.equal('invalid_grant');
      expect((await send(code, 'w'.repeat(43))).body.code).to.equal('invalid_grant');
      const ok = await send(code, verifier);
      expect(ok.status).to.equal(200);
      secrets.push(ok.body.api_key);
      expect((await send(await codeFor(clientA), verifier)).body.code).to.equal('invalid_grant');
      for (const extra of ['&code_challenge_method=plain&code_challenge=' + verifier, '&code_challenge=short&code_challenge_method=S256', `&code_challenge=${s256(verifier)}`]) {
        const res = await fetch(authorizeUrl(svc, { clientId: clientA.clientId, redirectUrl: clientA.redirectUrl, state: 'p', scopes: 'repairer' }) + extra, { redirect: 'manual' });
        expect(res.status, extra).to.equal(303);
        expect(new URL(res.headers.get('location')!).searchParams.get('error'), extra).to.equal('invalid_request');
      }
    });

    it('a rotated secret works alongside the old one; a revoked secret is invalid_client', async () => {
      const ctx = systemContext(svc.app, 'test rotate');
      const rotated = await rotateClientSecret(ctx, clientB.clientId);
      secrets.push(rotated.clientSecret);
      await svc.app.runner.waitFor(rotated.position, [integrationsProjection], 10_000);
      expect((await exchange(await codeFor(clientB), clientB)).status).to.equal(200);
      expect((await exchange(await codeFor(clientB), { clientId: clientB.clientId, clientSecret: rotated.clientSecret })).status).to.equal(200);
      await svc.app.runner.waitFor(await revokeClientSecret(ctx, clientB.clientId, clientB.secretId), [integrationsProjection], 10_000);
      const old = await exchange(await codeFor(clientB), clientB);
      expect(old.status).to.equal(401);
      expect(old.body.code).to.equal('invalid_client');
      expect((await exchange(await codeFor(clientB), { clientId: clientB.clientId, clientSecret: rotated.clientSecret })).status).to.equal(200);
    });

    it('a valid key with the Svc-Integration-ID of another integration, or missing parts, is 401', async () => {
      const one = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      const two = await installIntegration(svc, { token: owner.token, scopes: ['supplier'] });
      secrets.push(one.apiKey, two.apiKey, one.clientSecret, two.clientSecret);
      const cases: Record<string, string>[] = [
        { authorization: `Bearer ${one.apiKey}`, 'svc-integration-id': two.integrationId },
        { authorization: `Bearer ${one.apiKey}` },
        { 'svc-integration-id': one.integrationId },
        {},
        { authorization: `Bearer ${one.apiKey}x`, 'svc-integration-id': one.integrationId },
        { authorization: `Basic ${one.apiKey}`, 'svc-integration-id': one.integrationId },
        { authorization: `Bearer ${owner.token}`, 'svc-integration-id': one.integrationId },
        { authorization: `Bearer ${one.apiKey}`, 'svc-integration-id': 'not-a-uuid' },
      ];
      for (const headers of cases) {
        const res = await svc.callIntegration(ops['integrations.get'], undefined, headers);
        expect(res.status, JSON.stringify(Object.keys(headers))).to.equal(401);
        expect(res.body).to.include({ type: 'integrations.IntegrationGetError', code: 'unauthenticated' });
      }
      expect((await svc.callIntegration(ops['integrations.get'], undefined, integrationHeaders(one))).status).to.equal(200);
    });

    it('after integrations.remove the key gets 401 at once; other installations keep working', async () => {
      const one = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      const two = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      secrets.push(one.apiKey, two.apiKey, one.clientSecret, two.clientSecret);
      const removed = await svc.callIntegration(ops['integrations.remove'], undefined, integrationHeaders(one));
      expect(removed.status).to.equal(200);
      expect(removed.body).to.deep.equal({});
      for (const op of ['integrations.get', 'integrations.remove']) {
        const res = await svc.send(op, undefined, null, integrationHeaders(one), 'integrations');
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('unauthenticated');
      }
      expect((await svc.callIntegration(ops['integrations.get'], undefined, integrationHeaders(two))).status).to.equal(200);
    });

    it('a dump of every table contains no plaintext secret, key, code, session token or password', async () => {
      // A browser login too, so a cookie session token and the password went through the pages.
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      secrets.push(decodeURIComponent(web.cookies.get('svc_session')!));
      const home = await web.get('/');
      secrets.push(hiddenFields(home.html, '/auth/logout').csrf!);
      const unused = await codeFor(clientA);
      secrets.push(unused);
      expect(secrets.length).to.be.greaterThan(20);
      const knex = svc.app.knex;
      const tables = (await knex('information_schema.tables').where({ table_type: 'BASE TABLE' }).whereRaw('table_schema = current_schema()').pluck('table_name')) as string[];
      expect(tables).to.include.members(['es_events', 'sessions', 'integration_access_codes', 'integration_installs', 'integration_clients', 'identity_users', 'idempotency_keys']);
      let dump = '';
      for (const t of tables) {
        const rows = (await knex.raw(`select t::text as row from "${t}" t`)).rows as { row: string }[];
        dump += rows.map((r) => r.row).join('\n');
      }
      expect(dump).to.contain('IntegrationInstalled');
      for (const s of new Set(secrets)) {
        const body = s.replace(/^svc_[a-z]+_/, '');
        expect(dump.includes(s) || dump.includes(body), `plaintext ${s.slice(0, 12)}... in the database`).to.equal(false);
      }
    });
  });
}
