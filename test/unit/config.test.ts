// Configuration from the environment: defaults, derived URLs, and errors naming the variable.
import { expect } from 'chai';
import path from 'node:path';
import { EventStoreDBClient } from '@eventstore/db-client';
import { ConfigError, DEVELOPMENT_WEBHOOK_SECRET, eventStoreProblem, loadConfig, parseEventStore } from '../../src/config.ts';

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

  describe('SANDBOX_WEBHOOK_SECRET', () => {
    const own = 'an-operator-secret-of-32-characters';

    it('outside development (a non-loopback HOST, or NODE_ENV=production) is required, and may not be the published default', () => {
      const outside: Record<string, string>[] = [{ HOST: '0.0.0.0' }, { HOST: '::' }, { HOST: '10.0.0.5' }, { NODE_ENV: 'production' }, { HOST: 'localhost', NODE_ENV: 'production' }];
      for (const env of outside) {
        expect(configError(env).message, JSON.stringify(env)).to.contain('SANDBOX_WEBHOOK_SECRET');
        expect(configError({ ...env, SANDBOX_WEBHOOK_SECRET: DEVELOPMENT_WEBHOOK_SECRET }).message, JSON.stringify(env)).to.contain('SANDBOX_WEBHOOK_SECRET');
        expect(loadConfig({ ...env, SANDBOX_WEBHOOK_SECRET: own })).to.include({ sandboxWebhookSecret: own, sandboxWebhookSecretIsDefault: false });
      }
      // Named with the other bad variables, not after them.
      const both = configError({ HOST: '0.0.0.0', PORT: 'abc' }).message;
      for (const name of ['PORT', 'SANDBOX_WEBHOOK_SECRET']) expect(both).to.contain(name);
    });

    it('in development (loopback HOST, NODE_ENV not production) defaults to the development value and says so', () => {
      const development: Record<string, string>[] = [{}, { HOST: '127.0.0.1' }, { HOST: 'localhost' }, { HOST: '::1' }, { NODE_ENV: 'development' }];
      for (const env of development) {
        expect(loadConfig(env), JSON.stringify(env)).to.include({ sandboxWebhookSecret: DEVELOPMENT_WEBHOOK_SECRET, sandboxWebhookSecretIsDefault: true });
      }
      expect(loadConfig({ SANDBOX_WEBHOOK_SECRET: own }).sandboxWebhookSecretIsDefault).to.equal(false);
      expect(configError({ SANDBOX_WEBHOOK_SECRET: 'short' }).message).to.contain('SANDBOX_WEBHOOK_SECRET');
    });
  });

  describe('OBJECT_STORE', () => {
    it('is a file store under DATA_DIR by default, and parses file: and s3:// values', () => {
      expect(loadConfig({}).objectStorage).to.deep.equal({ kind: 'file', dir: path.resolve('./data/objects') });
      expect(loadConfig({ OBJECT_STORE: 'file:/srv/objects' }).objectStorage).to.deep.equal({ kind: 'file', dir: '/srv/objects' });
      expect(loadConfig({ OBJECT_STORE: 's3://my-bucket/core', S3_ENDPOINT: 'http://127.0.0.1:9000' }).objectStorage).to.deep.equal({ kind: 's3', bucket: 'my-bucket', prefix: 'core', endpoint: 'http://127.0.0.1:9000' });
    });

    it('names OBJECT_STORE and OBJECT_URL_SECRET when they are unusable', () => {
      for (const bad of ['ftp://x', 'file:', 's3://', 's3://UPPER']) expect(configError({ OBJECT_STORE: bad }).message, bad).to.contain('OBJECT_STORE');
      expect(configError({ OBJECT_URL_SECRET: 'short' }).message).to.contain('OBJECT_URL_SECRET');
    });
  });

  describe('TRUST_PROXY and the caps (issue 25)', () => {
    it('trusts no proxy by default, and parses comma-separated addresses, CIDR ranges and express names', () => {
      expect(loadConfig({}).trustProxy).to.deep.equal([]);
      expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).to.deep.equal(['loopback']);
      expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,uniquelocal' }).trustProxy).to.deep.equal(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', 'uniquelocal']);
    });

    it('names TRUST_PROXY for anything else, trusting every caller or a hop count included', () => {
      for (const bad of ['true', '1', '*', 'proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/1', 'loopback,nonsense']) {
        const err = configError({ TRUST_PROXY: bad });
        expect(err.message, bad).to.contain('TRUST_PROXY');
        expect(err.message, bad).to.contain('is not a proxy address');
      }
    });

    it('has caps by default (20 streams per token, 100 per organization, 60 upload URLs a minute) and names a bad one', () => {
      const c = loadConfig({});
      expect(c.streamCaps).to.deep.equal({ perToken: 20, perOrganization: 100 });
      expect(c.rateLimits.uploadUrlsPerMinute).to.equal(60);
      expect(loadConfig({ STREAMS_PER_TOKEN: '5', STREAMS_PER_ORGANIZATION: '50', RATE_LIMIT_UPLOAD_URLS_PER_MINUTE: '600' })).to.deep.include({ streamCaps: { perToken: 5, perOrganization: 50 } });
      for (const [name, bad] of [['STREAMS_PER_TOKEN', '0'], ['STREAMS_PER_ORGANIZATION', 'many'], ['RATE_LIMIT_UPLOAD_URLS_PER_MINUTE', '9']] as const) expect(configError({ [name]: bad }).message, name).to.contain(name);
    });
  });

  describe('EVENT_STORE', () => {
    it('is the Postgres log by default', () => {
      expect(loadConfig({}).eventLog).to.deep.equal({ kind: 'postgres' });
      expect(loadConfig({ EVENT_STORE: 'postgres' }).eventLog).to.deep.equal({ kind: 'postgres' });
    });

    it('selects EventStoreDB with esdb:// and esdb+discover://, and KurrentDB spellings as the same for the client', () => {
      const cases: [string, string][] = [
        ['esdb://host:2113?tls=false', 'esdb://host:2113?tls=false'],
        ['esdb://127.0.0.1:2113?tls=false', 'esdb://127.0.0.1:2113?tls=false'],
        ['esdb+discover://cluster.example:2113', 'esdb+discover://cluster.example:2113'],
        ['kurrentdb://127.0.0.1:2113?tls=false', 'esdb://127.0.0.1:2113?tls=false'],
        ['kurrentdb+discover://admin:changeit@a.example:2113?nodePreference=follower', 'esdb+discover://admin:changeit@a.example:2113?nodePreference=follower'],
        ['esdb://a:2113,b:2113,c:2113?tls=true&keepAliveInterval=5000&defaultDeadline=3000&connectionName=core', 'esdb://a:2113,b:2113,c:2113?tls=true&keepAliveInterval=5000&defaultDeadline=3000&connectionName=core'],
        ['esdb://localhost', 'esdb://localhost'],
      ];
      for (const [value, connectionString] of cases) {
        const log = loadConfig({ EVENT_STORE: value }).eventLog;
        expect(log, value).to.include({ kind: 'esdb', connectionString });
        // What we accept, the client's own parser accepts (it connects lazily: nothing is dialled here).
        const client = EventStoreDBClient.connectionString(connectionString);
        void client.dispose();
      }
    });

    it('hides the password in what it prints and keeps the spelling the operator used', () => {
      expect(parseEventStore('kurrentdb://admin:s3cret@db.example:2113?tls=true')).to.deep.include({ display: 'kurrentdb://admin:***@db.example:2113?tls=true' });
      expect(parseEventStore('esdb://db.example:2113?tls=false')).to.deep.include({ display: 'esdb://db.example:2113?tls=false' });
    });

    it('names EVENT_STORE and what is wrong for a bad value', () => {
      const cases: [string, string][] = [
        ['kafka', 'must be "postgres" or an esdb://'],
        ['http://127.0.0.1:2113', 'must be "postgres" or an esdb://'],
        ['esdb://', 'is not host[:port]'],
        ['esdb://host:99999', 'out of range'],
        ['esdb://host:2113?tls=maybe', 'tls must be true or false'],
        ['esdb://host:2113?keepAliveInterval=soon', 'must be a whole number'],
        ['esdb://host:2113?nodePreference=fastest', 'nodePreference must be'],
        ['esdb://host:2113?colour=blue', 'unknown option colour'],
        ['esdb://host:2113?tls', 'is not key=value'],
      ];
      for (const [value, message] of cases) {
        expect(eventStoreProblem(value), value).to.contain(message);
        const err = configError({ EVENT_STORE: value });
        expect(err.message, value).to.contain('EVENT_STORE');
        expect(err.message, value).to.contain(message);
      }
      expect(() => parseEventStore('esdb://')).to.throw(ConfigError, 'EVENT_STORE');
    });
  });
});
