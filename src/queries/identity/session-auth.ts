// Core API callers: a session bearer token resolves to the signed-in user of one organization.
import { bearerToken } from '../../api/auth.ts';
import type { Authenticator } from '../../api/http.ts';
import { cachedSessionAuth } from './session-cache.ts';
import { identityErrors } from '../../domain/identity/errors.ts';

/** Core API callers: session bearer tokens. Missing header -> anonymous (public operations only). */
export const sessionAuthenticator: Authenticator = async (req, services) => {
  const token = bearerToken(req.get('authorization'));
  if (token === null) return { kind: 'anonymous' };
  const auth = await cachedSessionAuth(services.knex, token, services.clock.now());
  if (!auth) throw identityErrors.error('unauthenticated', 'The session token is invalid, expired or revoked.');
  return auth;
};

