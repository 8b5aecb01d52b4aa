// Phase (n), issue 30: how long an operator waits for a CLI command, as a whole process from spawn to exit, next to
// same-run references: a bare `node -e 0` (the process floor) and, on PGlite, opening the data directory with PGlite
// alone (the embedded engine's floor: every command on it pays that open).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchBackend, createPostgresDatabase } from './support.ts';

/** One timed command: its median and slowest wall time over the runs. */
export interface CliFigure {
  command: string;
  median_ms: number;
  max_ms: number;
  reference: boolean;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/core-server.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? '7');

function wallMs(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}: ${r.stderr.slice(-400)}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Phase (n): every command `RUNS` times, the commands taken in turn (round robin) so that noise falls on all alike. */
export async function benchCli(backend: BenchBackend): Promise<CliFigure[]> {
  execFileSync(process.execPath, [path.join(ROOT, 'bin/build.js')], { cwd: ROOT, stdio: 'inherit' });
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  for (const k of ['DATABASE_URL', 'EVENT_STORE', 'OBJECT_STORE']) delete env[k];
  let cleanup: () => Promise<void>;
  if (backend === 'postgres') {
    const db = await createPostgresDatabase();
    env.DATABASE_URL = db.url;
    cleanup = db.drop;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-bench-cli-'));
    env.DATA_DIR = dir;
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  try {
    // Set-up, not timed: the schema and one organization with a history to read.
    execFileSync(process.execPath, [BIN, 'migrate'], { cwd: ROOT, env, stdio: 'ignore' });
    const org = execFileSync(process.execPath, [BIN, 'admin', 'org', 'create', '--name', 'Bench Repairs', '--kind', 'repairer'], { cwd: ROOT, env, encoding: 'utf8' }).trim();
    const commands: { command: string; args: string[]; reference: boolean }[] = [
      { command: 'node -e 0 (reference: the process floor)', args: ['-e', '0'], reference: true },
      ...(backend === 'pglite'
        ? [{
            command: 'PGlite open + select 1 alone (reference: the engine floor)',
            args: ['--input-type=module', '-e', `const { PGlite } = await import('@electric-sql/pglite'); const db = await PGlite.create(${JSON.stringify(path.join(env.DATA_DIR!, 'pglite'))}); await db.query('select 1'); await db.close();`],
            reference: true,
          }]
        : []),
      { command: 'core-server --version', args: [BIN, '--version'], reference: false },
      { command: 'core-server admin org list', args: [BIN, 'admin', 'org', 'list'], reference: false },
      { command: 'core-server admin user list', args: [BIN, 'admin', 'user', 'list'], reference: false },
      { command: 'core-server projections', args: [BIN, 'projections'], reference: false },
      { command: 'core-server history organization-<id>', args: [BIN, 'history', `organization-${org}`], reference: false },
      { command: 'core-server admin org create', args: [BIN, 'admin', 'org', 'create', '--name', 'Another Repairs', '--kind', 'repairer'], reference: false },
    ];
    const times = commands.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run++) commands.forEach((c, i) => times[i]!.push(wallMs(c.args, env)));
    return commands.map((c, i) => ({ command: c.command, median_ms: median(times[i]!), max_ms: Math.max(...times[i]!), reference: c.reference }));
  } finally {
    await cleanup();
  }
}
