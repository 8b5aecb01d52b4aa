// integrations.insert (exchange an access code for an API key) and integrations.remove (uninstall).
import { operation } from '../../contract/operation.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { IntegrationInsertRequest, IntegrationInsertResponse } from '../../contract/schemas/integrations.ts';
import { clientSecretMatches, getClient } from '../../queries/integrations/integrations.ts';
import { membership } from '../../queries/identity/identity.ts';
import { hashSecret, newSecret } from '../../secrets.ts';
import type { RequestContext } from '../../context.ts';
import { installations } from './handlers.ts';
import { type AccessCodeRow, claimAccessCode, findAccessCode, pkceSatisfied } from './access-codes.ts';
import { integrationsProjection } from '../../projections/integrations/integrations.ts';
import { integrationsErrors } from '../../domain/integrations/errors.ts';

const invalidGrant = (why: string) => integrationsErrors.error('invalid_grant', `The access code is invalid: ${why}. Start the installation again.`);

// A used code presented again means it leaked: revoke whatever was made from it (RFC 6749 4.1.2, RFC 9700 4.2.4 spirit).
async function revokeReplayed(ctx: RequestContext, row: AccessCodeRow): Promise<void> {
  if (!row.integration_id) return;
  await installations.run(ctx, row.integration_id, {
    type: 'RemoveIntegration',
    data: { integration_id: row.integration_id, reason: 'access_code_replayed' },
  }, { orgId: row.organization_id, reason: 'access code presented a second time' });
  // The error that follows is answered once the key no longer works.
  await ctx.readYourWrites();
}

/** integrations.insert: code exchange (public, no-store). */
export const integrationsInsert = operation({
  id: 'integrations.insert',
  examples: {
    request: { access_code: 'ac_7Yp2Kq', client_id: '019396da-4938-7769-803a-6515a8785c7f', client_secret: 'cs_live_5b1e' },
    response: { api_key: 'svc_key_8Hq2mZp4Rt', integration_id: '0193f348-d469-7945-89dc-4c7049a178ae' },
  },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Completes an installation: exchanges the access code from the redirect for an API key.',
  description:
    'Call this from your server with the `code` your redirect URL received, your client id and client secret. ' +
    'The code is valid for 15 minutes and for one exchange; presenting a used code again fails and revokes the key made from it. ' +
    'Wrong client credentials -> 401 `invalid_client`; an unknown, expired, used or foreign code -> 400 `invalid_grant`. No Authorization header.',
  request: IntegrationInsertRequest,
  response: IntegrationInsertResponse,
  error: 'integrations.IntegrationInsertError',
  errors: integrationsErrors.list('invalid_client', 'invalid_grant', 'rate_limited'),
  access: 'public',
  headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  readModels: [integrationsProjection],
  async handle(ctx, req) {
    const knex = ctx.services.knex;
    const client = await getClient(knex, req.client_id);
    if (!client || !clientSecretMatches(client, req.client_secret)) throw ctx.errors.error('invalid_client', 'Client authentication failed: unknown client_id or wrong client_secret.');
    const row = await findAccessCode(knex, req.access_code);
    if (!row || row.client_id !== client.id) throw invalidGrant('it was not issued to this client');
    if (row.used_at !== null) {
      await revokeReplayed(ctx, row);
      throw invalidGrant('it was already used');
    }
    if (new Date(row.expires_at).getTime() <= ctx.now.getTime()) throw invalidGrant('it has expired');
    if (!pkceSatisfied(row, req.code_verifier)) throw invalidGrant('the code_verifier does not match the code_challenge of the authorize request');
    const member = await membership(knex, row.organization_id, row.user_id);
    if (member?.role !== 'owner' && member?.role !== 'admin') throw invalidGrant('the user who approved it may no longer install apps in the organization');
    const integrationId = ctx.ids.next();
    if (!(await claimAccessCode(knex, row.code_hash, integrationId, ctx.now))) {
      const now = await findAccessCode(knex, req.access_code);
      if (now) await revokeReplayed(ctx, now);
      throw invalidGrant('it was already used');
    }
    const apiKey = newSecret('svc_key_');
    await installations.run(ctx, integrationId, {
      type: 'InstallIntegration',
      data: { integration_id: integrationId, client_id: client.id, organization_id: row.organization_id, installed_by: row.user_id, scopes: row.scopes, api_key_hash: hashSecret(apiKey) },
    }, { orgId: row.organization_id });
    await ctx.readYourWrites();
    return { api_key: apiKey, integration_id: integrationId };
  },
});

/** integrations.remove: uninstall the calling integration. */
export const integrationsRemove = operation({
  id: 'integrations.remove',
  examples: {
    request: null,
    response: {},
  },
  surface: 'integrations',
  tags: ['Integrations'],
  summary: 'Uninstalls the calling integration: its API key stops working at once.',
  description: 'Removes the integration named by `Svc-Integration-ID` (the key\'s own). To install again, run the install flow again.',
  request: null,
  response: Empty,
  error: 'integrations.IntegrationRemoveError',
  errors: integrationsErrors.list(),
  access: { integration: 'any' },
  readModels: [integrationsProjection],
  async handle(ctx) {
    if (ctx.auth.kind !== 'integration') throw ctx.errors.error('unauthenticated', 'An integration API key is required.');
    const id = ctx.auth.integrationId;
    await installations.run(ctx, id, { type: 'RemoveIntegration', data: { integration_id: id, reason: 'uninstalled' } }, { orgId: ctx.auth.organizationId });
    await ctx.readYourWrites();
    return {};
  },
});

/** The integrations.* operations. */
export const integrationOperations = [integrationsInsert, integrationsRemove];
