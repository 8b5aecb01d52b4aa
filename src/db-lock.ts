// One process per embedded database directory, with a lock the operating system releases with its holder.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Thrown when the embedded database directory is already open in another process. */
export class DatabaseLockedError extends Error {}

/** Releases a directory lock. */
export type Release = () => Promise<void>;

/**
 * Locks `dir` for this process. On Linux the lock is a listening socket in the abstract namespace named
 * after the directory's real path: the kernel frees it the moment its holder exits, however it exits
 * (SIGKILL, OOM, crash), so a restart never waits for or trips over a stale pid file, a zombie or a reused pid.
 * Elsewhere, a pid file (a pid that no longer answers counts as stale).
 */
export async function lockDirectory(dir: string): Promise<Release> {
  return process.platform === 'linux' ? socketLock(dir) : pidFileLock(dir);
}

function lockedMessage(dir: string, pid: number | null): string {
  return (
    `The embedded database in ${dir} is in use by another core-server process${pid ? ` (pid ${pid})` : ''}.\n` +
    `Only one process can open it. Stop that process, or run several processes against PostgreSQL (set DATABASE_URL).`
  );
}

async function socketLock(dir: string): Promise<Release> {
  const name = `\0core-server-pglite-${crypto.createHash('sha256').update(fs.realpathSync(dir)).digest('hex').slice(0, 32)}`;
  // The holder answers every connection with its pid, for the message a second process prints.
  const server = net.createServer((socket) => socket.end(JSON.stringify({ pid: process.pid })));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path: name }, () => resolve());
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new DatabaseLockedError(lockedMessage(dir, await holderPid(name)));
  }
  server.unref(); // the lock must not keep the process alive
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

// Asks the holder for its pid; null if it does not answer within a second.
function holderPid(name: string): Promise<number | null> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect({ path: name });
    const done = (pid: number | null) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1_000, () => done(null));
    socket.on('data', (d) => (text += d));
    socket.on('end', () => {
      try {
        const pid: unknown = JSON.parse(text).pid;
        done(typeof pid === 'number' ? pid : null);
      } catch {
        done(null);
      }
    });
    socket.on('error', () => done(null));
  });
}

async function pidFileLock(dir: string): Promise<Release> {
  const lockFile = path.join(dir, 'core-server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return async () => fs.rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(lockFile, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) throw new DatabaseLockedError(lockedMessage(dir, pid));
      fs.rmSync(lockFile, { force: true }); // stale: its process is gone
    }
  }
  throw new DatabaseLockedError(`could not lock the embedded database in ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
