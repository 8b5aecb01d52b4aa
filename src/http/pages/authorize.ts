// The install flow's authorize page: validates the request, signs the user in if needed, asks for consent, issues the access code.
import express, { type Request, type Response } from 'express';
import type { z } from 'zod';
import type { Services } from '../../context.ts';
import { ops } from '../../areas/operations.ts';
import { SCOPE_WORDS, type Scope, isScope } from '../../domain/integrations/scopes.ts';
import { DomainError } from '../../domain/errors.ts';

type ClientDoc = z.output<typeof ops['integrations.clients.get']['response']>;
import { html } from './html.ts';
import { sendErrorPage, sendPage } from './layout.ts';
import { organizationsOf, orgSwitcher } from './login.ts';
import { type WebSession, csrfToken, currentSession, validCsrf } from './web-session.ts';

/** Path of the authorize page. */
export const AUTHORIZE_PATH = '/auth/integration/authorize';

/** An authorize request whose client and redirect URL are trusted (so errors may now go back to the app). */
interface Checked {
  client: ClientDoc;
  redirectUrl: string;
  state: string | undefined;
  scopes: unknown;
  codeChallenge: unknown;
  codeChallengeMethod: unknown;
}

/** A fully valid authorize request. */
interface Valid {
  scopes: Scope[];
  /** PKCE S256 challenge, or null when the app sent none. */
  codeChallenge: string | null;
}

/**
 * Reads `scopes` as the spec writes it (a JSON array, `["repairer"]`) or as a comma- or space-separated
 * list. Returns null when it is not one of those forms.
 */
export function parseScopes(raw: unknown): string[] | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (text.startsWith('[')) {
    try {
      const v: unknown = JSON.parse(text);
      return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v.map((s: string) => s.trim()) : null;
    } catch {
      return null;
    }
  }
  return text.split(/[\s,]+/).filter(Boolean);
}

function single(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The app a link names (integrations.clients.get), or null when none is registered with that id. */
async function registeredClient(services: Services, clientId: string): Promise<ClientDoc | null> {
  try {
    return (await services.invoke(ops['integrations.clients.get'], { client_id: clientId }, { auth: { kind: 'anonymous' } })).body;
  } catch (err) {
    if (err instanceof DomainError && (err.code === 'client_not_found' || err.code === 'invalid_request')) return null;
    throw err;
  }
}

// Unknown client or a redirect URL that is not byte-identical to a registered one: an error page, never a redirect.
async function checkClient(services: Services, params: Record<string, unknown>, res: Response): Promise<Checked | null> {
  const clientId = single(params.client_id);
  const client = clientId ? await registeredClient(services, clientId) : null;
  if (!client) {
    sendErrorPage(res, 400, 'Unknown application', 'This installation link names an application that is not registered here. Nothing was installed; go back to the application and contact its makers.');
    return null;
  }
  const redirectUrl = single(params.redirect_url);
  if (redirectUrl === undefined || !client.redirect_urls.includes(redirectUrl)) {
    sendErrorPage(res, 400, 'Invalid installation link', `The return address in this link is not one ${client.name} registered, so you were not sent there. Nothing was installed.`);
    return null;
  }
  return { client, redirectUrl, state: single(params.state), scopes: params.scopes, codeChallenge: params.code_challenge, codeChallengeMethod: params.code_challenge_method };
}

/** The app's redirect URL with the given parameters added. */
function backToApp(redirectUrl: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.toString();
}

// Validates state, PKCE and scopes; on failure redirects to the app with an OAuth error (RFC 6749 4.1.2.1) and returns null.
function checkRequest(c: Checked, res: Response): Valid | null {
  const invalid = (error_description: string) => {
    res.redirect(303, backToApp(c.redirectUrl, { error: 'invalid_request', error_description, state: c.state }));
    return null;
  };
  if (!c.state || c.state.length > 2000) return invalid('state is required (at most 2000 characters)');
  let codeChallenge: string | null = null;
  if (c.codeChallenge !== undefined || c.codeChallengeMethod !== undefined) {
    if (c.codeChallengeMethod !== 'S256') return invalid('code_challenge_method must be S256');
    if (typeof c.codeChallenge !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(c.codeChallenge)) return invalid('code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)');
    codeChallenge = c.codeChallenge;
  }
  const requested = parseScopes(c.scopes);
  const scopes = requested ? [...new Set(requested)] : [];
  if (!requested || scopes.length === 0 || !scopes.every((s) => isScope(s) && c.client.scopes.includes(s))) {
    res.redirect(303, backToApp(c.redirectUrl, { error: 'invalid_scope', error_description: `scopes must be a non-empty list of: ${c.client.scopes.join(', ')}`, state: c.state }));
    return null;
  }
  return { scopes: scopes.filter(isScope), codeChallenge };
}

function consentPage(res: Response, services: Services, session: WebSession, c: Checked, { scopes, codeChallenge }: Valid, orgs: Awaited<ReturnType<typeof organizationsOf>>, returnTo: string): void {
  const org = orgs.find((o) => o.id === session.auth.organizationId);
  const orgName = org?.name ?? 'your organization';
  const role = session.auth.membershipRole;
  const mayInstall = role === 'owner' || role === 'admin';
  const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
  const appName = c.client.name;
  const target = new URL(c.redirectUrl);
  const body = html`<h1>Install ${appName}?</h1>
<div class="card">
<p><strong>${appName}</strong> asks to connect to <strong>${orgName}</strong>. It will be able to:</p>
<ul class="scopes">${scopes.map((s) => html`<li><strong>${s}</strong>: ${SCOPE_WORDS[s]}</li>`)}</ul>
<p>The API key will belong to the organization <strong>${orgName}</strong>, not to you, and keeps working until the app is removed.</p>
<p class="muted">Signed in as ${session.auth.email}. After your choice you go back to ${target.host}.</p>
${mayInstall ? '' : html`<p class="notice" role="alert">Only owners and admins of ${orgName} may install apps. Your role is ${role ?? 'none'}. Ask an owner or admin to install ${appName}${orgs.length > 1 ? ', or switch to another organization below' : ''}.</p>`}
<form method="post" action="${AUTHORIZE_PATH}">
${hidden('client_id', c.client.id)}${hidden('redirect_url', c.redirectUrl)}${hidden('state', c.state ?? '')}${hidden('scopes', scopes.join(','))}${codeChallenge ? [hidden('code_challenge', codeChallenge), hidden('code_challenge_method', 'S256')] : ''}${hidden('csrf', csrfToken(session))}
<div class="actions">
${mayInstall ? html`<button type="submit" name="decision" value="allow">Allow</button>` : ''}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
</div>
${orgSwitcher(session, orgs, returnTo)}`;
  sendPage(res, 200, `Install ${c.client.name}`, body, [target.origin]);
}

/** Mounts GET and POST of the authorize page. */
export function mountAuthorize(app: express.Express, services: Services): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  app.get(AUTHORIZE_PATH, async (req: Request, res: Response) => {
    const checked = await checkClient(services, req.query, res);
    if (!checked) return;
    const valid = checkRequest(checked, res);
    if (!valid) return;
    const session = await currentSession(req, services);
    // Not signed in: sign in, then come back to this very URL (the original service's known bug, fixed).
    if (!session) return void res.redirect(303, `/auth/login?return_to=${encodeURIComponent(req.originalUrl)}`);
    consentPage(res, services, session, checked, valid, await organizationsOf(services, session), req.originalUrl);
  });

  app.post(AUTHORIZE_PATH, form, async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const checked = await checkClient(services, body, res);
    if (!checked) return;
    const valid = checkRequest(checked, res);
    if (!valid) return;
    const { scopes, codeChallenge } = valid;
    const session = await currentSession(req, services);
    const pkce: Record<string, string> = codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {};
    const again = `${AUTHORIZE_PATH}?${new URLSearchParams({ client_id: checked.client.id, state: checked.state ?? '', scopes: scopes.join(','), redirect_url: checked.redirectUrl, ...pkce }).toString()}`;
    if (!session) return void res.redirect(303, `/auth/login?return_to=${encodeURIComponent(again)}`);
    if (!validCsrf(session, body.csrf)) return void sendErrorPage(res, 403, 'Nothing was installed', 'The form expired or did not come from this page. Go back to the application and start the installation again.');
    if (body.decision === 'deny') return void res.redirect(303, backToApp(checked.redirectUrl, { error: 'access_denied', state: checked.state }));
    if (body.decision !== 'allow') return void sendErrorPage(res, 400, 'Nothing was installed', 'Choose Allow or Deny.');
    const role = session.auth.membershipRole;
    if (role !== 'owner' && role !== 'admin')
      return void sendErrorPage(res, 403, 'Nothing was installed', 'Only owners and admins of the organization may install apps. Ask one of them to install it.');
    const requestId = res.locals.requestId;
    const { body: issued } = await services.invoke(ops['integrations.access-codes.insert'], { client_id: checked.client.id, redirect_url: checked.redirectUrl, scopes, code_challenge: codeChallenge }, {
      auth: session.auth, ...(typeof requestId === 'string' ? { requestId } : {}),
    });
    const code = issued.code;
    res.redirect(303, backToApp(checked.redirectUrl, { code, state: checked.state }));
  });
}
