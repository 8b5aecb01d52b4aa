// Given events / when command / then events or error code: the integration client and installation deciders.
import { expect } from 'chai';
import { type ClientCommand, type ClientEvent, clientDecider } from '../../src/domain/integrations/client.ts';
import { type IntegrationCommand, type IntegrationEvent, integrationDecider } from '../../src/domain/integrations/integration.ts';
import { given } from './given.ts';

const NOW = '2026-01-15T09:00:00.000Z';
const C = '01900000-0000-7000-8000-000000000001';
const S1 = '01900000-0000-7000-8000-0000000000a1';
const S2 = '01900000-0000-7000-8000-0000000000a2';
const S3 = '01900000-0000-7000-8000-0000000000a3';
const I = '01900000-0000-7000-8000-0000000000b1';
const ORG = '01900000-0000-7000-8000-0000000000c1';
const USER = '01900000-0000-7000-8000-0000000000d1';

const client = (events: ClientEvent[]) => given(clientDecider, events);
const integration = (events: IntegrationEvent[]) => given(integrationDecider, events);

const register = (over: Partial<Extract<ClientCommand, { type: 'RegisterClient' }>['data']> = {}): ClientCommand => ({
  type: 'RegisterClient',
  data: { client_id: C, name: 'Bodyshop Sync', redirect_urls: ['https://app.example/cb'], scopes: ['repairer'], secret_id: S1, secret_hash: 'h1', now: NOW, ...over },
});
const registered: ClientEvent = {
  type: 'IntegrationClientRegistered',
  data: { client_id: C, name: 'Bodyshop Sync', redirect_urls: ['https://app.example/cb'], scopes: ['repairer'], secret_id: S1, secret_hash: 'h1', registered_at: NOW },
};

describe('integration client decider', () => {
  it('registers a client with its first secret', () => {
    client([]).when(register()).then([registered]);
    expect(registered.data).to.include({ client_id: C, name: 'Bodyshop Sync', secret_id: S1, registered_at: NOW });
  });

  it('refuses redirect URLs that are not absolute https (http only on loopback), or carry a fragment', () => {
    for (const url of ['http://app.example/cb', '/cb', 'https://app.example/cb#x', 'https://u:p@app.example/cb', 'javascript:alert(1)'])
      client([]).when(register({ redirect_urls: [url] })).thenError('invalid_redirect_url');
    client([]).when(register({ redirect_urls: ['http://127.0.0.1:4000/cb', 'http://localhost/cb'] })).then([
      { type: 'IntegrationClientRegistered', data: { ...registered.data, redirect_urls: ['http://127.0.0.1:4000/cb', 'http://localhost/cb'] } },
    ]);
  });

  it('refuses no redirect URL, no scope, an empty name, and a second registration', () => {
    client([]).when(register({ redirect_urls: [] })).thenError('invalid_redirect_url');
    client([]).when(register({ scopes: [] })).thenError('invalid_scope');
    client([]).when(register({ name: '  ' })).thenError('invalid_name');
    client([registered]).when(register()).thenError('client_exists');
  });

  it('rotation adds a second valid secret but not a third', () => {
    const added = client([registered]).when({ type: 'AddClientSecret', data: { secret_id: S2, secret_hash: 'h2', now: NOW } })
      .then([{ type: 'ClientSecretAdded', data: { secret_id: S2, secret_hash: 'h2', added_at: NOW } }]);
    client([registered, ...added]).when({ type: 'AddClientSecret', data: { secret_id: S3, secret_hash: 'h3', now: NOW } }).thenError('secret_limit_reached');
  });

  it('revokes a valid secret once; an unknown or revoked one is secret_not_found; unknown client is client_not_found', () => {
    const revoked = client([registered]).when({ type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } })
      .then([{ type: 'ClientSecretRevoked', data: { secret_id: S1, revoked_at: NOW } }]);
    client([registered, ...revoked]).when({ type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } }).thenError('secret_not_found');
    client([]).when({ type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } }).thenError('client_not_found');
    client([]).when({ type: 'AddClientSecret', data: { secret_id: S2, secret_hash: 'h', now: NOW } }).thenError('client_not_found');
  });
});

describe('installed integration decider', () => {
  const install: IntegrationCommand = { type: 'InstallIntegration', data: { integration_id: I, client_id: C, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: 'k', now: NOW } };
  const installed: IntegrationEvent = {
    type: 'IntegrationInstalled',
    data: { integration_id: I, client_id: C, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: 'k', installed_at: NOW },
  };
  const remove = (reason: 'uninstalled' | 'access_code_replayed'): IntegrationCommand => ({ type: 'RemoveIntegration', data: { integration_id: I, reason, now: NOW } });

  it('installs once', () => {
    integration([]).when(install).then([installed]);
    integration([installed]).when(install).thenError('invalid_grant');
  });

  it('removal is recorded once with its reason; uninstalling an unknown integration is not found', () => {
    const removed = integration([installed]).when(remove('uninstalled')).then([{ type: 'IntegrationRemoved', data: { integration_id: I, reason: 'uninstalled', removed_at: NOW } }]);
    integration([installed, ...removed]).when(remove('access_code_replayed')).thenNothing();
    integration([]).when(remove('uninstalled')).thenError('integration_not_found');
  });

  it('a replay revocation that arrives before the installation stops it from ever becoming active', () => {
    const early = integration([]).when(remove('access_code_replayed')).then([{ type: 'IntegrationRemoved', data: { integration_id: I, reason: 'access_code_replayed', removed_at: NOW } }]);
    integration(early).when(install).thenError('invalid_grant');
  });
});
