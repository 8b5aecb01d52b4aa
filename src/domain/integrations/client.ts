// Integration client aggregate (`integrationclient-<id>`): an app the operator registered, its redirect URLs, scopes and secrets.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { Scope } from './scopes.ts';
import { integrationsErrors } from './errors.ts';

/** At most this many secrets are valid at once (rotation: old and new). */
export const MAX_ACTIVE_SECRETS = 2;

/** Events of an integration client stream. */
export const ClientEvents = eventSchemas({
  IntegrationClientRegistered: z.object({
    client_id: z.uuid(),
    name: z.string(),
    redirect_urls: z.array(z.string()),
    scopes: z.array(Scope),
    secret_id: z.uuid(),
    secret_hash: z.string(),
    registered_at: z.string(),
  }),
  ClientSecretAdded: z.object({ secret_id: z.uuid(), secret_hash: z.string(), added_at: z.string() }),
  ClientSecretRevoked: z.object({ secret_id: z.uuid(), revoked_at: z.string() }),
});

/** An event of an integration client stream (derived from `ClientEvents`). */
export type ClientEvent = EventOf<typeof ClientEvents>;

/** How integration client events are read. */
export const clientCodec = eventCodec(ClientEvents);

/** A command on an integration client. */
export type ClientCommand =
  | { type: 'RegisterClient'; data: Omit<z.infer<typeof ClientEvents.IntegrationClientRegistered>, 'registered_at'> & { now: string } }
  | { type: 'AddClientSecret'; data: { secret_id: string; secret_hash: string; now: string } }
  | { type: 'RevokeClientSecret'; data: { secret_id: string; now: string } };

/** What decisions need: whether it exists and which secrets are valid. */
export interface ClientState {
  exists: boolean;
  activeSecrets: string[];
}

const notFound = () => integrationsErrors.error('client_not_found', 'No such integration client.');

/** Pure integration client decider. */
export const clientDecider: Decider<ClientCommand, ClientEvent, ClientState> = {
  events: clientCodec,
  initialState: () => ({ exists: false, activeSecrets: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'IntegrationClientRegistered':
        return { exists: true, activeSecrets: [event.data.secret_id] };
      case 'ClientSecretAdded':
        return { ...state, activeSecrets: [...state.activeSecrets, event.data.secret_id] };
      case 'ClientSecretRevoked':
        return { ...state, activeSecrets: state.activeSecrets.filter((s) => s !== event.data.secret_id) };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterClient': {
        if (state.exists) throw integrationsErrors.error('client_exists', 'The integration client already exists.');
        const { now, ...rest } = command.data;
        if (!rest.name.trim()) throw integrationsErrors.error('invalid_name', 'A client needs a name.');
        if (rest.redirect_urls.length === 0) throw integrationsErrors.error('invalid_redirect_url', 'A client needs at least one redirect URL.');
        for (const url of rest.redirect_urls) checkRedirectUrl(url);
        if (rest.scopes.length === 0) throw integrationsErrors.error('invalid_scope', 'A client needs at least one allowed scope.');
        return [{ type: 'IntegrationClientRegistered', data: { ...rest, name: rest.name.trim(), redirect_urls: [...new Set(rest.redirect_urls)], scopes: [...new Set(rest.scopes)], registered_at: now } }];
      }
      case 'AddClientSecret':
        if (!state.exists) throw notFound();
        if (state.activeSecrets.length >= MAX_ACTIVE_SECRETS)
          throw integrationsErrors.error('secret_limit_reached', `A client has at most ${MAX_ACTIVE_SECRETS} valid secrets; revoke the old one first.`);
        return [{ type: 'ClientSecretAdded', data: { secret_id: command.data.secret_id, secret_hash: command.data.secret_hash, added_at: command.data.now } }];
      case 'RevokeClientSecret':
        if (!state.exists) throw notFound();
        if (!state.activeSecrets.includes(command.data.secret_id)) throw integrationsErrors.error('secret_not_found', 'The client has no valid secret with that id.');
        return [{ type: 'ClientSecretRevoked', data: { secret_id: command.data.secret_id, revoked_at: command.data.now } }];
      default:
        return assertNever(command);
    }
  },
};

/**
 * A redirect URL the operator may register: absolute, no fragment (RFC 6749 3.1.2), https except on a
 * loopback host (RFC 8252 7.3), no user info. Stored byte-for-byte as given: matching is exact.
 */
export function checkRedirectUrl(raw: string): void {
  const bad = (why: string) => integrationsErrors.error('invalid_redirect_url', `Redirect URL ${raw} ${why}.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('is not an absolute URL');
  }
  if (raw.includes('#')) throw bad('must not have a fragment');
  if (url.username || url.password) throw bad('must not carry user info');
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw bad('must use https (http only on localhost)');
}
