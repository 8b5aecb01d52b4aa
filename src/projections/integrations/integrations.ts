// Read models of integration clients and installed integrations. Read by queries/integrations/integrations.ts.
import { type ClientEvent, clientCodec } from '../../domain/integrations/client.ts';
import { type IntegrationEvent, integrationCodec } from '../../domain/integrations/integration.ts';
import type { Scope } from '../../domain/integrations/scopes.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** integration_clients.doc */
export interface ClientDoc {
  id: string;
  name: string;
  redirect_urls: string[];
  scopes: Scope[];
  secrets: { secret_id: string; secret_hash: string; created_at: string; revoked_at: string | null }[];
  registered_at: string;
}

/** integration_installs.doc */
export interface InstallDoc {
  id: string;
  client_id: string;
  organization_id: string;
  installed_by: string;
  scopes: Scope[];
  api_key_hash: string;
  status: 'active' | 'removed';
  installed_at: string;
  removed_at: string | null;
  removed_reason: string | null;
}

/** Builds integration_clients and integration_installs from the client and integration streams. */
export const integrationsProjection = documentProjection({
  name: 'integrations',
  version: 1,
  tables: [
    documentTable<ClientDoc, ClientEvent>({
      table: 'integration_clients',
      events: clientCodec,
      columns: (d) => ({ name: d.name }),
      handlers: {
        IntegrationClientRegistered: (_doc, d) => ({
          id: d.client_id,
          name: d.name,
          redirect_urls: d.redirect_urls,
          scopes: d.scopes,
          secrets: [{ secret_id: d.secret_id, secret_hash: d.secret_hash, created_at: d.registered_at, revoked_at: null }],
          registered_at: d.registered_at,
        }),
        ClientSecretAdded: (doc, d) => doc && { ...doc, secrets: [...doc.secrets, { secret_id: d.secret_id, secret_hash: d.secret_hash, created_at: d.added_at, revoked_at: null }] },
        ClientSecretRevoked: (doc, d) => doc && { ...doc, secrets: doc.secrets.map((s) => (s.secret_id === d.secret_id ? { ...s, revoked_at: d.revoked_at } : s)) },
      },
    }),
    documentTable<InstallDoc, IntegrationEvent>({
      table: 'integration_installs',
      events: integrationCodec,
      columns: (d) => ({ client_id: d.client_id, organization_id: d.organization_id, status: d.status, api_key_hash: d.api_key_hash }),
      handlers: {
        IntegrationInstalled: (_doc, d) => ({
          id: d.integration_id,
          client_id: d.client_id,
          organization_id: d.organization_id,
          installed_by: d.installed_by,
          scopes: d.scopes,
          api_key_hash: d.api_key_hash,
          status: 'active',
          installed_at: d.installed_at,
          removed_at: null,
          removed_reason: null,
        }),
        // A revocation that beat its installation (code replay race) has no row to change.
        IntegrationRemoved: (doc, d) => (doc ? { ...doc, status: 'removed', removed_at: d.removed_at, removed_reason: d.reason } : undefined),
      },
    }),
  ],
});
