// Database connection: embedded PGlite (one process) or PostgreSQL (pooled), both through knex.
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

// Return bigint columns (int8) as strings and let callers convert; never lose precision.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

/** Which engine a Db talks to. */
export type DbKind = 'pglite' | 'postgres';

/** A knex instance plus what the event store needs to know about the engine. */
export interface Db {
  kind: DbKind;
  knex: Knex;
  /** The embedded engine, for LISTEN on PGlite; undefined on Postgres. */
  pglite?: PGlite;
  /** Postgres connection string, for a dedicated LISTEN client; undefined on PGlite. */
  url?: string;
  close(): Promise<void>;
}

/** Thrown when the embedded database directory is already open in another process. */
export class DatabaseLockedError extends Error {}

/** Opens Postgres at `url`. */
export function openPostgres(url: string, poolMax = 20): Db {
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: poolMax } });
  return { kind: 'postgres', knex, url, close: () => knex.destroy() };
}

/** Opens embedded PGlite: in memory when `dir` is undefined, else on disk under `dir` (locked to this process). */
export async function openPglite(dir?: string): Promise<Db> {
  let release = () => {};
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    release = lockDirectory(dir);
  }
  try {
    const pglite = new PGlite(dir ?? 'memory://');
    await pglite.waitReady;
    // knex-pglite takes the instance through a connection function (knex would deep-clone a plain object).
    const connection: Knex.SyncConnectionConfigProvider = () => ({ pglite: fairPglite(pglite) }) as Knex.StaticConnectionConfig;
    const knex = knexFactory({ client: ClientPgLite, connection });
    return {
      kind: 'pglite',
      knex,
      pglite,
      close: async () => {
        await knex.destroy();
        if (!pglite.closed) await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * PGlite runs every query synchronously on the event loop's thread, and knex chains them through
 * promises: under load, query after query ran in one long stretch of microtasks while sockets waited,
 * so a request that arrived during a burst waited seconds for the HTTP server to even read it. Each
 * query first yields to the event loop (setImmediate), so I/O is served between queries and requests
 * queue for the one connection in arrival order.
 */
function fairPglite(pglite: PGlite): PGlite {
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'query') {
        return async (...args: Parameters<PGlite['query']>) => {
          await new Promise<void>((resolve) => setImmediate(resolve));
          return target.query(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// PGlite is one process's database; a pid file stops a second process from corrupting it.
function lockDirectory(dir: string): () => void {
  const lockFile = path.join(dir, 'core-server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(lockFile, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DatabaseLockedError(
          `The embedded database in ${dir} is in use by another core-server process (pid ${pid}).\n` +
            `Only one process can open it. Stop that process, or run several processes against PostgreSQL (set DATABASE_URL).`,
        );
      }
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
