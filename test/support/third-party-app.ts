// A real third-party app for the tests: its own HTTP server with a registered redirect URL. It starts installs
// (a fresh `state` each, kept 15 minutes, used once), checks the redirect, exchanges the code and calls the API.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/clock.ts';
import type { Scope } from '../../src/domain/integrations/scopes.ts';
import type { ReplyOf, RequestOf, TestService } from './app.ts';
import { type JsonOp, ops } from './ops.ts';
import { s256 } from '../../src/commands/integrations/access-codes.ts';
import { registerClient } from './integrations.ts';

/** How long the app accepts a state it issued (the spec's reference app: 15 minutes). */
export const STATE_TTL_MS = 15 * 60_000;

/** A key the app received, stored per organization as the spec advises. */
export interface AppInstallation {
  apiKey: string;
  integrationId: string;
  organization: { id: string; name: string };
}

/** What the app does once it holds a key; returns the HTML of its success page. Jobs tests replace it. */
export type AfterInstall = (app: ThirdPartyApp, installation: AppInstallation) => Promise<string>;

/** The running app. */
export interface ThirdPartyApp {
  url: string;
  redirectUrl: string;
  clientId: string;
  clientSecret: string;
  /** Keys by organization id. */
  installations: Map<string, AppInstallation>;
  /** Redirects the app refused (unknown, used or expired state). */
  rejected: string[];
  /** Requests that reached /callback. */
  callbacks: number;
  /** Calls the integrations API with an installation's key. */
  api<Op extends JsonOp>(installation: AppInstallation, op: Op, body?: RequestOf<Op>): Promise<ReplyOf<Op>>;
  close(): Promise<void>;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Default after-install step: ask the service which organization the key belongs to. */
export const describeInstallation: AfterInstall = async (app, inst) => {
  const me = await app.api(inst, ops['integrations.get']);
  if (me.status !== 200) throw new Error(`integrations.get answered ${me.status}`);
  return `<p id="result">Connected to ${esc(me.body.organization.name)} with scopes ${esc(me.body.scopes.join(', '))}.</p>`;
};

/** Starts the app on an ephemeral port and registers it as a client of `svc`. */
export async function startThirdPartyApp(
  svc: TestService,
  opts: { name?: string; scopes?: Scope[]; clock?: Clock; afterInstall?: AfterInstall; /** Use PKCE S256 (default true). */ pkce?: boolean } = {},
): Promise<ThirdPartyApp> {
  const clock = opts.clock ?? svc.clock;
  const scopes = opts.scopes ?? ['repairer'];
  // Per state: when it was issued and its PKCE verifier.
  const states = new Map<string, { issued: number; verifier: string }>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUrl = `${url}/callback`;
  const client = await registerClient(svc, { name: opts.name ?? 'Bodyshop Sync', redirectUrls: [redirectUrl], scopes });

  const app: ThirdPartyApp = {
    url,
    redirectUrl,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    installations: new Map(),
    rejected: [],
    callbacks: 0,
    async api(inst, op, body) {
      const res = await fetch(`${svc.url}/api/2026-01/${op.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${inst.apiKey}`, 'svc-integration-id': inst.integrationId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  // The app's own check of the redirect: a state it issued, not used, not older than 15 minutes. Used once either way.
  const takeState = (state: string | null): { verifier: string } | null => {
    const kept = state ? states.get(state) : undefined;
    if (!state || !kept) return null;
    states.delete(state);
    return clock.now().getTime() - kept.issued < STATE_TTL_MS ? kept : null;
  };

  server.on('request', (req, res) => {
    const send = (status: number, html: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    void (async () => {
      const u = new URL(req.url ?? '/', url);
      if (u.pathname === '/install') {
        const state = crypto.randomBytes(24).toString('base64url');
        const verifier = crypto.randomBytes(32).toString('base64url');
        states.set(state, { issued: clock.now().getTime(), verifier });
        const target = new URL(`${svc.url}/auth/integration/authorize`);
        const pkce: Record<string, string> = opts.pkce === false ? {} : { code_challenge: s256(verifier), code_challenge_method: 'S256' };
        target.search = new URLSearchParams({ client_id: client.clientId, state, scopes: JSON.stringify(u.searchParams.get('scopes')?.split(',') ?? scopes), redirect_url: redirectUrl, ...pkce }).toString();
        res.writeHead(302, { location: target.toString() }).end();
        return;
      }
      if (u.pathname === '/callback') {
        app.callbacks++;
        const kept = takeState(u.searchParams.get('state'));
        if (!kept) {
          app.rejected.push(u.search);
          return send(400, page('Installation refused', '<p id="result">This response was not started here, was already used or has expired. Start again.</p>'));
        }
        const error = u.searchParams.get('error');
        if (error) return send(200, page('Installation cancelled', `<p id="result">Not installed: ${esc(error)}.</p>`));
        const exchange = await fetch(`${svc.url}/api/2026-01/integrations.insert`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ access_code: u.searchParams.get('code'), client_id: client.clientId, client_secret: client.clientSecret, ...(opts.pkce === false ? {} : { code_verifier: kept.verifier }) }),
        });
        const out = (await exchange.json()) as { api_key: string; integration_id: string; code?: string };
        if (exchange.status !== 200) return send(502, page('Installation failed', `<p id="result">The service said ${esc(String(out.code))}.</p>`));
        const probe: AppInstallation = { apiKey: out.api_key, integrationId: out.integration_id, organization: { id: '', name: '' } };
        const me = await app.api(probe, ops['integrations.get']);
        const inst = { ...probe, organization: me.body.organization };
        app.installations.set(inst.organization.id, inst);
        return send(200, page('Installed', await (opts.afterInstall ?? describeInstallation)(app, inst)));
      }
      send(200, page(opts.name ?? 'Bodyshop Sync', '<p><a id="install" href="/install">Install into core-server</a></p>'));
    })().catch((err: unknown) => send(500, page('App error', `<pre>${esc(String(err))}</pre>`)));
  });
  return app;
}
