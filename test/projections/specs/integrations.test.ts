// Integration clients and installations, given their events: what the operator's client list and the API key check read.
import { backends } from '../../support/db.ts';
import type { ClientEvent } from '../../../src/domain/integrations/client.ts';
import type { IntegrationEvent } from '../../../src/domain/integrations/integration.ts';
import { integrationsProjection } from '../../../src/projections/integrations/integrations.ts';
import { on, projectionSpec } from '../spec.ts';
import { ORG } from './fixtures.ts';

const CLIENT = '0190c6a2-0000-7000-8000-000000001c01';
const S1 = '0190c6a2-0000-7000-8000-000000005e01';
const S2 = '0190c6a2-0000-7000-8000-000000005e02';
const I1 = '0190c6a2-0000-7000-8000-000000001101';
const I2 = '0190c6a2-0000-7000-8000-000000001102';
const I3 = '0190c6a2-0000-7000-8000-000000001103';
const USER = '0190c6a2-0000-7000-8000-0000000000f1';
const AT = '2026-01-15T09:00:00.000Z';
const LATER = '2026-01-20T09:00:00.000Z';

for (const backend of backends()) {
  describe(`integrations projection spec (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('a client with a rotated secret; an installation uninstalled, one active, and a replay revocation that beat its installation', async () => {
      const installed = (integration_id: string): IntegrationEvent => ({
        type: 'IntegrationInstalled',
        data: { integration_id, client_id: CLIENT, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: `k-${integration_id.slice(-1)}`, installed_at: AT },
      });
      await spec.given(integrationsProjection, [
        ...on<ClientEvent>(`integrationclient-${CLIENT}`, [
          { type: 'IntegrationClientRegistered', data: { client_id: CLIENT, name: 'Bodyshop Sync', redirect_urls: ['https://app.example/cb'], scopes: ['repairer', 'supplier'], secret_id: S1, secret_hash: 'h1', registered_at: AT } },
          { type: 'ClientSecretAdded', data: { secret_id: S2, secret_hash: 'h2', added_at: LATER } },
          { type: 'ClientSecretRevoked', data: { secret_id: S1, revoked_at: LATER } },
        ]),
        ...on<IntegrationEvent>(`integration-${I1}`, [installed(I1), { type: 'IntegrationRemoved', data: { integration_id: I1, reason: 'uninstalled', removed_at: LATER } }]),
        ...on<IntegrationEvent>(`integration-${I2}`, [installed(I2)]),
        ...on<IntegrationEvent>(`integration-${I3}`, [{ type: 'IntegrationRemoved', data: { integration_id: I3, reason: 'access_code_replayed', removed_at: AT } }]),
      ]).then({
        integration_clients: [
          {
            id: CLIENT, name: 'Bodyshop Sync', redirect_urls: ['https://app.example/cb'], scopes: ['repairer', 'supplier'], registered_at: AT,
            secrets: [
              { secret_id: S1, secret_hash: 'h1', created_at: AT, revoked_at: LATER },
              { secret_id: S2, secret_hash: 'h2', created_at: LATER, revoked_at: null },
            ],
          },
        ],
        integration_installs: [
          { id: I1, client_id: CLIENT, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: 'k-1', status: 'removed', installed_at: AT, removed_at: LATER, removed_reason: 'uninstalled' },
          { id: I2, client_id: CLIENT, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: 'k-2', status: 'active', installed_at: AT, removed_at: null, removed_reason: null },
        ],
      });
    });
  });
}
