// Sign-in, sign-out, organization switching and the start page of the app. An HTTP adapter over invoke: signing in is
// auth.sessions.insert (as an anonymous caller), signing out auth.sessions.remove and switching auth.sessions.switch (as the
// signed-in user); the page keeps the cookies, the CSRF checks and the forms.
import crypto from 'node:crypto';
import express, { type Response } from 'express';
import type { Services } from '../../context.ts';
import type { Caller } from '../../contract/caller.ts';
import { ops } from '../../areas/operations.ts';
import { DomainError } from '../../domain/errors.ts';
import { type SafeHtml, html } from './html.ts';
import { sendErrorPage, sendPage } from './layout.ts';
import {
  type WebSession,
  clearCookie,
  csrfToken,
  currentSession,
  loginCsrfCookieName,
  readCookies,
  safeReturnTo,
  sameString,
  sessionCookieName,
  setCookie,
  validCsrf,
} from './web-session.ts';


/** An organization the user can act in, with its name and the user's role. */
export interface OrgChoice {
  id: string;
  name: string;
  role: string;
}

/** The organizations of the signed-in user, by name (auth.organizations.list). */
export async function organizationsOf(services: Services, session: WebSession): Promise<OrgChoice[]> {
  return (await services.invoke(ops['auth.organizations.list'], undefined, { auth: session.auth })).body;
}

/** The organization switcher: a form that opens a new session in another organization, then returns to `returnTo`. */
export function orgSwitcher(session: WebSession, orgs: OrgChoice[], returnTo: string): SafeHtml {
  if (orgs.length < 2) return html``;
  const options = orgs.map((o) => html`<option value="${o.id}"${o.id === session.auth.organizationId ? html` selected` : ''}>${o.name} (${o.role})</option>`);
  return html`<form method="post" action="/auth/organization" class="card">
<label for="organization_id">Organization</label>
<select id="organization_id" name="organization_id">${options}</select>
<input type="hidden" name="csrf" value="${csrfToken(session)}">
<input type="hidden" name="return_to" value="${returnTo}">
<div class="actions"><button type="submit" class="secondary">Switch organization</button></div>
</form>`;
}

function loginForm(res: Response, services: Services, opts: { returnTo: string; status?: number; error?: string; email?: string }): void {
  const name = loginCsrfCookieName(services);
  const token = crypto.randomBytes(24).toString('base64url');
  setCookie(res, services, name, token, 3600);
  const installing = opts.returnTo.startsWith('/auth/integration/authorize?');
  sendPage(res, opts.status ?? 200, 'Sign in', html`<h1>Sign in</h1>
${installing ? html`<p>Sign in to continue installing an app; you come back to its installation page afterwards.</p>` : ''}
<form method="post" action="/auth/login" class="card">
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<input type="hidden" name="csrf" value="${token}">
<input type="hidden" name="return_to" value="${opts.returnTo}">
<div class="actions"><button type="submit">Sign in</button></div>
</form>`);
}

/** The caller of this request: `auth` (anonymous before signing in), with the request's id. */
function caller(res: Response, auth: Caller['auth']): Caller {
  const requestId = res.locals.requestId;
  return { auth, ...(typeof requestId === 'string' ? { requestId } : {}) };
}

/** Sets the cookie of a browser session just opened. */
function setSessionCookie(res: Response, services: Services, token: string): void {
  setCookie(res, services, sessionCookieName(services), token, services.config.sessionTtlHours * 3600);
}

/** Mounts `/`, `/auth/login`, `/auth/logout` and `/auth/organization`. */
export function mountLogin(app: express.Express, services: Services): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  app.get('/', async (req, res) => {
    const session = await currentSession(req, services);
    if (!session) {
      sendPage(res, 200, 'core-server', html`<h1>core-server</h1><div class="card"><p>You are not signed in.</p><p><a href="/auth/login">Sign in</a> · <a href="/docs">API reference</a></p></div>`);
      return;
    }
    const orgs = await organizationsOf(services, session);
    const current = orgs.find((o) => o.id === session.auth.organizationId);
    sendPage(res, 200, 'core-server', html`<h1>core-server</h1>
<div class="card"><p>Signed in as <strong>${session.auth.email}</strong> in <strong>${current?.name ?? 'an organization'}</strong>${current ? ` (${current.role})` : ''}.</p>
<p>${session.auth.platformRoles.length ? html`<a href="/console">Billing console</a> · ` : ''}<a href="/docs">API reference</a></p>
<form method="post" action="/auth/logout"><input type="hidden" name="csrf" value="${csrfToken(session)}"><button type="submit" class="secondary">Sign out</button></form></div>
${orgSwitcher(session, orgs, '/')}`);
  });

  app.get('/auth/login', async (req, res) => {
    const returnTo = safeReturnTo(req.query.return_to);
    if (await currentSession(req, services)) return void res.redirect(303, returnTo);
    loginForm(res, services, { returnTo });
  });

  app.post('/auth/login', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    const cookie = readCookies(req)[loginCsrfCookieName(services)];
    if (!cookie || !sameString(body.csrf, cookie)) {
      loginForm(res, services, { returnTo, status: 403, error: 'The form expired. Please sign in again.' });
      return;
    }
    const email = typeof body.email === 'string' ? body.email : '';
    const password = typeof body.password === 'string' ? body.password : '';
    let token: string;
    try {
      // Signs in to the user's first organization by name (the operation's default).
      ({ token } = (await services.invoke(ops['auth.sessions.insert'], { email, password }, caller(res, { kind: 'anonymous' }))).body);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // An empty or malformed field is a wrong email or password too (the dummy hash keeps the timing of an unknown email).
      if (err.code === 'invalid_credentials' || err.code === 'invalid_request') return loginForm(res, services, { returnTo, status: 401, error: 'The email or password is wrong.', email });
      if (err.code === 'no_organization') return loginForm(res, services, { returnTo, status: 403, error: 'Your account belongs to no organization yet. Ask an owner to add you.', email });
      throw err;
    }
    // A browser signed in already: its session is replaced.
    const previous = await currentSession(req, services);
    if (previous) await services.invoke(ops['auth.sessions.remove'], undefined, caller(res, previous.auth));
    clearCookie(res, services, loginCsrfCookieName(services));
    setSessionCookie(res, services, token);
    res.redirect(303, returnTo);
  });

  app.post('/auth/logout', form, async (req, res) => {
    const session = await currentSession(req, services);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (session) {
      if (!validCsrf(session, body.csrf)) return void sendErrorPage(res, 403, 'Not signed out', 'The form expired. Go back, reload the page and try again.');
      await services.invoke(ops['auth.sessions.remove'], undefined, caller(res, session.auth));
    }
    clearCookie(res, services, sessionCookieName(services));
    res.redirect(303, '/auth/login');
  });

  app.post('/auth/organization', form, async (req, res) => {
    const session = await currentSession(req, services);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    if (!session) return void res.redirect(303, `/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    if (!validCsrf(session, body.csrf)) return void sendErrorPage(res, 403, 'Organization not switched', 'The form expired. Go back, reload the page and try again.');
    const orgId = typeof body.organization_id === 'string' ? body.organization_id : '';
    const orgs = await organizationsOf(services, session);
    if (!orgs.some((o) => o.id === orgId)) return void sendErrorPage(res, 403, 'Organization not switched', 'You are not a member of that organization.');
    // Switching is a new session in the other organization; the old one is revoked. A membership removed meanwhile is not_a_member.
    let opened: { token: string };
    try {
      ({ body: opened } = await services.invoke(ops['auth.sessions.switch'], { organization_id: orgId }, caller(res, session.auth)));
    } catch (err) {
      if (err instanceof DomainError && err.code === 'not_a_member') return void sendErrorPage(res, 403, 'Organization not switched', 'You are not a member of that organization.');
      throw err;
    }
    setSessionCookie(res, services, opened.token);
    res.redirect(303, returnTo);
  });
}
