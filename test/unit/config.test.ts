// Configuration from the environment: defaults, derived URLs, and errors naming the variable.
import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('has working defaults: embedded database in ./data, port 8080, URLs on localhost', () => {
    const c = loadConfig({});
    expect(c).to.include({ port: 8080, eventStore: 'postgres', baseUrl: 'http://localhost:8080', integrationsUrl: 'http://localhost:8080', appUrl: 'http://localhost:8080' });
    expect(c.databaseUrl).to.equal(undefined);
    expect(c.dataDir).to.equal(path.resolve('./data'));
    expect(c.objectStore).to.equal(`file:${path.resolve('./data/objects')}`);
  });

  it('derives URLs from PORT and BASE_URL, without a trailing slash', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).to.equal('http://localhost:9000');
    const c = loadConfig({ BASE_URL: 'https://api.example.com/', APP_URL: 'https://app.example.com' });
    expect(c).to.include({ baseUrl: 'https://api.example.com', integrationsUrl: 'https://api.example.com', appUrl: 'https://app.example.com' });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' })).to.include({ port: 8080, databaseUrl: undefined });
  });

  it('names every bad variable', () => {
    const err = configError({ PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', EVENT_STORE: 'kafka', BASE_URL: 'not a url', SESSION_TTL_HOURS: '0' });
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'EVENT_STORE', 'BASE_URL', 'SESSION_TTL_HOURS']) expect(err.message).to.contain(name);
    expect(configError({ PORT: '70000' }).message).to.contain('PORT');
  });
});
