// The authorize page over plain HTTP: every rule of DOMAIN.md's list, sign-in on the way, and the safe return target.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { approve, registerClient, sessionCookie } from '../support/integrations.ts';
import { WebClient, hiddenFields, logIn } from '../support/web.ts';
import { systemContext } from '../support/system.ts';
import { addMember, createOrganization } from '../../src/commands/identity/identity.ts';
import { identityProjection } from '../../src/projections/identity/identity.ts';
import { ops } from '../support/ops.ts';


const PASSWORD = 'correct horse battery';

for (const backend of backends()) {
  describe(`authorize page over HTTP (${backend})`, () => {
    let svc: TestService;
    let owner: Awaited<ReturnType<TestService['signUp']>>;
    let client: Awaited<ReturnType<typeof registerClient>>;
    const REDIRECT = 'https://bodyshop-sync.example/oauth/callback';
    const url = (over: Record<string, string> = {}) =>
      `${svc.url}/auth/integration/authorize?${new URLSearchParams({ client_id: client.clientId, state: 'st-1', scopes: '["repairer"]', redirect_url: REDIRECT, ...over })}`;
    const path = (u: string) => u.slice(svc.url.length);

    before(async () => {
      svc = await startService(backend);
      owner = await svc.signUp({ name: 'Acme Bodyshop' });
      client = await registerClient(svc, { name: 'Bodyshop Sync', redirectUrls: [REDIRECT, 'https://bodyshop-sync.example/other?x=1'], scopes: ['repairer'] });
    });
    after(async () => svc?.close());

    async function get(u: string, token?: string) {
      return fetch(u, { headers: token ? { cookie: sessionCookie(svc, token) } : {}, redirect: 'manual' });
    }

    it('shows the consent page naming the app, each scope in words and the organization, with anti-framing headers', async () => {
      const res = await get(url(), owner.token);
      const html = await res.text();
      expect(res.status).to.equal(200);
      expect(html).to.contain('Bodyshop Sync').and.to.contain('Acme Bodyshop').and.to.contain('repair jobs');
      expect(html).to.match(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
      expect(html).to.match(/value="deny"[^>]*>Deny</);
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });

    it('accepts scopes as a JSON array, comma- or space-separated', async () => {
      for (const scopes of ['["repairer"]', 'repairer', 'repairer,repairer', 'repairer repairer', ' ["repairer"] ']) {
        const res = await get(url({ scopes }), owner.token);
        expect(res.status, scopes).to.equal(200);
        expect(hiddenFields(await res.text()).scopes, scopes).to.equal('repairer');
      }
    });

    it('an unknown client or a redirect_url not byte-identical to a registered one gets an error page, never a redirect', async () => {
      const tampered = [
        `${REDIRECT}/`,
        `${REDIRECT}?extra=1`,
        'https://evil.example/oauth/callback',
        REDIRECT.toUpperCase(),
        'https://bodyshop-sync.example/oauth/callback#frag',
        'https://bodyshop-sync.example/oauth/../oauth/callback',
        'https://bodyshop-sync.example/other',
        'https://bodyshop-sync.example/other?x=1&y=2',
      ];
      for (const redirect_url of tampered) {
        const res = await get(url({ redirect_url }), owner.token);
        expect(res.status, redirect_url).to.equal(400);
        expect(res.headers.get('location'), redirect_url).to.equal(null);
        expect(await res.text()).to.contain('Invalid installation link');
      }
      const missing = await get(`${svc.url}/auth/integration/authorize?client_id=${client.clientId}&state=s&scopes=repairer`, owner.token);
      expect(missing.status).to.equal(400);
      for (const client_id of ['not-a-uuid', '01900000-0000-7000-8000-000000000000', '']) {
        const res = await get(url({ client_id }), owner.token);
        expect(res.status, client_id).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        expect(await res.text()).to.contain('Unknown application');
      }
      const twice = await get(`${url()}&client_id=${client.clientId}`, owner.token);
      expect(twice.status).to.equal(400);
      expect(twice.headers.get('location')).to.equal(null);
    });

    it('a registered redirect URL with its own query is matched exactly and keeps its query', async () => {
      const back = await approve(svc, url({ redirect_url: 'https://bodyshop-sync.example/other?x=1' }), owner.token);
      expect(back.origin + back.pathname).to.equal('https://bodyshop-sync.example/other');
      expect(back.searchParams.get('x')).to.equal('1');
      expect(back.searchParams.get('code')).to.match(/^svc_code_/);
    });

    it('a bad scope goes back to the app with error=invalid_scope and the state verbatim', async () => {
      for (const scopes of ['["admin"]', '["supplier"]', '', '[]', '["repairer"', '{"a":1}', 'repairer,admin']) {
        const res = await get(url({ scopes, state: 'a b&c=d/é' }), owner.token);
        expect(res.status, scopes).to.equal(303);
        const loc = new URL(res.headers.get('location')!);
        expect(loc.origin + loc.pathname).to.equal(REDIRECT);
        expect(loc.searchParams.get('error'), scopes).to.equal('invalid_scope');
        expect(loc.searchParams.get('state')).to.equal('a b&c=d/é');
        expect(loc.searchParams.get('code')).to.equal(null);
      }
    });

    it('a missing state goes back with error=invalid_request', async () => {
      const res = await get(url({ state: '' }), owner.token);
      expect(res.status).to.equal(303);
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('allow: 303 to redirect_url with a code and the state verbatim', async () => {
      const state = 'xyz/+=?&%20 "quoted" ü';
      const back = await approve(svc, url({ state }), owner.token);
      expect(back.origin + back.pathname).to.equal(REDIRECT);
      expect(back.searchParams.get('code')).to.match(/^svc_code_/);
      expect(back.searchParams.get('state')).to.equal(state);
    });

    it('deny: 303 with error=access_denied and the state, no code', async () => {
      const back = await approve(svc, url({ state: 'deny-me' }), owner.token, 'deny');
      expect(back.origin + back.pathname).to.equal(REDIRECT);
      expect(back.searchParams.get('error')).to.equal('access_denied');
      expect(back.searchParams.get('state')).to.equal('deny-me');
      expect(back.searchParams.get('code')).to.equal(null);
    });

    it('refuses a consent form without the CSRF token of the session', async () => {
      const page = await get(url(), owner.token);
      const fields = hiddenFields(await page.text());
      for (const csrf of ['', 'forged', hiddenFields(await (await get(url(), (await svc.signUp()).token)).text()).csrf!]) {
        const res = await fetch(`${svc.url}/auth/integration/authorize`, {
          method: 'POST',
          headers: { cookie: sessionCookie(svc, owner.token), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...fields, csrf, decision: 'allow' }),
          redirect: 'manual',
        });
        expect(res.status).to.equal(403);
        expect(res.headers.get('location')).to.equal(null);
      }
    });

    it('a member sees why they cannot allow, and a forced allow is refused without a code', async () => {
      const member = await svc.signUp({ role: 'member', name: 'Member Garage' });
      const res = await get(url(), member.token);
      const html = await res.text();
      expect(res.status).to.equal(200);
      expect(html).to.contain('Only owners and admins of Member Garage may install apps');
      expect(html).not.to.contain('value="allow"');
      const forced = await fetch(`${svc.url}/auth/integration/authorize`, {
        method: 'POST',
        headers: { cookie: sessionCookie(svc, member.token), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...hiddenFields(html), decision: 'allow' }),
        redirect: 'manual',
      });
      expect(forced.status).to.equal(403);
      expect(forced.headers.get('location')).to.equal(null);
      const denied = await approve(svc, url({ state: 'm' }), member.token, 'deny');
      expect(denied.searchParams.get('error')).to.equal('access_denied');
    });

    it('an admin may allow too', async () => {
      const admin = await svc.signUp({ role: 'admin' });
      const back = await approve(svc, url({ state: 'adm' }), admin.token);
      expect(back.searchParams.get('code')).to.match(/^svc_code_/);
    });

    it('not signed in: login, then back to the same authorize URL with every parameter', async () => {
      const web = new WebClient(svc.url);
      const original = url({ state: 'keep me & all', scopes: '["repairer"]' });
      const first = await web.get(original);
      expect(first.status).to.equal(303);
      const loginPage = await web.get(first.location!);
      expect(loginPage.status).to.equal(200);
      expect(loginPage.html).to.contain('continue installing an app');
      expect(loginPage.html).to.match(/<label for="email">Email<\/label>/).and.to.match(/<label for="password">Password<\/label>/);
      const signedIn = await web.post('/auth/login', { ...hiddenFields(loginPage.html, '/auth/login'), email: owner.email, password: PASSWORD });
      expect(signedIn.status).to.equal(303);
      const target = new URL(signedIn.location!, svc.url);
      expect(target.toString()).to.equal(new URL(original).toString());
      const consent = await web.get(signedIn.location!);
      expect(consent.status).to.equal(200);
      expect(hiddenFields(consent.html)).to.include({ client_id: client.clientId, redirect_url: REDIRECT, state: 'keep me & all', scopes: 'repairer' });
    });

    it('the session cookie is HttpOnly and SameSite=Lax (not Secure over http)', async () => {
      const web = new WebClient(svc.url);
      const res = await logIn(web, owner.email, PASSWORD);
      const cookie = res.setCookies.find((c) => c.startsWith('svc_session='))!;
      expect(cookie).to.match(/HttpOnly/).and.to.match(/SameSite=Lax/).and.not.to.match(/Secure/);
    });

    it('the return target never leaves the origin: foreign targets end on the start page', async () => {
      for (const target of ['//evil.example', 'https://evil.example', '/\\evil.example', '/\t/evil.example', 'http:evil.example', '\\\\evil.example', 'javascript:alert(1)', '/%0d%0aSet-Cookie:x=y']) {
        const web = new WebClient(svc.url);
        const res = await logIn(web, owner.email, PASSWORD, target);
        expect(res.status, target).to.equal(303);
        const loc = new URL(res.location!, svc.url);
        expect(loc.origin, target).to.equal(new URL(svc.url).origin);
        if (!target.startsWith('/%')) expect(res.location, target).to.equal('/');
        // Already signed in: the login page sends straight on, with the same rule.
        const again = await web.get(`/auth/login?return_to=${encodeURIComponent(target)}`);
        expect(new URL(again.location!, svc.url).origin, target).to.equal(new URL(svc.url).origin);
      }
    });

    it('wrong password or a missing login CSRF token signs nobody in', async () => {
      const web = new WebClient(svc.url);
      const bad = await logIn(web, owner.email, 'wrong password');
      expect(bad.status).to.equal(401);
      expect(web.cookies.has('svc_session')).to.equal(false);
      const noCsrf = await new WebClient(svc.url).post('/auth/login', { email: owner.email, password: PASSWORD, return_to: '/' });
      expect(noCsrf.status).to.equal(403);
      expect(noCsrf.setCookies.some((c) => c.startsWith('svc_session='))).to.equal(false);
    });

    it('sign out revokes the session at once', async () => {
      const web = new WebClient(svc.url);
      await logIn(web, owner.email, PASSWORD);
      const token = decodeURIComponent(web.cookies.get('svc_session')!);
      expect((await svc.call(ops['auth.sessions.get'], undefined, token)).status).to.equal(200);
      const home = await web.get('/');
      const out = await web.post('/auth/logout', hiddenFields(home.html, '/auth/logout'));
      expect(out.status).to.equal(303);
      expect((await svc.call(ops['auth.sessions.get'], undefined, token)).status).to.equal(401);
      expect((await web.get(url())).status).to.equal(303);
    });

    it('a user in several organizations switches organization on the consent page; the key belongs to the chosen one', async () => {
      const second = await createOrganization(systemContext(svc.app), { name: 'Second Garage', kind: 'repairer' });
      const pos = await addMember(systemContext(svc.app), second.id, owner.userId, 'admin');
      await svc.app.runner.waitFor(pos, [identityProjection], 10_000);
      const web = new WebClient(svc.url);
      const consent = await web.follow(await logIn(web, owner.email, PASSWORD, path(url())));
      expect(consent.html).to.contain('<label for="organization_id">Organization</label>');
      const oldToken = decodeURIComponent(web.cookies.get('svc_session')!);
      const switched = await web.post('/auth/organization', { ...hiddenFields(consent.html, '/auth/organization'), organization_id: second.id });
      expect(switched.status).to.equal(303);
      expect(new URL(switched.location!, svc.url).toString()).to.equal(new URL(url()).toString());
      expect((await svc.call(ops['auth.sessions.get'], undefined, oldToken)).status).to.equal(401);
      const newToken = decodeURIComponent(web.cookies.get('svc_session')!);
      const page = await web.get(switched.location!);
      expect(page.html).to.contain('asks to connect to <strong>Second Garage</strong>');
      const back = await approve(svc, url({ state: 's2' }), newToken);
      const res = await svc.callIntegration(ops['integrations.insert'], { access_code: back.searchParams.get('code') ?? '', client_id: client.clientId, client_secret: client.clientSecret });
      const me = await svc.callIntegration(ops['integrations.get'], undefined, { authorization: `Bearer ${res.body.api_key}`, 'svc-integration-id': res.body.integration_id });
      expect(me.body.organization).to.deep.equal({ id: second.id, name: 'Second Garage' });
      const foreign = await web.post('/auth/organization', { ...hiddenFields(page.html, '/auth/organization'), organization_id: (await svc.signUp()).orgId });
      expect(foreign.status).to.equal(403);
    });
  });
}

describe('session cookie over https', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService('pglite', { env: { APP_URL: 'https://app.core-server.example' } });
  });
  after(async () => svc?.close());

  it('is Secure, HttpOnly, SameSite=Lax and __Host- prefixed when APP_URL is https', async () => {
    const owner = await svc.signUp();
    const res = await logIn(new WebClient(svc.url), owner.email, PASSWORD);
    const cookie = res.setCookies.find((c) => c.startsWith('__Host-svc_session='))!;
    expect(cookie).to.match(/; Secure/).and.to.match(/HttpOnly/).and.to.match(/SameSite=Lax/).and.to.match(/Path=\//);
  });
});
