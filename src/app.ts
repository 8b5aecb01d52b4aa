// Composition root: builds the service (storage, event store, projections, HTTP) from configuration.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import type express from 'express';
import { type Clock, systemClock } from './clock.ts';
import { type Config, ConfigError } from './config.ts';
import { type Db, openPglite, openPostgres } from './db.ts';
import { PostgresEventStore } from './eventstore/postgres.ts';
import type { EventStore } from './eventstore/port.ts';
import { measuredStore } from './eventstore/measured.ts';
import { migrateLatest } from '../migrations/index.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { type CommitMode, ProjectionRunner } from './projections/runner.ts';
import { projections } from './projections/index.ts';
import { operations } from './api/operations.ts';
import { Registry } from './api/registry.ts';
import { createHttpApp, sessionAuthenticator } from './api/http.ts';
import type { Services } from './api/context.ts';
import { integrationAuthenticator } from './api/integration-auth.ts';
import { mountPages } from './pages/index.ts';
import { Workers } from './workers/index.ts';
import { mountPaymentPage } from './pages/pay.ts';

/** What to run in this process. */
export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Use this database instead of opening one from the configuration (tests). */
  db?: Db;
  http?: boolean;
  projections?: boolean;
  migrate?: boolean;
  /** Run the background workers on an interval (default off: tests drive them with `app.workers.runOnce()`). */
  workers?: boolean;
  /** Interval between worker passes (default 60 s). */
  workerIntervalMs?: number;
  /** How caught-up projections commit a batch (default together; see docs/decisions.md). */
  projectionCommitMode?: CommitMode;
}

/** A built service. */
export interface App extends Services {
  registry: Registry;
  express: express.Express;
  /** Background processors; started only when AppOptions.workers is set. */
  workers: Workers;
  server?: http.Server;
  /** Listens on `port` (0 = ephemeral) and returns the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** Opens the configured database: Postgres when DATABASE_URL is set, else embedded PGlite in DATA_DIR. */
export async function openDatabase(config: Config): Promise<Db> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(path.join(config.dataDir, 'pglite'));
}

/**
 * How caught-up projections commit a tail batch (docs/decisions.md): on Postgres separately, in
 * parallel on the pool, each releasing its own read-your-writes waiters; on PGlite, with one
 * connection, together (one BEGIN/COMMIT pair instead of one per projection).
 */
function defaultCommitMode(db: Db): CommitMode {
  return db.kind === 'pglite' ? 'together' : 'separate';
}

/** Builds the service. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  if (config.eventStore !== 'postgres') throw new ConfigError('EVENT_STORE=esdb:// is not available in this build: the EventStoreDB adapter is not implemented yet. Use EVENT_STORE=postgres.');
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? pino({ level: config.logLevel, base: { service: 'core-server' } });
  const db = opts.db ?? (await openDatabase(config));
  const ownsDb = !opts.db;
  try {
    if (opts.migrate !== false) await migrateLatest(db.knex);
  } catch (err) {
    if (ownsDb) await db.close();
    throw err;
  }
  const metrics = createMetrics();
  const store: EventStore = measuredStore(new PostgresEventStore(db), metrics.appendDuration);
  const runner = new ProjectionRunner(db.knex, store, projections, { logger, metrics, clock, commitMode: opts.projectionCommitMode ?? defaultCommitMode(db) });
  await runner.prepare();
  if (opts.projections !== false) runner.start();
  const services: Services = { config, db, knex: db.knex, store, runner, clock, logger, metrics };
  const registry = new Registry(operations);
  const app = createHttpApp(services, registry, {
    authenticators: {
      core: sessionAuthenticator,
      integrations: integrationAuthenticator,
    },
    mount: (express) => {
      mountPages(express, services);
      mountPaymentPage(express);
    },
  });
  const workers = new Workers(services);
  if (opts.workers) workers.start(opts.workerIntervalMs);
  let server: http.Server | undefined;
  const built: App = {
    ...services,
    registry,
    express: app,
    workers,
    async listen(port = config.port, host = config.host) {
      server = http.createServer(app);
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, host, () => resolve());
      });
      built.server = server;
      const addr = server.address() as AddressInfo;
      return `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${addr.port}`;
    },
    async close() {
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
      await workers.stop();
      await runner.stop();
      await store.close();
      if (ownsDb) await db.close();
    },
  };
  return built;
}
