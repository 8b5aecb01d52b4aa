// Integrations API callers: `Authorization: Bearer <api_key>` plus `Svc-Integration-ID` naming the key's own integration.
import type { Authenticator } from '../../api/http.ts';
import { bearerToken } from '../../api/auth.ts';
import { hashSecret, looksValid } from '../../secrets.ts';
import { activeInstallByKeyHash } from './integrations.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';

const rejected = (why: string) => integrationsErrors.error('unauthenticated', why);

/** Resolves an installed integration from its key; no Authorization header -> anonymous (integrations.insert only). */
export const integrationAuthenticator: Authenticator = async (req, services) => {
  const key = bearerToken(req.get('authorization'));
  if (key === null) return { kind: 'anonymous' };
  const integrationId = req.get('svc-integration-id');
  if (!integrationId) throw rejected('The Svc-Integration-ID header is required with an API key.');
  // Same answer for a malformed, unknown, revoked or mismatched key: nothing to learn by probing.
  const invalid = () => rejected('The API key and Svc-Integration-ID are not a valid, installed pair.');
  if (!looksValid(key, 'svc_key_')) throw invalid();
  const install = await activeInstallByKeyHash(services.knex, hashSecret(key));
  if (!install || install.id !== integrationId.trim().toLowerCase()) throw invalid();
  return { kind: 'integration', integrationId: install.id, organizationId: install.organization_id, scopes: install.scopes, clientId: install.client_id };
};
