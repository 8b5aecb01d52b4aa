// integrations.get: describes the calling integration (which organization its key belongs to, and its scopes).
import { operation } from '../../contract/operation.ts';
import { IntegrationDetail } from '../../contract/schemas/integrations.ts';
import { getOrganization } from '../identity/identity.ts';
import { getInstall } from './integrations.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';

/** integrations.get: which organization the key belongs to. */
export const integrationsGet = operation({
  id: 'integrations.get',
  examples: {
    request: null,
    response: {
      integration_id: '0193f348-d469-7945-89dc-4c7049a178ae',
      client_id: '019396da-4938-7769-803a-6515a8785c7f',
      organization: { id: '0193472c-1f99-732d-8f1b-0abb219cd679', name: 'Acme Repairs Ltd' },
      scopes: ['repairer'],
      installed_at: '2026-01-15T09:30:00.000Z',
    },
  },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Describes the calling integration: its organization, scopes and installation time.',
  description: 'An extension: after integrations.insert an app calls this to learn which organization the new key belongs to.',
  request: null,
  response: IntegrationDetail,
  error: 'integrations.IntegrationGetError',
  errors: integrationsErrors.list(),
  access: { integration: 'any' },
  async handle(ctx) {
    if (ctx.auth.kind !== 'integration') throw ctx.errors.error('unauthenticated', 'An integration API key is required.');
    const knex = ctx.services.knex;
    const install = await getInstall(knex, ctx.auth.integrationId);
    const org = await getOrganization(knex, ctx.auth.organizationId);
    if (!install || !org) throw ctx.errors.error('unauthenticated', 'The integration is no longer installed.');
    return {
      integration_id: install.id,
      client_id: install.client_id,
      organization: { id: org.id, name: org.name },
      scopes: install.scopes,
      installed_at: install.installed_at,
    };
  },
});
