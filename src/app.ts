// Composition root: builds the service (storage, event store, projections, HTTP) from configuration and the areas' declarations.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createLogger } from './logging.ts';
import type express from 'express';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { type Db, connectPostgres, openPglite } from './db.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { openEventStore } from './eventstore/index.ts';
import type { EventStore } from './eventstore/port.ts';
import { measuredStore } from './eventstore/measured.ts';
import { shreddingStore } from './eventstore/shredding.ts';
import { TableKeyStore } from './eventstore/key-table.ts';
import { PERSONAL_FIELDS } from './domain/personal-events.ts';
import { migrateLatest } from '../migrations/index.ts';
import { LAG_EVENTS_CAP, createMetrics } from './metrics.ts';
import { watchPool } from './db-pool-metrics.ts';
import { type ExtraChecks, type OpsListener, listenOps } from './http/ops.ts';
import { refusedMonthCount } from './queries/billing/usage-months.ts';
import { webhookBacklog } from './queries/billing/webhook-outbox.ts';
import { ProjectionRunner } from './projections/engine/runner.ts';
import { progressChannel } from './projections/engine/remote-progress.ts';
import { announceProjector } from './projections/engine/presence.ts';
import { areas } from './areas/index.ts';
import { Registry } from './contract/registry.ts';
import { createHttpApp } from './http/router.ts';
import { type InvokeOptions, invokeRegistered } from './pipeline/invoke.ts';
import type { Services } from './context.ts';
import { integrationAuthenticator, sessionAuthenticator } from './http/authenticate.ts';
import { cachedSessionAuth } from './queries/identity/session-cache.ts';
import { activeInstallByKeyHash } from './queries/integrations/integrations.ts';
import { entitledTo } from './queries/billing/effective-entitlements.ts';
import { refundsDueCount } from './queries/billing/charges.ts';
import { mountPages } from './http/pages/index.ts';
import { Workers } from './workers/index.ts';
import { mountPaymentPage } from './http/pages/pay.ts';
import { useSessionLookup } from './http/pages/web-session.ts';
import { mountSandboxPages } from './http/pages/sandbox.ts';
import { SandboxProvider } from './payments/sandbox.ts';
import { openMailer } from './mail/index.ts';
import { attentionCounts, attentionItems } from './queries/billing/attention.ts';
import { vehicleDataProvider } from './vehicle-data/index.ts';
import { mountPaymentWebhooks } from './http/payment-webhook.ts';
import { ATTEMPT_LIMITED_PATHS, AttemptLimits, mountApiAttemptLimits } from './http/attempt-limits.ts';
import { mountLoginAttemptLimits } from './http/pages/login-limits.ts';
import { openFileObjectStore } from './storage/index.ts';
import { mountFileObjectRoutes } from './http/file-routes.ts';
import { FileObjectStore } from './storage/file.ts';
import type { ObjectStore } from './storage/port.ts';

/** Opens OBJECT_STORE; `publicUrl()` is where the service is reached (the file store's URLs point there). */
async function openObjects(config: Config, clock: Clock, publicUrl: () => string): Promise<ObjectStore> {
  const setting = config.objectStorage;
  // Loaded only when configured: the AWS SDK is large and warns about Node versions on load.
  if (setting.kind === 's3') return new (await import('./storage/s3.ts')).S3ObjectStore(setting, clock, config.s3Credentials);
  return openFileObjectStore(setting, clock, publicUrl, config.objectUrlSecret);
}

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
  /** Check every answer against its operation's declared response and errors (tests). */
  checkContracts?: boolean;
  /** What this process is (names its database connections; default `cli`). */
  kind?: ProcessKind;
}

/** A built service. */
export interface App extends Omit<Services, 'runner'> {
  runner: ProjectionRunner;
  registry: Registry;
  express: express.Express;
  /** Background processors; started only when AppOptions.workers is set. */
  workers: Workers;
  server?: http.Server;
  /** Listens on `port` (0 = ephemeral) and returns the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Opens the operations listener (/healthz, /readyz, /metrics) on OPS_PORT (unset: an ephemeral port) and returns its URL. */
  listenOps(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** What a process is, as its database connections name it (pg_stat_activity's application_name: `core-server project`). */
export type ProcessKind = 'start' | 'serve' | 'project' | 'work' | 'cli';

/**
 * Opens the configured database: Postgres when DATABASE_URL is set, else embedded PGlite in DATA_DIR. DATABASE_POOL_MAX
 * is the process's whole budget on Postgres: the pool gets all of it but the one listener connection (src/db-listener.ts).
 */
export async function openDatabase(config: Config, kind: ProcessKind = 'cli'): Promise<Db> {
  return config.databaseUrl ? connectPostgres(config.databaseUrl, poolSizeOf(config.databasePoolMax), `core-server ${kind}`) : openPglite(path.join(config.dataDir, 'pglite'), { template: () => pgliteTemplate(config.eventLog.kind) });
}

/** The pool size of a process whose budget is `budget` connections: one of them is the listener connection. */
export function poolSizeOf(budget: number): number {
  return Math.max(1, budget - 1);
}

/** Builds the service. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const db = opts.db ?? (await openDatabase(config, opts.kind));
  const ownsDb = !opts.db;
  try {
    if (opts.migrate !== false) await migrateLatest(db.knex, config.eventLog.kind);
  } catch (err) {
    if (ownsDb) await db.close();
    throw err;
  }
  const metrics = createMetrics();
  watchPool(db.knex, metrics);
  db.onWarning = (message) => logger.warn({ message }, 'database connection');
  // Without BASE_URL the file store's URLs point at wherever listen() ends up.
  let publicUrl = config.baseUrl;
  const baseUrlIsDefault = config.baseUrl === `http://localhost:${config.port}`;
  let objects: ObjectStore;
  try {
    objects = await openObjects(config, clock, () => publicUrl);
  } catch (err) {
    if (ownsDb) await db.close();
    throw err;
  }
  // Personal fields are encrypted above the log port, so either log keeps only ciphertext (issue 32).
  const personalData = shreddingStore(await openEventStore(config, db), new TableKeyStore(db.knex), PERSONAL_FIELDS, () => clock.now());
  const store: EventStore = measuredStore(personalData, metrics.appendDuration);
  // Between processes: runners say that checkpoints moved; `serve` processes waiting for their own writes hear it.
  const progress = progressChannel(db);
  const runner = new ProjectionRunner(db.knex, store, areas.flatMap((a) => a.projections), { logger, metrics, clock, progressChannel: progress, oneConnection: db.kind === 'pglite' });
  await runner.prepare();
  metrics.lagSource = () => runner.lags();
  metrics.lagEventsSource = () => runner.lagEvents(LAG_EVENTS_CAP);
  metrics.refundsDueSource = () => refundsDueCount(db.knex);
  metrics.refusedUsageMonthsSource = () => refusedMonthCount(db.knex);
  metrics.webhookBacklogSource = () => webhookBacklog(db.knex);
  let unannounce = async () => {};
  if (opts.projections !== false) {
    runner.start();
    unannounce = await announceProjector(db);
  }
  const registry = new Registry(areas.flatMap((a) => a.operations));
  const pipeline: InvokeOptions = { checkContracts: opts.checkContracts, entitled: (organizationId, key, now) => entitledTo(db.knex, organizationId, key, now) };
  // The providers are chosen here and reached through Services; nothing else imports an adapter.
  const payments = new SandboxProvider({ config, knex: db.knex, clock, logger });
  const mailer = openMailer(config);
  const services: Services = {
    config, db, knex: db.knex, store, personalData, runner, clock, logger, metrics, objects, payments, vehicleData: vehicleDataProvider(config, clock), mailer,
    invoke: (op, input, caller) => invokeRegistered(services, registry, op, input, caller, pipeline),
    operation: (id) => {
      const op = registry.get('core', id);
      return op?.kind === 'json' ? op : undefined;
    },
  };
  metrics.attentionSource = async () => new Map(attentionCounts(await attentionItems(services)).map((c) => [c.kind, c.count]));
  const limits = new AttemptLimits(db.knex, clock, config.rateLimits);
  const workers = new Workers(services, areas.flatMap((a) => a.workers ?? []));
  // Where the workers run, /readyz says whether their last passes succeeded.
  const opsChecks: ExtraChecks | undefined = opts.workers
    ? () => workers.status().map((w) => ({ name: `worker:${w.name}`, ok: w.failing === null, detail: w.failing === null ? `last pass succeeded at ${w.last_success}` : `last pass failed: ${w.failing}` }))
    : undefined;
  const httpApp = createHttpApp(services, registry, {
    ...pipeline,
    authenticators: {
      core: sessionAuthenticator(cachedSessionAuth),
      integrations: integrationAuthenticator(activeInstallByKeyHash),
    },
    guardedPaths: ATTEMPT_LIMITED_PATHS,
    opsChecks,
    before: (express) => {
      if (objects instanceof FileObjectStore) mountFileObjectRoutes(express, objects);
      mountApiAttemptLimits(express, limits);
      mountLoginAttemptLimits(express, limits);
    },
    mount: (express) => {
      useSessionLookup(express, cachedSessionAuth);
      mountPages(express, services);
      mountPaymentPage(express, services);
      mountSandboxPages(express, services, payments);
      mountPaymentWebhooks(express, services);
    },
  });
  if (opts.workers) workers.start(opts.workerIntervalMs);
  let server: http.Server | undefined;
  let ops: OpsListener | undefined;
  const built: App = {
    ...services,
    runner,
    registry,
    express: httpApp.express,
    workers,
    async listen(port = config.port, host = config.host) {
      const listening = http.createServer(httpApp.listener);
      listening.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => resolve());
      });
      server = listening;
      built.server = listening;
      const addr = listening.address() as AddressInfo;
      const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${addr.port}`;
      if (baseUrlIsDefault) publicUrl = url;
      // Development only (config refuses it elsewhere), but said at start so nobody exposes it unaware.
      if (config.sandboxWebhookSecretIsDefault)
        logger.warn({ variable: 'SANDBOX_WEBHOOK_SECRET' }, 'SANDBOX_WEBHOOK_SECRET is not a secret of your own (the published development default is in use): anyone can sign payment notifications to this service. Set one (16+ characters); outside development (HOST not loopback, or NODE_ENV=production) the service does not start without it');
      return url;
    },
    async listenOps(port = config.opsPort ?? 0, host = config.opsHost) {
      ops = await listenOps(services, { port, host, extra: opsChecks });
      return ops.url;
    },
    async close() {
      await ops?.close();
      const s = server;
      if (s) {
        // Stop accepting first, then drop open connections: a connection accepted in between cannot hold close() open.
        const closed = new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeAllConnections();
        await closed;
      }
      await workers.stop();
      await runner.stop();
      await unannounce();
      await progress.close();
      await store.close();
      mailer.close();
      if (ownsDb) await db.close();
    },
  };
  return built;
}
