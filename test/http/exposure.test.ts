// Finding 6: /metrics and /readyz need METRICS_TOKEN (or a direct local caller), the default bind is
// loopback, API and /docs answers carry nosniff and a CSP, and password hashes never enter the event log.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ops } from '../support/ops.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

for (const backend of backends()) {
  describe(`smaller exposures (${backend})`, () => {
    let svc: TestService;
    let guarded: TestService;
    before(async () => {
      svc = await startService(backend);
      guarded = await startService(backend, { env: { METRICS_TOKEN: TOKEN } });
    });
    after(async () => {
      await svc?.close();
      await guarded?.close();
    });

    it('answers /metrics and /readyz only with METRICS_TOKEN when one is set', async () => {
      for (const path of ['/metrics', '/readyz']) {
        expect((await fetch(`${guarded.url}${path}`)).status, `${path} without token`).to.equal(401);
        expect((await fetch(`${guarded.url}${path}`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, `${path} wrong token`).to.equal(401);
        expect((await fetch(`${guarded.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, `${path} right token`).to.equal(200);
      }
      // /healthz says only "up" and stays open for load balancers.
      expect((await fetch(`${guarded.url}/healthz`)).status).to.equal(200);
    });

    it('without METRICS_TOKEN answers them only to a direct local caller, not through a proxy', async () => {
      expect((await fetch(`${svc.url}/metrics`)).status).to.equal(200);
      const proxied = await fetch(`${svc.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(proxied.status).to.equal(401);
      expect(((await proxied.json()) as { code: string }).code).to.equal('unauthenticated');
      expect((await fetch(`${svc.url}/readyz`, { headers: { forwarded: 'for=203.0.113.9' } })).status).to.equal(401);
    });

    it('listens on 127.0.0.1 unless HOST says otherwise', () => {
      expect(loadConfig({}).host).to.equal('127.0.0.1');
      expect(loadConfig({ HOST: '0.0.0.0', SANDBOX_WEBHOOK_SECRET: 'an-operator-secret-of-32-characters' }).host).to.equal('0.0.0.0');
    });

    it('answers an operation alike on its canonical path (the fast lane) and on the other paths express routes to it', async () => {
      const user = await svc.signUp();
      const call = (path: string, body: string | undefined, method = 'POST') =>
        fetch(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', 'x-request-id': 'routing-1' }, body });
      const answers = [];
      for (const path of ['/api/v1/auth.sessions.get', '/api/v1/auth.sessions.get/', '/api/v1/auth%2Esessions.get']) {
        const ok = await call(path, '{}');
        const broken = await call(path, '{');
        answers.push({ status: ok.status, body: await ok.json(), broken: broken.status, brokenBody: await broken.json(), requestId: ok.headers.get('x-request-id'), nosniff: ok.headers.get('x-content-type-options') });
      }
      expect(answers[0]).to.deep.include({ status: 200, broken: 400, requestId: 'routing-1', nosniff: 'nosniff' });
      expect(answers[0]?.body).to.have.property('user');
      expect(answers[0]?.brokenBody).to.deep.equal({ type: svc.app.registry.get('core', 'auth.sessions.get')?.error, code: 'malformed_json', message: 'The request body is not valid JSON.', request_id: 'routing-1' });
      expect(answers[1]).to.deep.equal(answers[0]);
      expect(answers[2]).to.deep.equal(answers[0]);
      const get = await call('/api/v1/auth.sessions.get', undefined, 'GET');
      expect(get.status).to.equal(405);
      expect(get.headers.get('allow')).to.equal('POST');
    });

    it('sends X-Content-Type-Options: nosniff and a Content-Security-Policy on API answers (also errors) and the /docs pages', async () => {
      const user = await svc.signUp();
      const answers = [
        await fetch(`${svc.url}/api/v1/auth.sessions.get`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` } }),
        await fetch(`${svc.url}/api/v1/billing.customers.get`, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' }, body: '{' }),
        await fetch(`${svc.url}/api/v1/no.such.operation`, { method: 'POST' }),
        await fetch(`${svc.url}/api/v1/openapi.json`),
        await fetch(`${svc.url}/docs/guide`),
      ];
      for (const r of answers) {
        expect(r.headers.get('x-content-type-options'), r.url).to.equal('nosniff');
        const csp = r.headers.get('content-security-policy') ?? '';
        expect(csp, r.url).to.contain("default-src 'none'");
        expect(csp, r.url).to.contain("frame-ancestors 'none'");
        expect(csp, r.url).to.not.contain('script-src');
      }
      // The reference runs scripts of this origin only (no inline code, no eval) and talks only to this origin.
      const reference = (await fetch(`${svc.url}/docs`)).headers.get('content-security-policy') ?? '';
      expect(reference).to.contain("default-src 'none'").and.contain("script-src 'self';").and.contain("connect-src 'self';").and.contain("frame-ancestors 'none'");
      expect(reference).to.not.contain('unsafe-eval');
    });

    it('keeps password hashes out of the event log: the user stream says a password was set; sign-in still works', async () => {
      const user = await svc.signUp({ password: 'a very secret password' });
      const rows = (await svc.app.knex('es_events').where('stream_id', `user-${user.userId}`).orderBy('revision').select('type', 'data')) as { type: string; data: unknown }[];
      expect(rows.map((r) => r.type)).to.deep.equal(['UserRegistered', 'PasswordSet']);
      const all = (await svc.app.knex('es_events').select(svc.app.knex.raw('data::text as text'))) as { text: string }[];
      expect(all.filter((r) => r.text.includes('scrypt') || r.text.includes('password_hash'))).to.deep.equal([]);
      const doc = (await svc.app.knex('identity_users').where('id', user.userId).first('doc')) as { doc: Record<string, unknown> };
      expect(doc.doc).to.not.have.property('password_hash');
      const ok = await svc.call(ops['auth.sessions.insert'], { email: user.email, password: 'a very secret password' });
      expect(ok.status).to.equal(200);
      expect((await svc.call(ops['auth.sessions.insert'], { email: user.email, password: 'not the password' })).status).to.equal(401);
    });
  });
}
