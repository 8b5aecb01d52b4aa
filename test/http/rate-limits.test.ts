// Finding 4: failed sign-ins (per account, per source address; API and page) and failed client secrets
// (per client) are limited with 429 and Retry-After; the window is moved with the injected clock.
import { expect } from 'chai';
import pino from 'pino';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, logIn } from '../support/web.ts';
import { approve, authorizeUrl, registerClient } from '../support/integrations.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ops } from '../support/ops.ts';

const LIMITS = { RATE_LIMIT_LOGIN_PER_ACCOUNT: '3', RATE_LIMIT_LOGIN_PER_ADDRESS: '8', RATE_LIMIT_CLIENT_SECRET: '3', RATE_LIMIT_WINDOW_SECONDS: '600' };

for (const backend of backends()) {
  describe(`rate limits on credentials (${backend})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startService(backend, { env: LIMITS });
    });
    after(async () => svc?.close());
    // Each test starts with fresh windows.
    beforeEach(() => svc.clock.advance(601_000));

    const signIn = (email: string, password: string, base = svc.url) =>
      fetch(`${base}/api/v1/auth.sessions.insert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as { code?: string; type?: string } }));

    it('refuses an account with 429 and Retry-After after 3 wrong passwords, even with the right one, until the window passes', async () => {
      const u = await svc.signUp({ password: 'right password 1' });
      for (let i = 0; i < 3; i++) expect((await signIn(u.email, 'wrong password')).status).to.equal(401);
      const limited = await signIn(u.email, 'right password 1');
      expect(limited.status).to.equal(429);
      expect(limited.body.code).to.equal('rate_limited');
      expect(limited.body.type).to.equal('auth.SessionInsertError');
      expect(Number(limited.retryAfter)).to.be.within(590, 600);
      // The e-mail's case does not make a new account key.
      expect((await signIn(u.email.toUpperCase(), 'right password 1')).status).to.equal(429);
      svc.clock.advance(300_000);
      const later = await signIn(u.email, 'right password 1');
      expect(later.status).to.equal(429);
      expect(Number(later.retryAfter)).to.be.within(290, 300);
      svc.clock.advance(301_000);
      expect((await signIn(u.email, 'right password 1')).status).to.equal(200);
    });

    it('a successful sign-in clears the account failures', async () => {
      const u = await svc.signUp({ password: 'right password 2' });
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 2; i++) expect((await signIn(u.email, 'wrong')).status).to.equal(401);
        expect((await signIn(u.email, 'right password 2')).status).to.equal(200);
      }
    });

    it('limits one source address across accounts (8 failures), and the sign-in page shares the counters', async () => {
      const users = await Promise.all([1, 2, 3].map(() => svc.signUp({ password: 'right password 3' })));
      const fourth = await svc.signUp({ password: 'right password 3' });
      for (const u of users) for (let i = 0; i < 2; i++) expect((await signIn(u.email, 'wrong')).status).to.equal(401);
      const web = new WebClient(svc.url);
      expect((await logIn(web, fourth.email, 'wrong')).status).to.equal(401);
      expect((await logIn(web, fourth.email, 'wrong')).status).to.equal(401);
      // 8 failures from this address: a fresh account is refused too, on the API and on the page.
      expect((await signIn(fourth.email, 'right password 3')).status).to.equal(429);
      const page = await logIn(web, fourth.email, 'right password 3');
      expect(page.status).to.equal(429);
      expect(Number(page.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(page.html).to.contain('Too many');
      svc.clock.advance(601_000);
      expect((await logIn(web, fourth.email, 'right password 3')).status).to.equal(303);
    });

    it('shares counters between two processes on the same database (two serve instances)', async () => {
      const second = await createApp(loadConfig({ DATA_DIR: '/tmp/core-server-test-unused', ...LIMITS }), { db: svc.db, clock: svc.clock, projections: false, migrate: false, logger: pino({ level: 'silent' }) });
      try {
        const url2 = await second.listen(0, '127.0.0.1');
        const u = await svc.signUp({ password: 'right password 4' });
        expect((await signIn(u.email, 'wrong')).status).to.equal(401);
        expect((await signIn(u.email, 'wrong', url2)).status).to.equal(401);
        expect((await signIn(u.email, 'wrong')).status).to.equal(401);
        expect((await signIn(u.email, 'right password 4', url2)).status).to.equal(429);
      } finally {
        await second.close();
      }
    });

    it('limits wrong client secrets on integrations.insert per client; the right secret works after the window', async () => {
      const owner = await svc.signUp();
      const client = await registerClient(svc, { scopes: ['repairer'] });
      const back = await approve(svc, authorizeUrl(svc, { clientId: client.clientId, redirectUrl: client.redirectUrl, state: 's', scopes: 'repairer' }), owner.token);
      const code = back.searchParams.get('code') ?? '';
      const exchange = (secret: string) => svc.callIntegration(ops['integrations.insert'], { access_code: code, client_id: client.clientId, client_secret: secret });
      for (let i = 0; i < 3; i++) expect((await exchange('svc_secret_wrong')).status).to.equal(401);
      const limited = await exchange(client.clientSecret);
      expect(limited.status).to.equal(429);
      expect(limited.body.code).to.equal('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).to.be.within(590, 600);
      svc.clock.advance(601_000);
      const ok = await exchange(client.clientSecret);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body.api_key).to.match(/^svc_key_/);
    });
  });
}

// Issue 25: X-Forwarded-For is believed only from the proxies TRUST_PROXY names. Every request here comes from 127.0.0.1.
for (const backend of backends()) {
  describe(`the per-address sign-in limit and TRUST_PROXY (${backend})`, function () {
    this.timeout(180_000);
    const attempts = async (svc: TestService, forwardedFor: (i: number) => string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) {
        const res = await fetch(`${svc.url}/api/v1/auth.sessions.insert`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor(i) },
          body: JSON.stringify({ email: `nobody-${i}-${Date.now()}@example.com`, password: 'wrong password' }),
        });
        statuses.push(res.status);
        await res.body?.cancel();
      }
      return statuses;
    };

    it('with the default configuration, 60 failures under 60 forged X-Forwarded-For addresses reach 429 after the 50th', async () => {
      const svc = await startService(backend);
      try {
        const statuses = await attempts(svc, (i) => `203.0.113.${i + 1}`);
        expect(statuses.slice(0, 50).every((s) => s === 401), statuses.join()).to.equal(true);
        expect(statuses.slice(50).every((s) => s === 429), statuses.join()).to.equal(true);
      } finally {
        await svc.close();
      }
    });

    it('with TRUST_PROXY=loopback, the forwarded address is counted: different addresses apart, one address up to its limit', async () => {
      const svc = await startService(backend, { env: { TRUST_PROXY: 'loopback' } });
      try {
        expect(await attempts(svc, (i) => `203.0.113.${i + 1}`)).to.deep.equal(Array.from({ length: 60 }, () => 401));
        const one = await attempts(svc, () => '198.51.100.7');
        expect(one.slice(0, 50).every((s) => s === 401) && one.slice(50).every((s) => s === 429), one.join()).to.equal(true);
      } finally {
        await svc.close();
      }
    });
  });
}
