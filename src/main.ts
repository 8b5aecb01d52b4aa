// The core-server CLI: start, serve, project, migrate, rebuild, projections, history, erase, log, admin.
// This module only describes the commands: what a command does is loaded when it runs (./cli/service.ts, a dynamic
// import), so `--version` and `--help` answer without loading the service (issue 30: a CLI that answers in a second).
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { DomainError } from './domain/errors.ts';
import { addClientCommands } from './cli/clients.ts';
import { addRatesCommands } from './cli/rates.ts';
import { addUsageCommands } from './cli/usage.ts';
import { addProjectionCommands } from './cli/projections.ts';
import { envHelp, variablesOf } from './config-reference.ts';
import { PASSWORD_VARIABLE, readPassword } from './cli/password.ts';
import pkg from '../package.json' with { type: 'json' };
import { addEraseCommands } from './cli/erase.ts';
import { addLogCommands } from './cli/log.ts';
import type { WithApp } from './cli/clients.ts';
import { CliError } from './cli/cli-error.ts';

/** The service side of the commands, loaded by the first command that runs. */
const service = () => import('./cli/service.ts');
/** Runs one short command with the service opened. */
const withApp: WithApp = async (fn) => (await service()).withApp(fn);

const program = new Command('core-server')
  .description('Event-sourced platform service: core API, integrations API and install flow.')
  .version(pkg.version, '-V, --version', 'print the version')
  ;

program
  .command('start')
  .description('Everything in one process: migrations, projections, HTTP; seeds a demo on an empty database.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'http', 'ops', 'service')))
  .action(async () => (await service()).start());

program
  .command('serve')
  .description('HTTP only (stateless; run several behind a load balancer). Needs DATABASE_URL and a running `project`.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'http', 'ops', 'service')))
  .action(async () => (await service()).serve());

program
  .command('project')
  .description('Projector workers: keep the read models up to date (one active runner per projection across processes). Needs DATABASE_URL.')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'ops')))
  .action(async () => (await service()).project());

program
  .command('work')
  .description('Background processors (overdue suspension and restoration, usage invoices of ended months) on an interval. Needs DATABASE_URL and a running `project`.')
  .option('--once', 'run one pass of every worker and exit')
  .option('--interval <seconds>', 'seconds between passes', '60')
  .addHelpText('after', envHelp(variablesOf('database', 'objects', 'ops', 'service')))
  .action(async (o: { once?: boolean; interval: string }) => (await service()).work(o));

program
  .command('migrate')
  .description('Applies schema migrations (with EVENT_STORE=esdb:// only the read-model schema: the log lives in EventStoreDB).')
  .action(async () => (await service()).migrate());

program
  .command('rebuild')
  .description('Rebuilds read models from the log beside the live ones, which keep serving, and swaps each in once caught up (all when none named); shows progress with an ETA.')
  .argument('[projection...]', 'projection names')
  .action(async (names: string[]) => (await service()).rebuild(names));

program
  .command('history')
  .description("Prints a stream's events with actor, time and reason (the audit trail).")
  .argument('<stream>', 'stream id, e.g. customer-0190...')
  .option('--json', 'one JSON object per line')
  .action(async (stream: string, opts: { json?: boolean }) => (await service()).history(stream, opts));

const admin = program.command('admin').description('Operator commands: organizations, users, tokens, integration clients.');
const org = admin.command('org').description('Organizations');
org
  .command('create')
  .requiredOption('--name <name>', 'organization name')
  .addOption(new Option('--kind <kind>', 'organization kind').choices(['repairer', 'supplier', 'platform']).makeOptionMandatory())
  .action(async (o: { name: string; kind: 'repairer' | 'supplier' | 'platform' }) => (await service()).orgCreate(o));

admin
  .command('site')
  .description('Repairer sites')
  .command('create')
  .requiredOption('--org <org>', 'organization id')
  .requiredOption('--name <name>', 'site name')
  .action(async (o: { org: string; name: string }) => (await service()).siteCreate(o));

org
  .command('list')
  .description('Every organization, oldest first: id, kind, name, sites')
  .option('--json', 'one JSON object per line')
  .action(async (o: { json?: boolean }) => (await service()).orgList(o));

const user = admin.command('user').description('Users');
user
  .command('list')
  .description('Every user (of --org when given), by email: id, email, name, platform roles, memberships')
  .option('--org <org>', 'only the members of this organization id')
  .option('--json', 'one JSON object per line')
  .action(async (o: { org?: string; json?: boolean }) => (await service()).userList(o));
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
    await (await service()).userCreate(o, password);
  });

admin
  .command('token')
  .description('Session tokens')
  .command('create')
  .requiredOption('--email <email>', 'user email')
  .requiredOption('--org <org>', 'organization id or exact name')
  .action(async (o: { email: string; org: string }) => (await service()).tokenCreate(o));
addClientCommands(admin, withApp);
addRatesCommands(program, withApp);
addProjectionCommands(program, withApp);
addEraseCommands(program, withApp);
addUsageCommands(program, withApp, (message) => new CliError(message));
addLogCommands(program, {
  config: () => loadConfig(),
  async open(config) {
    const [{ openDatabase }, { migrateLatest }] = await Promise.all([import('./app.ts'), import('../migrations/index.ts')]);
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

program.parseAsync(process.argv).catch(async (err: unknown) => {
  const e = err as NodeJS.ErrnoException & { port?: number };
  // A mistake found before the service was loaded is told without loading it.
  const expected = err instanceof ConfigError || err instanceof DomainError || err instanceof CliError || (await service()).isExpected(err);
  if (expected) {
    console.error(`core-server: ${err.message}`);
  } else if (e?.code === 'EADDRINUSE' || e?.code === 'EACCES') {
    console.error(`core-server: cannot listen on port ${e.port ?? '?'}: ${e.code === 'EADDRINUSE' ? 'it is already in use' : 'permission denied'}. Set PORT to another port.`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
