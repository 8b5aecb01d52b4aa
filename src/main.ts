// The core-server CLI: start, serve, project, migrate, rebuild, projections, history, erase, log, admin.
import { Command, Option } from 'commander';
import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createLogger, stdoutLogOutput } from './logging.ts';
import { stopOnSignals } from './shutdown.ts';
import { type App, type AppOptions, createApp, openDatabase } from './app.ts';
import { DatabaseLockedError, DatabaseUnreachable } from './db.ts';
import { ProjectionStopped } from './projections/engine/failures.ts';
import { describeEventLog } from './eventstore/index.ts';
import { migrateLatest } from '../migrations/index.ts';
import { DEMO_OWNER, DEMO_PASSWORD, DEMO_PLATFORM, DEMO_STAFF, demoSeeded, seedDemo } from './seed.ts';
import { ops } from './areas/operations.ts';
import { findOrganizationByName, findUserByEmail, getOrganization, membership } from './queries/identity/identity.ts';
import { DomainError } from './domain/errors.ts';
import { identityErrors } from './domain/identity/errors.ts';
import { addClientCommands, operator } from './cli/clients.ts';
import { addRatesCommands } from './cli/rates.ts';
import { addUsageCommands } from './cli/usage.ts';
import { formatHistory } from './cli/history.ts';
import { addProjectionCommands, formatBuildProgress } from './cli/projections.ts';
import { commandStarted, settle } from './cli/settle.ts';
import { envHelp, variablesOf } from './config-reference.ts';
import { PASSWORD_VARIABLE, readPassword } from './cli/password.ts';
import pkg from '../package.json' with { type: 'json' };
import { addEraseCommands } from './cli/erase.ts';
import { addLogCommands } from './cli/log.ts';

/** A mistake in how the CLI was called: printed as one line, without a stack trace. */
class CliError extends Error {}

/**
 * `serve`, `project` and `work` are the production shape: separate processes sharing one PostgreSQL. On the embedded
 * database (a directory only one process can open) they would run alone, unseen by the others, so they refuse at once.
 */
function sharedDatabase(config: Config, command: string): Config {
  if (!config.databaseUrl) throw new CliError(`${command} needs DATABASE_URL: it runs beside other processes (serve, project, work) that share one PostgreSQL; the embedded database is for \`start\` (everything in one process).`);
  return config;
}

const program = new Command('core-server')
  .description('Event-sourced platform service: core API, integrations API and install flow.')
  .version(pkg.version, '-V, --version', 'print the version')
  ;

async function withApp<T>(opts: AppOptions, fn: (app: App) => Promise<T>): Promise<T> {
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

program
  .command('start')
  .description('Everything in one process: migrations, projections, HTTP; seeds a demo on an empty database.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'http', 'ops', 'service')))
  .action(async () => {
    const config = loadConfig();
    const run = longRunning(config);
    const app = await createApp(config, { workers: true, logger: run.logger, kind: 'start' });
    run.stop(app);
    let url: string;
    let ops: string | null;
    try {
      // Listen before seeding: if the port is taken, the demo tokens are not created unseen.
      url = await app.listen();
      ops = await opsListener(app, config, false);
    } catch (err) {
      await app.close();
      throw err;
    }
    const seed = await seedDemo(app);
    const base = config.baseUrl.startsWith('http://localhost:') ? url.replace('//127.0.0.1:', '//localhost:') : config.baseUrl;
    banner(run.logger, 'start', { url: base, ops_url: ops ?? base, projections: app.runner.names().length }, config);
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
  });

program
  .command('serve')
  .description('HTTP only (stateless; run several behind a load balancer). Needs DATABASE_URL and a running `project`.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'http', 'ops', 'service')))
  .action(async () => {
    const config = sharedDatabase(loadConfig(), 'serve');
    const run = longRunning(config);
    const app = await createApp(config, { projections: false, logger: run.logger, kind: 'serve' });
    run.stop(app);
    const url = await app.listen();
    const ops = await opsListener(app, config, false);
    banner(run.logger, 'serve', { url, ops_url: ops ?? url }, config);
  });

program
  .command('project')
  .description('Projector workers: keep the read models up to date (one active runner per projection across processes). Needs DATABASE_URL.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'ops')))
  .action(async () => {
    const config = sharedDatabase(loadConfig(), 'project');
    const run = longRunning(config);
    const app = await createApp(config, { http: false, logger: run.logger, kind: 'project' });
    run.stop(app);
    const ops = await opsListener(app, config, true);
    banner(run.logger, 'project', { ops_url: ops, projections: app.runner.names() }, config);
  });

program
  .command('work')
  .description('Background processors (overdue suspension and restoration, usage invoices of ended months) on an interval. Needs DATABASE_URL and a running `project`.')
  .option('--once', 'run one pass of every worker and exit')
  .option('--interval <seconds>', 'seconds between passes', '60')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'ops', 'service')))
  .action(async (o: { once?: boolean; interval: string }) => {
    const interval = Number(o.interval);
    if (!Number.isFinite(interval) || interval < 1) throw new CliError('--interval must be a number of seconds >= 1.');
    if (o.once) {
      await withApp({}, async (app) => {
        const res = await app.workers.runOnce();
        console.log(JSON.stringify(res));
      });
      return;
    }
    const config = sharedDatabase(loadConfig(), 'work');
    const run = longRunning(config);
    const app = await createApp(config, { http: false, projections: false, workers: true, workerIntervalMs: interval * 1000, logger: run.logger, kind: 'work' });
    run.stop(app);
    const ops = await opsListener(app, config, true);
    banner(run.logger, 'work', { ops_url: ops, interval_seconds: interval, workers: app.workers.names() }, config);
  });

program
  .command('migrate')
  .description('Applies schema migrations (with EVENT_STORE=esdb:// only the read-model schema: the log lives in EventStoreDB).')
  .action(async () => {
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
  });

program
  .command('rebuild')
  .description('Rebuilds read models from the log beside the live ones, which keep serving, and swaps each in once caught up (all when none named); shows progress with an ETA.')
  .argument('[projection...]', 'projection names')
  .action(async (names: string[]) => {
    await withApp({}, async (app) => {
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
  });

program
  .command('history')
  .description("Prints a stream's events with actor, time and reason (the audit trail).")
  .argument('<stream>', 'stream id, e.g. customer-0190...')
  .option('--json', 'one JSON object per line')
  .action(async (stream: string, opts: { json?: boolean }) => {
    await withApp({}, async (app) => {
      const lines = await formatHistory(app.store, app.knex, stream, opts);
      for (const line of lines) console.log(line);
      if (lines.length === 0) {
        console.error(`no events in stream ${stream}`);
        process.exitCode = 1;
      }
    });
  });

const admin = program.command('admin').description('Operator commands: organizations, users, tokens, integration clients.');
const org = admin.command('org').description('Organizations');
org
  .command('create')
  .requiredOption('--name <name>', 'organization name')
  .addOption(new Option('--kind <kind>', 'organization kind').choices(['repairer', 'supplier', 'platform']).makeOptionMandatory())
  .action(async (o: { name: string; kind: 'repairer' | 'supplier' | 'platform' }) => {
    await withApp({}, async (app) => {
      const { body: res } = await app.invoke(ops['identity.organizations.insert'], { name: o.name, kind: o.kind }, operator('admin org create'));
      await settle(app);
      console.log(res.id);
    });
  });

admin
  .command('site')
  .description('Repairer sites')
  .command('create')
  .requiredOption('--org <org>', 'organization id')
  .requiredOption('--name <name>', 'site name')
  .action(async (o: { org: string; name: string }) => {
    await withApp({}, async (app) => {
      const { body: res } = await app.invoke(ops['identity.sites.insert'], { organization_id: o.org, name: o.name }, operator('admin site create'));
      await settle(app);
      console.log(res.id);
    });
  });

org
  .command('list')
  .description('Every organization, oldest first: id, kind, name, sites')
  .option('--json', 'one JSON object per line')
  .action(async (o: { json?: boolean }) => {
    await withApp({}, async (app) => {
      await settle(app);
      const { body } = await app.invoke(ops['identity.organizations.list'], undefined, operator('admin org list'));
      for (const item of body.items) console.log(o.json ? JSON.stringify(item) : [item.id, item.kind, item.name, `${item.sites} site(s)`].join('\t'));
    });
  });

const user = admin.command('user').description('Users');
user
  .command('list')
  .description('Every user (of --org when given), by email: id, email, name, platform roles, memberships')
  .option('--org <org>', 'only the members of this organization id')
  .option('--json', 'one JSON object per line')
  .action(async (o: { org?: string; json?: boolean }) => {
    await withApp({}, async (app) => {
      await settle(app);
      const { body } = await app.invoke(ops['identity.users.list'], { organization_id: o.org ?? null }, operator('admin user list'));
      for (const u of body.items) {
        const memberships = u.memberships.map((m) => `${m.organization_id}:${m.role}`).join(',') || '-';
        console.log(o.json ? JSON.stringify(u) : [u.id, u.email, u.name || '-', u.platform_roles.join(',') || '-', memberships].join('\t'));
      }
    });
  });
user
  .command('create')
  .description(`Registers a user (or adds an existing one to --org). The password (8+ characters) is read from standard input, or from ${PASSWORD_VARIABLE}; never from the command line.`)
  .requiredOption('--email <email>', 'email address')
  .option('--password-stdin', 'read the password from the first line of standard input')
  .addOption(new Option('--password <password>').hideHelp())
  .option('--name <name>', 'display name')
  .option('--org <org>', 'organization id to join')
  .addOption(new Option('--role <role>', 'role in --org').choices(['owner', 'admin', 'member']).default('member'))
  .addOption(new Option('--staff <staff>', 'platform role').choices(['billing', 'platform']))
  .action(async (o: { email: string; password?: string; passwordStdin?: boolean; name?: string; org?: string; role: 'owner' | 'admin' | 'member'; staff?: 'billing' | 'platform' }) => {
    if (o.password !== undefined) throw new CliError('--password is not taken: a password on the command line is visible to every user of the machine (ps) and kept in shell history. Pipe it (--password-stdin) or set CORE_SERVER_PASSWORD.');
    const password = await readPassword(o.passwordStdin ?? false, (message) => new CliError(message));
    await withApp({}, async (app) => {
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
  });

admin
  .command('token')
  .description('Session tokens')
  .command('create')
  .requiredOption('--email <email>', 'user email')
  .requiredOption('--org <org>', 'organization id or exact name')
  .action(async (o: { email: string; org: string }) => {
    await withApp({}, async (app) => {
      await settle(app);
      const u = await findUserByEmail(app.knex, o.email);
      if (!u) throw identityErrors.error('user_not_found', `No user with email ${o.email}.`);
      const orgDoc = /^[0-9a-f-]{36}$/i.test(o.org) ? await getOrganization(app.knex, o.org) : await findOrganizationByName(app.knex, o.org);
      if (!orgDoc) throw identityErrors.error('organization_not_found', `No organization ${o.org}.`);
      if (!(await membership(app.knex, orgDoc.id, u.id))) throw identityErrors.error('not_a_member', `${o.email} is not a member of ${orgDoc.name}.`);
      const { body: s } = await app.invoke(ops['auth.sessions.issue'], { user_id: u.id, organization_id: orgDoc.id }, operator('admin token create'));
      console.log(s.token);
    });
  });
addClientCommands(admin, (fn) => withApp({}, fn));
addRatesCommands(program, (fn) => withApp({}, fn));
addProjectionCommands(program, (fn) => withApp({}, fn));
addEraseCommands(program, (fn) => withApp({}, fn));
addUsageCommands(program, (fn) => withApp({}, fn), (message) => new CliError(message));
addLogCommands(program, {
  config: () => loadConfig(),
  async open(config) {
    const db = await openDatabase(config);
    try {
      await migrateLatest(db.knex, config.eventLog.kind);
    } catch (err) {
      await db.close();
      throw err;
    }
    return db;
  },
  fail: (message) => new CliError(message),
});

// Every other command reads the database and object settings (each opens the service without HTTP): its help says so.
const LONG_RUNNING = ['start', 'serve', 'project', 'work'];
for (const command of leaves(program)) if (!(command.parent === program && LONG_RUNNING.includes(command.name()))) command.addHelpText('after', envHelp(variablesOf('database', 'objects')));

function leaves(c: Command): Command[] {
  return c.commands.length ? c.commands.flatMap(leaves) : [c];
}

program.parseAsync(process.argv).catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (err instanceof ConfigError || err instanceof DatabaseLockedError || err instanceof DatabaseUnreachable || err instanceof DomainError || err instanceof CliError || err instanceof ProjectionStopped) {
    console.error(`core-server: ${err.message}`);
  } else if (e?.code === 'EADDRINUSE' || e?.code === 'EACCES') {
    console.error(`core-server: cannot listen on port ${e.port ?? '?'}: ${e.code === 'EADDRINUSE' ? 'it is already in use' : 'permission denied'}. Set PORT to another port.`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
