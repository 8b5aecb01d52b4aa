// What the CLI's commands do once they run: open the service and call its operations. src/main.ts loads this
// module only when a command runs (a dynamic import), so `--version` and `--help` load none of the service.
import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createLogger, stdoutLogOutput } from '../logging.ts';
import { stopOnSignals } from '../shutdown.ts';
import { type App, type AppOptions, createApp, openDatabase } from '../app.ts';
import { DatabaseLockedError, DatabaseUnreachable } from '../db.ts';
import { ProjectionStopped } from '../projections/engine/failures.ts';
import { describeEventLog } from '../eventstore/index.ts';
import { migrateLatest } from '../../migrations/index.ts';
import { DEMO_OWNER, DEMO_PASSWORD, DEMO_PLATFORM, DEMO_STAFF, demoSeeded, seedDemo } from '../seed.ts';
import { ops } from '../areas/operations.ts';
import { findOrganizationByName, findUserByEmail, getOrganization, membership } from '../queries/identity/identity.ts';
import { DomainError } from '../domain/errors.ts';
import { identityErrors } from '../domain/identity/errors.ts';
import { operator } from './clients.ts';
import { formatHistory } from './history.ts';
import { formatBuildProgress } from './projections.ts';
import { commandStarted, settle } from './settle.ts';
import { CliError } from './cli-error.ts';
import pkg from '../../package.json' with { type: 'json' };

/** Errors an operator can act on from one line (no stack trace). */
export function isExpected(err: unknown): err is Error {
  return err instanceof ConfigError || err instanceof DatabaseLockedError || err instanceof DatabaseUnreachable || err instanceof DomainError || err instanceof CliError || err instanceof ProjectionStopped;
}

/**
 * `serve`, `project` and `work` are the production shape: separate processes sharing one PostgreSQL. On the embedded
 * database (a directory only one process can open) they would run alone, unseen by the others, so they refuse at once.
 */
function sharedDatabase(config: Config, command: string): Config {
  if (!config.databaseUrl) throw new CliError(`${command} needs DATABASE_URL: it runs beside other processes (serve, project, work) that share one PostgreSQL; the embedded database is for \`start\` (everything in one process).`);
  return config;
}

/** Runs one short command with the service opened (no HTTP, no projection daemon). */
export async function withApp<T>(fn: (app: App) => Promise<T>, opts: AppOptions = {}): Promise<T> {
  const app = await createApp(loadConfig(), { projections: false, http: false, ...opts });
  try {
    await commandStarted(app);
    return await fn(app);
  } finally {
    await app.close();
  }
}

// The logger of a long-running command, and how it stops: within SHUTDOWN_TIMEOUT_MS, logs never holding it up.
function longRunning(config: Config): { logger: Logger; stop: (app: App) => void } {
  const output = stdoutLogOutput();
  const logger = createLogger(config.logLevel, output);
  return { logger, stop: (app) => stopOnSignals(app, { timeoutMs: config.shutdownTimeoutMs, output }) };
}

/**
 * The operations listener of a process kind: on OPS_PORT when set; else `project` and `work` (no other port) take
 * an ephemeral loopback port, and `start` and `serve` answer on PORT only. Returns its URL, or null.
 */
async function opsListener(app: App, config: Config, always: boolean): Promise<string | null> {
  if (config.opsPort === undefined && !always) return null;
  return app.listenOps(config.opsPort ?? 0, config.opsHost);
}

/** The start-up line of a long-running process: one structured line, like every other. */
function banner(logger: Logger, kind: string, fields: Record<string, unknown>, config: Config): void {
  logger.info({ kind, version: pkg.version, event_log: describeEventLog(config), pool_max: config.databaseUrl ? config.databasePoolMax : null, ...fields }, `core-server (${kind}) started`);
}

/** `start`: everything in one process; seeds the demo on an empty database. */
export async function start(): Promise<void> {
  const config = loadConfig();
  const run = longRunning(config);
  const app = await createApp(config, { workers: true, logger: run.logger, kind: 'start' });
  run.stop(app);
  let url: string;
  let opsUrl: string | null;
  try {
    // Listen before seeding: if the port is taken, the demo tokens are not created unseen.
    url = await app.listen();
    opsUrl = await opsListener(app, config, false);
  } catch (err) {
    await app.close();
    throw err;
  }
  const seed = await seedDemo(app);
  const base = config.baseUrl.startsWith('http://localhost:') ? url.replace('//127.0.0.1:', '//localhost:') : config.baseUrl;
  banner(run.logger, 'start', { url: base, ops_url: opsUrl ?? base, projections: app.runner.names().length }, config);
  // For a person trying the service: where to go, and the demo's credentials (start is the development shape).
  console.log(`core-server listening on ${base}`);
  console.log(describeEventLog(config));
  console.log(`API reference: ${base}/docs`);
  console.log(`billing console (staff): ${base}/console`);
  if (seed) {
    console.log(`demo org user token (Acme Repairs): ${seed.orgToken}`);
    console.log(`demo billing staff token: ${seed.staffToken}`);
    console.log(`demo logins (password "${DEMO_PASSWORD}"): ${DEMO_OWNER}, ${DEMO_STAFF}, ${DEMO_PLATFORM} (platform staff)`);
    console.log(`try: curl -s -X POST ${base}/api/v1/auth.sessions.get -H "authorization: Bearer ${seed.orgToken}"`);
  } else if (await demoSeeded(app)) {
    console.log(`demo data present; sign in with ${DEMO_OWNER} / "${DEMO_PASSWORD}" (auth.sessions.insert) or: npx core-server admin token create --email ${DEMO_OWNER} --org <org id>`);
  }
}

/** `serve`: HTTP only. */
export async function serve(): Promise<void> {
  const config = sharedDatabase(loadConfig(), 'serve');
  const run = longRunning(config);
  const app = await createApp(config, { projections: false, logger: run.logger, kind: 'serve' });
  run.stop(app);
  const url = await app.listen();
  const opsUrl = await opsListener(app, config, false);
  banner(run.logger, 'serve', { url, ops_url: opsUrl ?? url }, config);
}

/** `project`: the projection daemon. */
export async function project(): Promise<void> {
  const config = sharedDatabase(loadConfig(), 'project');
  const run = longRunning(config);
  const app = await createApp(config, { http: false, logger: run.logger, kind: 'project' });
  run.stop(app);
  const opsUrl = await opsListener(app, config, true);
  banner(run.logger, 'project', { ops_url: opsUrl, projections: app.runner.names() }, config);
}

/** `work`: the background workers on an interval, or one pass (`--once`). */
export async function work(o: { once?: boolean; interval: string }): Promise<void> {
  const interval = Number(o.interval);
  if (!Number.isFinite(interval) || interval < 1) throw new CliError('--interval must be a number of seconds >= 1.');
  if (o.once) {
    await withApp(async (app) => {
      const res = await app.workers.runOnce();
      console.log(JSON.stringify(res));
    });
    return;
  }
  const config = sharedDatabase(loadConfig(), 'work');
  const run = longRunning(config);
  const app = await createApp(config, { http: false, projections: false, workers: true, workerIntervalMs: interval * 1000, logger: run.logger, kind: 'work' });
  run.stop(app);
  const opsUrl = await opsListener(app, config, true);
  banner(run.logger, 'work', { ops_url: opsUrl, interval_seconds: interval, workers: app.workers.names() }, config);
}

/** `migrate`. */
export async function migrate(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    const applied = await migrateLatest(db.knex, config.eventLog.kind);
    console.log(describeEventLog(config));
    if (config.eventLog.kind === 'esdb') console.log('the event-store tables are not created: EventStoreDB holds the log');
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
  } finally {
    await db.close();
  }
}

/** `rebuild [projection...]`, with progress on stderr. */
export async function rebuild(names: string[]): Promise<void> {
  await withApp(async (app) => {
    const known = app.runner.projections.map((p) => p.name);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new CliError(`unknown projection(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
    const started = Date.now();
    let last = 0;
    const counts = new Map<string, number>();
    await app.runner.rebuild(names, (p) => {
      counts.set(p.projection, p.events);
      if (Date.now() - last > 1000) {
        last = Date.now();
        process.stderr.write(`${formatBuildProgress(p)}\n`);
      }
    });
    for (const name of names.length ? names : known) console.log(`  ${name}: ${counts.get(name) ?? 0} events`);
    console.log(`rebuilt ${names.length ? names.join(', ') : 'all read models'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}

/** `history <stream>`. */
export async function history(stream: string, opts: { json?: boolean }): Promise<void> {
  await withApp(async (app) => {
    const lines = await formatHistory(app.store, app.knex, stream, opts);
    for (const line of lines) console.log(line);
    if (lines.length === 0) {
      console.error(`no events in stream ${stream}`);
      process.exitCode = 1;
    }
  });
}

/** `admin org create`. */
export async function orgCreate(o: { name: string; kind: 'repairer' | 'supplier' | 'platform' }): Promise<void> {
  await withApp(async (app) => {
    const { body: res } = await app.invoke(ops['identity.organizations.insert'], { name: o.name, kind: o.kind }, operator('admin org create'));
    await settle(app);
    console.log(res.id);
  });
}

/** `admin site create`. */
export async function siteCreate(o: { org: string; name: string }): Promise<void> {
  await withApp(async (app) => {
    const { body: res } = await app.invoke(ops['identity.sites.insert'], { organization_id: o.org, name: o.name }, operator('admin site create'));
    await settle(app);
    console.log(res.id);
  });
}

/** `admin org list`. */
export async function orgList(o: { json?: boolean }): Promise<void> {
  await withApp(async (app) => {
    await settle(app);
    const { body } = await app.invoke(ops['identity.organizations.list'], undefined, operator('admin org list'));
    for (const item of body.items) console.log(o.json ? JSON.stringify(item) : [item.id, item.kind, item.name, `${item.sites} site(s)`].join('\t'));
  });
}

/** `admin user list`. */
export async function userList(o: { org?: string; json?: boolean }): Promise<void> {
  await withApp(async (app) => {
    await settle(app);
    const { body } = await app.invoke(ops['identity.users.list'], { organization_id: o.org ?? null }, operator('admin user list'));
    for (const u of body.items) {
      const memberships = u.memberships.map((m) => `${m.organization_id}:${m.role}`).join(',') || '-';
      console.log(o.json ? JSON.stringify(u) : [u.id, u.email, u.name || '-', u.platform_roles.join(',') || '-', memberships].join('\t'));
    }
  });
}

/** `admin user create`, with the password already read. */
export async function userCreate(o: { email: string; name?: string; org?: string; role: 'owner' | 'admin' | 'member'; staff?: 'billing' | 'platform' }, password: string): Promise<void> {
  await withApp(async (app) => {
    // A new user, or (an existing email with --org) the user added to the organization.
    const { body: res } = await app.invoke(ops['identity.users.insert'], {
      email: o.email,
      password,
      name: o.name ?? null,
      organization_id: o.org ?? null,
      role: o.role,
      staff: o.staff ? [o.staff === 'billing' ? 'billing_staff' : 'platform_staff'] : [],
    }, operator('admin user create'));
    await settle(app);
    console.log(res.id);
  });
}

/** `admin token create`. */
export async function tokenCreate(o: { email: string; org: string }): Promise<void> {
  await withApp(async (app) => {
    await settle(app);
    const u = await findUserByEmail(app.knex, o.email);
    if (!u) throw identityErrors.error('user_not_found', `No user with email ${o.email}.`);
    const orgDoc = /^[0-9a-f-]{36}$/i.test(o.org) ? await getOrganization(app.knex, o.org) : await findOrganizationByName(app.knex, o.org);
    if (!orgDoc) throw identityErrors.error('organization_not_found', `No organization ${o.org}.`);
    if (!(await membership(app.knex, orgDoc.id, u.id))) throw identityErrors.error('not_a_member', `${o.email} is not a member of ${orgDoc.name}.`);
    const { body: s } = await app.invoke(ops['auth.sessions.issue'], { user_id: u.id, organization_id: orgDoc.id }, operator('admin token create'));
    console.log(s.token);
  });
}
