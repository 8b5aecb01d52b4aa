// A small typed client of the core and integrations APIs: openapi-fetch over the generated schema modules
// (core.ts, integrations.ts; `npm run client` regenerates them). Every call is `client.POST('/<operation_id>', { body })`,
// answering `{ data }` on success or `{ error }` typed with the operation's error body.
import createClient, { type Client } from 'openapi-fetch';
import type { paths as CorePaths, components as CoreComponents } from './core.ts';
import type { paths as IntegrationsPaths } from './integrations.ts';

export type { CorePaths, CoreComponents, IntegrationsPaths };
export { sseEvents, type SseEvent } from './sse.ts';

/** A core API client for `origin` (e.g. `https://billing.example.org`), signed in with a session token from auth.sessions.insert. */
export function coreClient(origin: string, opts: { token?: string; fetch?: typeof fetch } = {}): Client<CorePaths> {
  return createClient<CorePaths>({ baseUrl: `${origin.replace(/\/$/, '')}/api/v1`, headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {}, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
}

/** An integrations API client for `origin`, with the API key and integration id from integrations.insert. */
export function integrationsClient(origin: string, opts: { apiKey?: string; integrationId?: string; fetch?: typeof fetch } = {}): Client<IntegrationsPaths> {
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.integrationId) headers['svc-integration-id'] = opts.integrationId;
  return createClient<IntegrationsPaths>({ baseUrl: `${origin.replace(/\/$/, '')}/api/2026-01`, headers, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
}
