// Given events / when command / then events or error code: the integration client and installation deciders.
import { expect } from 'chai';
import { type ClientCommand, type ClientEvent, clientDecider } from '../../src/domain/integrations/client.ts';
import { type IntegrationCommand, type IntegrationEvent, integrationDecider } from '../../src/domain/integrations/integration.ts';
import { DomainError } from '../../src/domain/errors.ts';

const NOW = '2026-01-15T09:00:00.000Z';
const C = '01900000-0000-7000-8000-000000000001';
const S1 = '01900000-0000-7000-8000-0000000000a1';
const S2 = '01900000-0000-7000-8000-0000000000a2';
const S3 = '01900000-0000-7000-8000-0000000000a3';
const I = '01900000-0000-7000-8000-0000000000b1';
const ORG = '01900000-0000-7000-8000-0000000000c1';
const USER = '01900000-0000-7000-8000-0000000000d1';

function givenClient(events: ClientEvent[], command: ClientCommand): ClientEvent[] {
  return clientDecider.decide(command, events.reduce(clientDecider.evolve, clientDecider.initialState()));
}
function givenIntegration(events: IntegrationEvent[], command: IntegrationCommand): IntegrationEvent[] {
  return integrationDecider.decide(command, events.reduce(integrationDecider.evolve, integrationDecider.initialState()));
}
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  throw new Error('expected a DomainError');
}

const register = (over: Partial<Extract<ClientCommand, { type: 'RegisterClient' }>['data']> = {}): ClientCommand => ({
  type: 'RegisterClient',
  data: { client_id: C, name: 'Bodyshop Sync', redirect_urls: ['https://app.example/cb'], scopes: ['repairer'], secret_id: S1, secret_hash: 'h1', now: NOW, ...over },
});
const registered: ClientEvent = givenClient([], register())[0]!;

describe('integration client decider', () => {
  it('registers a client with its first secret', () => {
    expect(registered).to.deep.include({ type: 'IntegrationClientRegistered' });
    expect(registered.data).to.include({ client_id: C, name: 'Bodyshop Sync', secret_id: S1, registered_at: NOW });
  });

  it('refuses redirect URLs that are not absolute https (http only on loopback), or carry a fragment', () => {
    for (const url of ['http://app.example/cb', '/cb', 'https://app.example/cb#x', 'https://u:p@app.example/cb', 'javascript:alert(1)'])
      expect(codeOf(() => givenClient([], register({ redirect_urls: [url] }))), url).to.equal('invalid_redirect_url');
    expect(givenClient([], register({ redirect_urls: ['http://127.0.0.1:4000/cb', 'http://localhost/cb'] }))).to.have.length(1);
  });

  it('refuses no redirect URL, no scope, an empty name, and a second registration', () => {
    expect(codeOf(() => givenClient([], register({ redirect_urls: [] })))).to.equal('invalid_redirect_url');
    expect(codeOf(() => givenClient([], register({ scopes: [] })))).to.equal('invalid_scope');
    expect(codeOf(() => givenClient([], register({ name: '  ' })))).to.equal('invalid_name');
    expect(codeOf(() => givenClient([registered], register()))).to.equal('client_exists');
  });

  it('rotation adds a second valid secret but not a third', () => {
    const added = givenClient([registered], { type: 'AddClientSecret', data: { secret_id: S2, secret_hash: 'h2', now: NOW } });
    expect(added.map((e) => e.type)).to.deep.equal(['ClientSecretAdded']);
    expect(codeOf(() => givenClient([registered, ...added], { type: 'AddClientSecret', data: { secret_id: S3, secret_hash: 'h3', now: NOW } }))).to.equal('secret_limit_reached');
  });

  it('revokes a valid secret once; an unknown or revoked one is secret_not_found; unknown client is client_not_found', () => {
    const revoked = givenClient([registered], { type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } });
    expect(revoked.map((e) => e.type)).to.deep.equal(['ClientSecretRevoked']);
    expect(codeOf(() => givenClient([registered, ...revoked], { type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } }))).to.equal('secret_not_found');
    expect(codeOf(() => givenClient([], { type: 'RevokeClientSecret', data: { secret_id: S1, now: NOW } }))).to.equal('client_not_found');
    expect(codeOf(() => givenClient([], { type: 'AddClientSecret', data: { secret_id: S2, secret_hash: 'h', now: NOW } }))).to.equal('client_not_found');
  });
});

describe('installed integration decider', () => {
  const install: IntegrationCommand = { type: 'InstallIntegration', data: { integration_id: I, client_id: C, organization_id: ORG, installed_by: USER, scopes: ['repairer'], api_key_hash: 'k', now: NOW } };
  const installed = givenIntegration([], install)[0]!;
  const remove = (reason: 'uninstalled' | 'access_code_replayed'): IntegrationCommand => ({ type: 'RemoveIntegration', data: { integration_id: I, reason, now: NOW } });

  it('installs once', () => {
    expect(installed.type).to.equal('IntegrationInstalled');
    expect(codeOf(() => givenIntegration([installed], install))).to.equal('invalid_grant');
  });

  it('removal is recorded once with its reason; uninstalling an unknown integration is not found', () => {
    const removed = givenIntegration([installed], remove('uninstalled'));
    expect(removed[0]!.data).to.include({ reason: 'uninstalled' });
    expect(givenIntegration([installed, ...removed], remove('access_code_replayed'))).to.deep.equal([]);
    expect(codeOf(() => givenIntegration([], remove('uninstalled')))).to.equal('integration_not_found');
  });

  it('a replay revocation that arrives before the installation stops it from ever becoming active', () => {
    const early = givenIntegration([], remove('access_code_replayed'));
    expect(early.map((e) => e.type)).to.deep.equal(['IntegrationRemoved']);
    expect(codeOf(() => givenIntegration(early, install))).to.equal('invalid_grant');
  });
});
