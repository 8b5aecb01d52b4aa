// Who is calling, read from the request: the core API's session tokens and the integrations API's keys.
// The lookups themselves are queries (sessions, installs) the composition root hands in; this file only knows the headers.
import type { Knex } from 'knex';
import type { Authenticator } from './router.ts';
import type { Auth } from '../context.ts';
import { bearerToken } from './bearer.ts';
import { identityErrors } from '../domain/identity/errors.ts';
import { integrationsErrors } from '../domain/integrations/errors.ts';
import { hashSecret, looksValid } from '../secrets.ts';

/** The session a bearer token opens now, or null (unknown, expired, revoked). */
export type SessionLookup = (knex: Knex, token: string, now: Date) => Promise<Auth | null>;

/** The active install an API key's hash belongs to, or null. */
type InstallLookup = (knex: Knex, keyHash: string) => Promise<{ id: string; organization_id: string; scopes: string[]; client_id: string } | null | undefined>;

/** Core API callers: session bearer tokens. Missing header -> anonymous (public operations only). */
export function sessionAuthenticator(lookup: SessionLookup): Authenticator {
  return async (req, services): Promise<Auth> => {
    const token = bearerToken(req.get('authorization'));
    if (token === null) return { kind: 'anonymous' };
    const auth = await lookup(services.knex, token, services.clock.now());
    if (!auth) throw identityErrors.error('unauthenticated', 'The session token is invalid, expired or revoked.');
    return auth;
  };
}

const rejected = (why: string) => integrationsErrors.error('unauthenticated', why);

/** Integrations API callers: `Authorization: Bearer <api_key>` plus `Svc-Integration-ID` naming the key's own integration; no Authorization header -> anonymous (integrations.insert only). */
export function integrationAuthenticator(lookup: InstallLookup): Authenticator {
  return async (req, services) => {
  const key = bearerToken(req.get('authorization'));
  if (key === null) return { kind: 'anonymous' };
  const integrationId = req.get('svc-integration-id');
  if (!integrationId) throw rejected('The Svc-Integration-ID header is required with an API key.');
  // Same answer for a malformed, unknown, revoked or mismatched key: nothing to learn by probing.
  const invalid = () => rejected('The API key and Svc-Integration-ID are not a valid, installed pair.');
  if (!looksValid(key, 'svc_key_')) throw invalid();
  const install = await lookup(services.knex, hashSecret(key));
  if (!install || install.id !== integrationId.trim().toLowerCase()) throw invalid();
  return { kind: 'integration', integrationId: install.id, organizationId: install.organization_id, scopes: install.scopes, clientId: install.client_id };
  };
}
