// Issue 30, the production shape on PostgreSQL: `serve`, `project` and `work` as separate processes, each watched
// through its operations listener (OPS_PORT); the CLI beside a running projector; request logs; a quiet SIGTERM.
// One set of processes shared by the whole file (spawning is slow).
import { expect } from 'chai';
import crypto from 'node:crypto';
import knexFactory from 'knex';
import { type Proc, childEnv, freePort, runCli, spawnCli } from '../support/process.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type Readiness = { status: string; checks: { name: string; ok: boolean; detail: string }[] };

if (process.env.TEST_DATABASE_URL) {
  describe('process kinds on PostgreSQL: operations listeners, the CLI beside a projector, logs, SIGTERM', function () {
    this.timeout(300_000);
    const serverUrl = process.env.TEST_DATABASE_URL ?? '';
    const name = `core_test_${crypto.randomBytes(6).toString('hex')}`;
    const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    let env: NodeJS.ProcessEnv;
    const procs: Record<'project' | 'serve' | 'work', Proc | undefined> = { project: undefined, serve: undefined, work: undefined };
    const ports = { project: 0, serve: 0, serveOps: 0, work: 0 };
    const cli = (args: string[], input = '', extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra }, ['bin/core-server.js'], input);
    const get = async (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`);

    before(async () => {
      await admin.raw(`create database ${name}`);
      env = childEnv({ DATABASE_URL: url.toString(), LOG_LEVEL: 'info', DATABASE_POOL_MAX: '5' });
      const migrated = await cli(['migrate']);
      expect(migrated.code, migrated.stderr).to.equal(0);
      ports.project = await freePort();
      ports.serve = await freePort();
      ports.serveOps = await freePort();
      ports.work = await freePort();
      procs.project = spawnCli(['project'], { ...env, OPS_PORT: String(ports.project) });
      procs.serve = spawnCli(['serve'], { ...env, PORT: String(ports.serve), OPS_PORT: String(ports.serveOps) });
      procs.work = spawnCli(['work', '--interval', '1'], { ...env, OPS_PORT: String(ports.work) });
      await Promise.all(Object.values(procs).map((p) => p?.waitFor(/"msg":"core-server \((project|serve|work)\) started"/, 120_000)));
    });
    after(async () => {
      for (const p of Object.values(procs)) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    });

    it('starts each kind with one structured line naming its operations listener', () => {
      for (const [kind, p] of Object.entries(procs)) {
        const line = p?.stdout().split('\n').find((l) => l.includes(`core-server (${kind}) started`)) ?? '';
        const banner = JSON.parse(line) as { kind: string; ops_url: string; pool_max: number };
        expect(banner.kind).to.equal(kind);
        expect(banner.pool_max).to.equal(5);
        expect(banner.ops_url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      }
    });

    it('answers /healthz, /readyz (one shape) and /metrics on every process kind; project graphs the lag, work its workers', async () => {
      for (const port of [ports.project, ports.serveOps, ports.work, ports.serve]) {
        expect(await (await get(port, '/healthz')).json()).to.deep.equal({ status: 'ok' });
        const ready = (await (await get(port, '/readyz')).json()) as Readiness;
        expect(ready.status, JSON.stringify(ready)).to.equal('ready');
        expect(ready.checks[0]).to.deep.equal({ name: 'database', ok: true, detail: 'reachable' });
        expect(ready.checks.map((c) => c.name)).to.include('projection:billing.invoices');
      }
      const projectMetrics = await (await get(ports.project, '/metrics')).text();
      expect(projectMetrics).to.match(/projection_lag_seconds\{projection="identity"\} \d/);
      expect(projectMetrics).to.match(/projection_state\{projection="identity",state="running"\} 1/);
      // The workers run only in `work`: its readiness and metrics say how their passes went.
      const work = (await (await get(ports.work, '/readyz')).json()) as Readiness;
      expect(work.checks.filter((c) => c.name.startsWith('worker:')).map((c) => c.name)).to.include('worker:usage-invoices');
      expect(await (await get(ports.work, '/metrics')).text()).to.match(/worker_passes_total\{worker="overdue",result="ok"\} [1-9]/);
      expect(procs.work?.stdout()).to.match(/"msg":"worker pass"/);
    });

    it('admin org create beside a running project: every run prints its id, and no read model fails (the CLI does not project)', async () => {
      const runs = await Promise.all([1, 2, 3, 4].map((i) => cli(['admin', 'org', 'create', '--name', `Raced ${i}`, '--kind', 'repairer'])));
      for (const r of runs) {
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout.trim()).to.match(UUID);
        expect(r.stderr).to.not.contain('ProjectionFailed');
      }
      const ready = (await (await get(ports.project, '/readyz')).json()) as Readiness;
      expect(ready.checks.filter((c) => !c.ok)).to.deep.equal([]);
      const list = await cli(['admin', 'org', 'list']);
      expect(list.code, list.stderr).to.equal(0);
      for (const r of runs) expect(list.stdout).to.contain(r.stdout.trim());
    });

    it('logs every request with its actor and organization', async () => {
      const org = (await cli(['admin', 'org', 'create', '--name', 'Logged Ltd', '--kind', 'repairer'])).stdout.trim();
      const user = await cli(['admin', 'user', 'create', '--email', 'logged@ops.example', '--password-stdin', '--org', org, '--role', 'owner'], 'a long password\n');
      expect(user.code, user.stderr).to.equal(0);
      const users = await cli(['admin', 'user', 'list', '--org', org]);
      expect(users.stdout).to.contain('logged@ops.example');
      const token = (await cli(['admin', 'token', 'create', '--email', 'logged@ops.example', '--org', org])).stdout.trim();
      const res = await fetch(`http://127.0.0.1:${ports.serve}/api/v1/auth.sessions.get`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-request-id': 'logged-request-1' } });
      expect(res.status).to.equal(200);
      const line = await procs.serve?.waitFor(/\{[^\n]*"request_id":"logged-request-1"[^\n]*"msg":"request"\}/);
      const logged = JSON.parse(line?.[0] ?? '{}') as { actor: string; organization: string; status: number };
      expect(logged).to.include({ actor: `user:${user.stdout.trim()}`, organization: org, status: 200 });
    });

    it('a wrong database name or role is one line naming DATABASE_URL and what the server said', async () => {
      const wrong = (change: (u: URL) => void) => {
        const u = new URL(url.toString());
        change(u);
        return u.toString();
      };
      const [database, role] = await Promise.all([
        cli(['migrate'], '', { DATABASE_URL: wrong((u) => (u.pathname = '/core_no_such_database')) }),
        cli(['admin', 'org', 'list'], '', { DATABASE_URL: wrong((u) => (u.username = 'core_no_such_role')) }),
      ]);
      expect(database.code).to.equal(1);
      expect(database.stderr.trim().split('\n')).to.deep.equal([`core-server: cannot use the database DATABASE_URL=${wrong((u) => (u.pathname = '/core_no_such_database'))}: database "core_no_such_database" does not exist (3D000)`]);
      expect(role.code).to.equal(1);
      expect(role.stderr.trim().split('\n')).to.have.length(1);
      expect(role.stderr).to.match(/^core-server: cannot use the database DATABASE_URL=\S+: role "core_no_such_role" does not exist \(28000\)/);
    });

    it('stops on SIGTERM with exit 0 and no stack trace or listener warning', async () => {
      // A request in flight while stopping: closing the pool must not print `Acquire connection error` with a stack.
      void fetch(`http://127.0.0.1:${ports.serve}/readyz`).catch(() => {});
      const exits = await Promise.all(Object.values(procs).map(async (p) => {
        p?.child.kill('SIGTERM');
        return { exit: await p?.exited, stderr: p?.stderr() ?? '' };
      }));
      for (const { exit, stderr } of exits) {
        expect(exit?.code, stderr).to.equal(0);
        expect(stderr).to.not.match(/Acquire connection error|MaxListenersExceededWarning|\n\s+at /);
      }
    });
  });
}
