// Installs an integration the way an app does it, over HTTP without a browser: register a client, authorize with the
// owner's login cookie, submit the consent form with its CSRF token, exchange the code for an API key.
import { systemContext } from '../support/system.ts';
import { createClient } from '../../src/commands/integrations/clients.ts';
import type { Scope } from '../../src/domain/integrations/scopes.ts';

import { sessionCookieName } from '../../src/http/pages/web-session.ts';
import type { TestService } from './app.ts';
import { hiddenFields } from './web.ts';
import { integrationsProjection } from '../../src/projections/integrations/integrations.ts';
import { ops } from './ops.ts';

let n = 0;

/** Registers a client (operator step) and returns its credentials. */
export async function registerClient(
  svc: TestService,
  opts: { name?: string; redirectUrls?: string[]; scopes?: Scope[] } = {},
): Promise<{ clientId: string; clientSecret: string; secretId: string; redirectUrl: string }> {
  const redirectUrls = opts.redirectUrls ?? ['https://app.example/callback'];
  const c = await createClient(systemContext(svc.app, 'test client'), { name: opts.name ?? `Test App ${++n}`, redirectUrls, scopes: opts.scopes ?? ['repairer', 'supplier'] });
  await svc.app.runner.waitFor(c.position, [integrationsProjection], 10_000);
  return { clientId: c.clientId, clientSecret: c.clientSecret, secretId: c.secretId, redirectUrl: redirectUrls[0]! };
}

/** The Cookie header of a signed-in browser holding session `token`. */
export function sessionCookie(svc: TestService, token: string): string {
  return `${sessionCookieName(svc.app)}=${encodeURIComponent(token)}`;
}

/** The authorize URL an app sends the browser to. */
export function authorizeUrl(svc: TestService, p: { clientId: string; redirectUrl: string; state: string; scopes: string }): string {
  return `${svc.url}/auth/integration/authorize?${new URLSearchParams({ client_id: p.clientId, state: p.state, scopes: p.scopes, redirect_url: p.redirectUrl })}`;
}

/** Approves an authorize URL as the signed-in user `token` and returns the redirect's Location (with code and state). */
export async function approve(svc: TestService, url: string, token: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const cookie = sessionCookie(svc, token);
  const page = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page answered ${page.status}: ${html.slice(0, 300)}`);
  const form = new URLSearchParams({ ...hiddenFields(html, '/auth/integration/authorize'), decision });
  const res = await fetch(`${svc.url}/auth/integration/authorize`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status !== 303 || !location) throw new Error(`consent answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return new URL(location);
}

/** Registers a client and installs it into the organization of `token` (an owner's session) with `scopes`. */
export async function installIntegration(
  svc: TestService,
  opts: { token: string; scopes: ('repairer' | 'supplier')[] },
): Promise<{ apiKey: string; integrationId: string; clientId: string; clientSecret: string }> {
  const client = await registerClient(svc);
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const back = await approve(svc, authorizeUrl(svc, { clientId: client.clientId, redirectUrl: client.redirectUrl, state, scopes: JSON.stringify(opts.scopes) }), opts.token);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state) throw new Error(`no code in redirect ${back.toString()}`);
  const res = await svc.callIntegration(ops['integrations.insert'], { access_code: code, client_id: client.clientId, client_secret: client.clientSecret });
  if (res.status !== 200) throw new Error(`integrations.insert answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { apiKey: res.body.api_key, integrationId: res.body.integration_id, clientId: client.clientId, clientSecret: client.clientSecret };
}

/** Headers an installed integration sends on every call. */
export function integrationHeaders(i: { apiKey: string; integrationId: string }): Record<string, string> {
  return { authorization: `Bearer ${i.apiKey}`, 'svc-integration-id': i.integrationId };
}
