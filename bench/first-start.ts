// Phase (m), issue 31: `core-server start` (what `npm start` runs once dist/ is built) on an empty PGlite data directory,
// timed from spawn to the banner's "core-server listening" line (migrations, projections, HTTP and the demo seed done),
// next to the same-run reference: a restart on the directory it left.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Figures of phase (m): seconds to the banner. */
export interface FirstStartFigures {
  first_seconds: number;
  restart_seconds: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');

// Starts the service on `dataDir` and resolves with the seconds until it prints its banner; then stops it (SIGINT) and waits.
async function timeStart(dataDir: string): Promise<number> {
  // As a person's `npm start` runs it: the embedded database and file store, default log level; only the port is free.
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
  for (const k of ['DATABASE_URL', 'OBJECT_STORE', 'EVENT_STORE', 'LOG_LEVEL', 'BASE_URL', 'OPS_PORT']) delete env[k];
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/core-server.js'), 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const seconds = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('core-server listening')) resolve((performance.now() - t0) / 1000);
    });
    child.once('exit', (code) => reject(new Error(`core-server start exited with ${code}: ${err.slice(-500)}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  await exited;
  return seconds;
}

/** Phase (m): builds dist/ if it is stale (as `npm start`'s prestart does), then a first start and a restart. */
export async function benchFirstStart(): Promise<FirstStartFigures> {
  execFileSync(process.execPath, [path.join(ROOT, 'bin/build.js')], { cwd: ROOT, stdio: 'inherit' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-bench-start-'));
  try {
    const first = await timeStart(dir);
    const restart = await timeStart(dir);
    return { first_seconds: first, restart_seconds: restart };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
