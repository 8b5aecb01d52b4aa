// Schemas of the integrations.* operations (installation and uninstallation of an app).
import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

/** integrations.insert request: the code from the redirect and the client's credentials. */
export const IntegrationInsertRequest = z
  .strictObject({
    access_code: z.string().min(1).max(500).describe('The `code` query parameter your redirect URL received; single use, valid for 15 minutes.'),
    client_id: z.string().min(1).max(100).describe('Your client id, allocated by the operator.'),
    client_secret: z.string().min(1).max(500).describe('Your client secret `svc_secret_...`, allocated by the operator. Never send it from a browser.'),
    code_verifier: z
      .string()
      .regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~')
      .optional()
      .describe('PKCE (RFC 7636): the verifier whose S256 challenge the authorize request sent as `code_challenge`. Required exactly when a challenge was sent.'),
  })
  .meta({ id: 'integrations.IntegrationInsertRequest' });

/** integrations.insert response: the organization's API key and the integration id. */
export const IntegrationInsertResponse = z
  .object({
    api_key: z.string().describe('Long-lived API key `svc_key_...` of the organization the user installed the app into (not of the user). Shown once: store it per organization.'),
    integration_id: Uuid.describe('The installed integration; send it as `Svc-Integration-ID` with the key.'),
  })
  .meta({ id: 'integrations.IntegrationInsertResponse' });

/** integrations.get response: the calling integration. */
export const IntegrationDetail = z
  .object({
    integration_id: Uuid.describe('The calling integration (the Svc-Integration-ID sent).'),
    client_id: Uuid.describe('The client (app) it was installed for.'),
    organization: z.object({ id: Uuid, name: z.string() }).describe('The organization the key belongs to: store the key per organization.'),
    scopes: z.array(z.enum(['repairer', 'supplier'])).describe('Scopes granted at installation.'),
    installed_at: Timestamp,
  })
  .meta({ id: 'integrations.IntegrationDetail' });

/** integrations.access-codes.insert (internal): the consent page's code for an app an owner or admin allowed. */
export const AccessCodeIssueRequest = z.strictObject({
  client_id: z.string().min(1).max(200),
  redirect_url: z.string().min(1).max(2000),
  scopes: z.array(z.string().min(1).max(100)).max(50),
  code_challenge: z.string().min(1).max(200).nullable(),
});
export const AccessCodeIssued = z.object({ code: z.string() });

// Operator operations on integration clients (internal, access system): `core-server admin client ...` invokes them as the system.
/** integrations.clients.insert (internal). */
export const ClientInsertRequest = z.strictObject({ name: z.string().max(1000), redirect_urls: z.array(z.string().max(2000)).max(100), scopes: z.array(z.string().max(100)).max(50) });
/** A client's new secret, shown once. */
export const ClientSecretIssued = z.object({ client_id: z.string(), client_secret: z.string(), secret_id: z.string() });
/** integrations.clients.rotate-secret (internal). */
export const ClientSecretRotateRequest = z.strictObject({ client_id: z.string().max(200) });
/** integrations.clients.revoke-secret (internal). */
export const ClientSecretRevokeRequest = z.strictObject({ client_id: z.string().max(200), secret_id: z.string().max(200) });

/** integrations.clients.get (internal): what the install consent page shows of an app; no secrets. */
export const ClientGetRequest = z.strictObject({ client_id: z.string().max(200) });
export const ClientPublicDetail = z.object({ id: z.string(), name: z.string(), redirect_urls: z.array(z.string()), scopes: z.array(z.string()) });
