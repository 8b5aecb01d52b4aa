// The core-server CLI as an operator uses it: real processes over a temporary DATA_DIR (embedded database).
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { ROOT, childEnv, freePort, runCli } from '../support/process.ts';
import type { ReplyOf, RequestOf } from '../support/app.ts';
import { type JsonOp, ops } from '../support/ops.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


function env(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return childEnv({ DATA_DIR: dataDir, ...extra });
}

const run = runCli;

/** Starts a long-running `core-server start` and resolves once it printed what we wait for. */
function startServer(e: NodeJS.ProcessEnv, until: RegExp): Promise<{ child: ChildProcess; stdout: () => string; stop: () => Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    // One node process (bin/core-server.js loads tsx in-process): tsx's CLI relays SIGTERM to a child of its own and,
    // when the child's answer is slow under load, exits 143 itself instead of the service's 0.
    const child = spawn(process.execPath, ['bin/core-server.js', 'start'], { cwd: ROOT, env: e });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stdout}\n${stderr}`)), 60_000);
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (until.test(stdout)) {
        clearTimeout(timer);
        resolve({
          child,
          stdout: () => stdout,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.stderr!.on('data', (d) => (stderr += d));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stdout}\n${stderr}`));
    });
  });
}


async function call<Op extends JsonOp>(port: number, op: Op, body: RequestOf<Op>, token: string): Promise<Pick<ReplyOf<Op>, 'status' | 'body'>> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/${op.id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as ReplyOf<Op>['body'] };
}

const noStackTrace = (text: string) => expect(text, text).to.not.match(/^\s+at .+:\d+:\d+\)?$/m);

describe('core-server CLI', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const tempDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'core-server-cli-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  describe('admin, history and rebuild on one DATA_DIR', () => {
    let dir: string;
    let orgId: string;
    let ownerId: string;
    let ownerToken: string;
    let staffToken: string;
    let customerId: string;
    before(() => {
      dir = tempDir();
    });

    it('admin org create prints the new organization id', async () => {
      const r = await run(['admin', 'org', 'create', '--name', 'CLI Repairs', '--kind', 'repairer'], env(dir));
      expect(r.code, r.stderr).to.equal(0);
      orgId = r.stdout.trim();
      expect(orgId).to.match(UUID);
    });

    it('admin user create prints the user id, with --role and with --staff billing (also through bin/core-server.js)', async () => {
      // Passwords come on standard input or in CORE_SERVER_PASSWORD, never on the command line.
      const owner = await run(['admin', 'user', 'create', '--email', 'owner@cli.example', '--password-stdin', '--org', orgId, '--role', 'owner'], env(dir), undefined, 'owner password\n');
      expect(owner.code, owner.stderr).to.equal(0);
      ownerId = owner.stdout.trim();
      expect(ownerId).to.match(UUID);
      const platform = await run(['admin', 'org', 'create', '--name', 'CLI Platform', '--kind', 'platform'], env(dir));
      const staff = await run(['admin', 'user', 'create', '--email', 'staff@cli.example', '--org', platform.stdout.trim(), '--staff', 'billing'], env(dir, { CORE_SERVER_PASSWORD: 'staff password' }), ['bin/core-server.js']);
      expect(staff.code, staff.stderr).to.equal(0);
      expect(staff.stdout.trim()).to.match(UUID);
      const token = await run(['admin', 'token', 'create', '--email', 'staff@cli.example', '--org', 'CLI Platform'], env(dir));
      expect(token.code, token.stderr).to.equal(0);
      staffToken = token.stdout.trim();
    });

    it('refuses bad admin input with a message, not a stack trace', async () => {
      const weak = await run(['admin', 'user', 'create', '--email', 'weak@cli.example', '--password-stdin', '--org', orgId], env(dir), undefined, 'short\n');
      expect(weak.code).to.equal(1);
      expect(weak.stderr).to.contain('8 characters');
      noStackTrace(weak.stderr);
      const onTheLine = await run(['admin', 'user', 'create', '--email', 'line@cli.example', '--password', 'long enough password'], env(dir));
      expect(onTheLine.code).to.equal(1);
      expect(onTheLine.stderr).to.contain('--password-stdin');
      noStackTrace(onTheLine.stderr);
      const kind = await run(['admin', 'org', 'create', '--name', 'X', '--kind', 'bakery'], env(dir));
      expect(kind.code).to.not.equal(0);
      expect(kind.stderr).to.contain('bakery');
      const notMember = await run(['admin', 'token', 'create', '--email', 'owner@cli.example', '--org', 'CLI Platform'], env(dir));
      expect(notMember.code).to.equal(1);
      noStackTrace(notMember.stderr);
    });

    it('admin token create prints a token that works against a started server', async () => {
      const token = await run(['admin', 'token', 'create', '--email', 'owner@cli.example', '--org', orgId], env(dir));
      expect(token.code, token.stderr).to.equal(0);
      ownerToken = token.stdout.trim();
      expect(ownerToken).to.match(/^svc_sess_\w+$/);
      const port = await freePort();
      const server = await startServer(env(dir, { PORT: String(port) }), /API reference: .*\n/);
      try {
        // Not an empty database: no demo tokens.
        expect(server.stdout()).to.not.contain('demo org user token');
        const me = await call(port, ops['auth.sessions.get'], undefined, ownerToken);
        expect(me.status).to.equal(200);
        expect(me.body.organization).to.deep.equal({ id: orgId, name: 'CLI Repairs', kind: 'repairer' });
        expect(me.body.membership_role).to.equal('owner');
        const staff = await call(port, ops['auth.sessions.get'], undefined, staffToken);
        expect(staff.body.roles).to.deep.equal(['billing_staff']);
        const c = await call(port, ops['billing.customers.insert'], { name: 'CLI Customer', email: 'c@cli.example', currency: 'GBP' }, ownerToken);
        expect(c.status).to.equal(200);
        customerId = c.body.id;
        expect((await call(port, ops['billing.customers.update'], { id: customerId, name: 'CLI Customer Ltd' }, staffToken)).status).to.equal(200);
      } finally {
        expect(await server.stop()).to.equal(0);
      }
    });

    it('history customer-<id> prints the events with actor and time', async () => {
      const r = await run(['history', `customer-${customerId}`], env(dir));
      expect(r.code, r.stderr).to.equal(0);
      const lines = r.stdout.trim().split('\n').filter((l) => l.startsWith('#'));
      expect(lines).to.have.length(2);
      expect(lines[0]).to.match(new RegExp(`^#0 \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z CustomerCreated by user:${ownerId}`));
      expect(lines[1]).to.match(/^#1 \S+Z CustomerUpdated by staff:[0-9a-f-]{36}/);
      expect(r.stdout).to.contain('CLI Customer Ltd');
      const json = await run(['history', `customer-${customerId}`, '--json'], env(dir));
      const first = JSON.parse(json.stdout.trim().split('\n')[0]!);
      expect(first).to.include({ revision: 0, type: 'CustomerCreated' });
      expect(first.metadata.actor).to.deep.equal({ type: 'user', id: ownerId });
      const missing = await run(['history', 'customer-0190c6a2-0000-7000-8000-000000000000'], env(dir));
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.contain('no events');
    });

    it('projections lists every read model with its state; retry of a read model that is not failed is refused in one line', async () => {
      const r = await run(['projections'], env(dir));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/^billing\.customers\s+(running|catching_up)\s+lag [\d.]+ s$/m);
      const retry = await run(['projections', 'retry', 'billing.customers'], env(dir));
      expect(retry.code).to.equal(1);
      expect(retry.stderr).to.contain('not failed');
      noStackTrace(retry.stderr);
    });

    it('rebuild replays every read model beside the live ones with progress and says so; an unknown projection is named', async () => {
      const r = await run(['rebuild'], env(dir));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/rebuilt all read models in [\d.]+ s/);
      expect(r.stderr + r.stdout).to.match(/identity: \d+ events/);
      // Progress while it builds beside the live tables: events, share done and the time left.
      expect(r.stderr).to.match(/^ {2}[\w./-]+: \d+ events, \d+%(, about \d+ s left)?$/m);
      const one = await run(['rebuild', 'billing.customers'], env(dir));
      expect(one.code, one.stderr).to.equal(0);
      expect(one.stdout).to.contain('rebuilt billing.customers');
      const bad = await run(['rebuild', 'nope'], env(dir));
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain('unknown projection');
      noStackTrace(bad.stderr);
    });

    it('erase user and erase customer crypto-shred them: no file of the data directory holds their email or name, history shows the erasure', async () => {
      const files = (value: string): string[] => {
        const out: string[] = [];
        const walk = (d: string): void => {
          for (const name of fs.readdirSync(d)) {
            const p = path.join(d, name);
            if (fs.statSync(p).isDirectory()) walk(p);
            else if (fs.readFileSync(p).includes(value)) out.push(path.relative(dir, p));
          }
        };
        walk(dir);
        return out;
      };
      const bare = await run(['erase', 'user', ownerId, '--legal-basis', 'consent_withdrawn'], env(dir));
      expect(bare.code).to.not.equal(0);
      expect(bare.stderr).to.contain('--reason');
      const user = await run(['erase', 'user', ownerId, '--legal-basis', 'consent_withdrawn', '--reason', 'Ticket 91'], env(dir));
      expect(user.code, user.stderr).to.equal(0);
      expect(JSON.parse(user.stdout)).to.include({ subject: `user:${ownerId}`, reason: 'Ticket 91' });
      const customer = await run(['erase', 'customer', customerId, '--legal-basis', 'no_longer_necessary', '--reason', 'Ticket 92'], env(dir));
      expect(customer.code, customer.stderr).to.equal(0);
      expect(JSON.parse(customer.stdout).requested_by).to.deep.equal({ type: 'system', id: 'cli' });
      for (const v of ['owner@cli.example', 'c@cli.example', 'CLI Customer']) expect(files(v), v).to.deep.equal([]);
      const history = await run(['history', `user-${ownerId}`], env(dir));
      expect(history.stdout).to.contain('UserErased').and.contain('[erased]').and.not.contain('owner@cli.example');
      // The owner's token died with the erasure.
      const port = await freePort();
      const server = await startServer(env(dir, { PORT: String(port) }), /API reference: .*\n/);
      try {
        expect((await call(port, ops['auth.sessions.get'], undefined, ownerToken)).status).to.equal(401);
      } finally {
        expect(await server.stop()).to.equal(0);
      }
    });
  });

  describe('start on an empty DATA_DIR', () => {
    it('seeds the demo and prints the four start-up lines; a second process gets a clear message', async () => {
      const dir = tempDir();
      const port = await freePort();
      const server = await startServer(env(dir, { PORT: String(port), LOG_LEVEL: 'info' }), /demo billing staff token: \S+\n/);
      try {
        const out = server.stdout();
        expect(out).to.contain(`core-server listening on http://localhost:${port}\n`);
        expect(out).to.contain(`API reference: http://localhost:${port}/docs\n`);
        expect(out).to.contain(`event log: embedded PGlite in ${path.join(dir, 'pglite')} (with the read models)\n`);
        const orgToken = /^demo org user token \(Acme Repairs\): (svc_sess_\S+)$/m.exec(out)?.[1];
        const staffToken = /^demo billing staff token: (svc_sess_\S+)$/m.exec(out)?.[1];
        expect(orgToken).to.be.a('string');
        expect(staffToken).to.be.a('string');
        const me = await call(port, ops['auth.sessions.get'], undefined, orgToken!);
        expect(me.body.organization.name).to.equal('Acme Repairs');
        expect(me.body.membership_role).to.equal('owner');
        expect((await call(port, ops['auth.sessions.get'], undefined, staffToken!)).body.roles).to.include('billing_staff');
        const docs = await fetch(`http://127.0.0.1:${port}/docs`);
        expect(docs.status).to.equal(200);

        const second = await run(['start'], env(dir, { PORT: String(await freePort()) }));
        expect(second.code).to.equal(1);
        expect(second.stderr).to.contain('in use by another core-server process');
        noStackTrace(second.stderr);
        const admin = await run(['admin', 'org', 'create', '--name', 'X', '--kind', 'repairer'], env(dir));
        expect(admin.code).to.equal(1);
        expect(admin.stderr).to.contain('in use by another core-server process');
      } finally {
        expect(await server.stop()).to.equal(0);
      }
      // Once it stopped, the directory can be opened again (and the demo is not seeded twice).
      const again = await run(['admin', 'token', 'create', '--email', 'owner@acme-repairs.example', '--org', 'Acme Repairs'], env(dir));
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout.trim()).to.match(/^svc_sess_/);
    });
  });

  describe('EVENT_STORE=esdb:// (no EventStoreDB server can run here)', () => {
    it('migrate creates only the read-model schema and says which log is in use', async () => {
      const dir = tempDir();
      const url = `esdb://127.0.0.1:${await freePort()}?tls=false`;
      const r = await run(['migrate'], env(dir, { EVENT_STORE: url }));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain(`event log: EventStoreDB ${url}; read models and projection checkpoints: embedded PGlite in ${path.join(dir, 'pglite')}\n`);
      expect(r.stdout).to.contain('the event-store tables are not created');
      expect(r.stdout).to.match(/applied: .*0002_infrastructure/);
      expect(r.stdout).to.not.contain('0001_eventstore');
    });

    it('start stops with one line naming EVENT_STORE when the server does not answer', async () => {
      const url = `kurrentdb://admin:s3cret@127.0.0.1:${await freePort()}?tls=false`;
      const r = await run(['start'], env(tempDir(), { EVENT_STORE: url, PORT: String(await freePort()) }));
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`cannot use the event log EVENT_STORE=${url.replace('s3cret', '***')}`);
      expect(r.stderr).to.not.contain('s3cret');
      noStackTrace(r.stderr);
    });
  });

  describe('start time: --version and --help load the command descriptions only', () => {
    it('the bundle (bin/build.js) loads commander and zod for them; the service is a chunk a command loads when it runs', async () => {
      const { BUILD_OPTIONS } = (await import(path.join(ROOT, 'bin/compiled.js'))) as { BUILD_OPTIONS: BuildOptions };
      const { metafile } = await build({ ...BUILD_OPTIONS, outdir: path.join(ROOT, 'dist-check'), write: false, metafile: true, logLevel: 'silent' });
      // What loading dist/main.js evaluates: the entry and the chunks it imports statically, their sources and packages.
      const outputs = metafile.outputs;
      const entry = Object.keys(outputs).find((k) => outputs[k]?.entryPoint?.endsWith('src/main.ts'));
      const sources = new Set<string>();
      const packages = new Set<string>();
      const stack = entry ? [entry] : [];
      const visited = new Set<string>();
      while (stack.length) {
        const out = outputs[stack.pop()!]!;
        for (const input of Object.keys(out.inputs)) sources.add(input);
        for (const i of out.imports) {
          if (i.kind !== 'import-statement') continue;
          if (i.external) packages.add(i.path);
          else if (!visited.has(i.path)) {
            visited.add(i.path);
            stack.push(i.path);
          }
        }
      }
      expect(entry, 'the entry chunk').to.be.a('string');
      expect([...packages].filter((p) => !p.startsWith('node:')).sort()).to.deep.equal(['commander', 'zod']);
      for (const heavy of ['src/app.ts', 'src/areas/operations.ts', 'src/db.ts', 'src/seed.ts', 'src/cli/service.ts']) expect([...sources], heavy).to.not.include(heavy);
      expect(Object.values(outputs).some((o) => Object.keys(o.inputs).includes('src/cli/service.ts')), 'the service chunk').to.equal(true);
    });

    it('--version prints the version; each command\'s help lists the environment variables it reads', async () => {
      const e = env(tempDir());
      const [version, serve, list] = await Promise.all([run(['--version'], e), run(['serve', '--help'], e), run(['admin', 'org', 'list', '--help'], e)]);
      expect(version.stdout.trim()).to.equal(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
      expect(serve.code).to.equal(0);
      for (const name of ['DATABASE_URL', 'DATABASE_POOL_MAX', 'PORT', 'OPS_PORT', 'METRICS_TOKEN']) expect(serve.stdout, name).to.match(new RegExp(`^ {2}${name} `, 'm'));
      expect(list.code).to.equal(0);
      expect(list.stdout).to.match(/^ {2}DATABASE_URL /m);
      expect(list.stdout).to.not.match(/^ {2}PORT /m);
    });
  });

  describe('bad configuration', () => {
    it('stops with a message naming the variable, no stack trace', async () => {
      for (const [name, value] of [['PORT', 'abc'], ['LOG_LEVEL', 'loud'], ['DATABASE_URL', 'mysql://x'], ['EVENT_STORE', 'esdb://host:2113?tls=maybe']] as const) {
        const r = await run(['start'], env(tempDir(), { [name]: value }));
        expect(r.code, name).to.equal(1);
        expect(r.stderr, name).to.contain(name);
        noStackTrace(r.stderr);
      }
    });

    it('serve refuses the embedded database, and a database that refuses the connection is one line naming DATABASE_URL', async () => {
      const serve = await run(['serve'], env(tempDir()));
      expect(serve.code).to.equal(1);
      expect(serve.stderr.trim().split('\n')).to.deep.equal(['core-server: serve needs DATABASE_URL: it runs beside other processes (serve, project, work) that share one PostgreSQL; the embedded database is for `start` (everything in one process).']);
      // A server that answers but has no such database (or role): what it said, once, the password hidden.
      const url = `postgres://postgres:s3cret@127.0.0.1:${await freePort()}/test`;
      const refused = await run(['migrate'], env(tempDir(), { DATABASE_URL: url }));
      expect(refused.code).to.equal(1);
      expect(refused.stderr.trim().split('\n')).to.have.length(1);
      expect(refused.stderr).to.match(/^core-server: cannot use the database DATABASE_URL=postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test: connect ECONNREFUSED/);
      expect(refused.stderr).to.not.contain('s3cret');
    });

    it('a port in use is a clear message, not a stack trace', async () => {
      const blocker = net.createServer();
      await new Promise<void>((r) => blocker.listen(0, '0.0.0.0', () => r()));
      try {
        const port = (blocker.address() as net.AddressInfo).port;
        const r = await run(['start'], env(tempDir(), { PORT: String(port) }));
        expect(r.code).to.equal(1);
        expect(r.stderr).to.contain(String(port));
        noStackTrace(r.stderr);
      } finally {
        blocker.close();
      }
    });
  });
});
