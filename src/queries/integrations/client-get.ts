// integrations.clients.get (internal): the install consent page's view of an app (name, redirect URLs, scopes), read before
// anyone signs in. Public access: an install link names its client id, and nothing secret is answered.
import { operation } from '../../contract/operation.ts';
import { ClientGetRequest, ClientPublicDetail } from '../../contract/schemas/integrations.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';
import { getClient } from './integrations.ts';

/** integrations.clients.get */
export const clientsGet = operation({
  id: 'integrations.clients.get',
  surface: 'internal',
  tags: ['Integrations'],
  summary: 'Describes a registered app for its install consent page: name, redirect URLs and scopes.',
  request: ClientGetRequest,
  response: ClientPublicDetail,
  error: 'integrations.ClientGetError',
  errors: integrationsErrors.list('client_not_found'),
  access: 'public',
  async handle(ctx, req) {
    const client = await getClient(ctx.services.knex, req.client_id);
    if (!client) throw ctx.errors.error('client_not_found', 'No app is registered with that client id.');
    return { id: client.id, name: client.name, redirect_urls: client.redirect_urls, scopes: client.scopes };
  },
});
