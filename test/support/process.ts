// Real core-server processes for tests that need signals, crashes and restarts.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** The repository root (where package.json is). */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A spawned core-server process. */
export interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout matches `re`; rejects if the process exits first or `timeoutMs` passes. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** The environment of a child: this one's, without the variables tests must set themselves. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, PORT: _p, DATA_DIR: _dd, ...rest } = process.env;
  // bin/core-server.js runs the sources, not a dist/ bundle that may be older: `npm test` tests src/.
  return { ...rest, LOG_LEVEL: 'warn', CORE_SERVER_FROM_SOURCE: '1', ...extra };
}

/** Spawns `core-server <args>` with `env`: one node process (bin/core-server.js loads tsx in-process), so signals reach the service itself. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, ['bin/core-server.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(re, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = re.exec(out);
          if (m) return resolve(m);
          if (done) return reject(new Error(`process exited before printing ${re}: ${out}\n${err}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${re}: ${out}\n${err}`));
          setTimeout(tick, 20);
        };
        tick();
      });
    },
  };
}

/** What a finished CLI command printed and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `core-server <args>` to completion (through tsx by default; `entry` picks another launcher), with `input` on its standard input. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, entry: string[] = ['node_modules/.bin/tsx', 'src/main.ts'], input = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, env });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** What `p` rejects with (it must reject). */
export async function rejection(p: PromiseLike<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
