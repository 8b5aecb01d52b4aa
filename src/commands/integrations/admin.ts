// Operator operations on integration clients (internal, access system): register an app, rotate and revoke its secrets, as the
// CLI's `admin client ...` commands invoke them (job `cli`). Never routed over HTTP.
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { ClientInsertRequest, ClientSecretIssued, ClientSecretRevokeRequest, ClientSecretRotateRequest } from '../../contract/schemas/integrations.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';
import { isScope } from '../../domain/integrations/scopes.ts';
import { createClient, revokeClientSecret, rotateClientSecret } from './clients.ts';

/** integrations.clients.insert */
export const clientsInsert = operation({
  id: 'integrations.clients.insert',
  surface: 'internal',
  tags: ['Integrations'],
  summary: 'Registers an app that may be installed; answers its first secret, shown once (`admin client create`).',
  request: ClientInsertRequest,
  response: ClientSecretIssued,
  error: 'integrations.ClientInsertError',
  errors: integrationsErrors.list('invalid_request'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const scopes = req.scopes.filter(isScope);
    if (scopes.length !== req.scopes.length) throw ctx.errors.error('invalid_request', `Unknown scope: ${req.scopes.filter((s) => !isScope(s)).join(', ')}.`);
    const res = await createClient(ctx, { name: req.name, redirectUrls: req.redirect_urls, scopes });
    return { client_id: res.clientId, client_secret: res.clientSecret, secret_id: res.secretId };
  },
});

/** integrations.clients.rotate-secret */
export const clientsRotateSecret = operation({
  id: 'integrations.clients.rotate-secret',
  surface: 'internal',
  tags: ['Integrations'],
  summary: "Adds a second valid secret to a client; the old one keeps working until it is revoked (`admin client rotate-secret`).",
  request: ClientSecretRotateRequest,
  response: ClientSecretIssued,
  error: 'integrations.ClientSecretError',
  errors: integrationsErrors.list('client_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const res = await rotateClientSecret(ctx, req.client_id);
    return { client_id: req.client_id, client_secret: res.clientSecret, secret_id: res.secretId };
  },
});

/** integrations.clients.revoke-secret */
export const clientsRevokeSecret = operation({
  id: 'integrations.clients.revoke-secret',
  surface: 'internal',
  tags: ['Integrations'],
  summary: 'Revokes one secret of a client at once (`admin client revoke-secret`).',
  request: ClientSecretRevokeRequest,
  response: Empty,
  error: 'integrations.ClientSecretError',
  errors: integrationsErrors.list('client_not_found', 'secret_not_found'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    await revokeClientSecret(ctx, req.client_id, req.secret_id);
    return {};
  },
});

/** The integrations area's operator operations. */
export const integrationAdminCommands = [clientsInsert, clientsRotateSecret, clientsRevokeSecret];
