// Database connection: embedded PGlite (one process) or PostgreSQL (pooled), both through knex.
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { type Release, lockDirectory } from './db-lock.ts';
import { isDatabaseUnavailable } from './db-errors.ts';

// Errors carry the statement with $n placeholders, not the values (compileSqlOnError: false): values are customer data.

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
  /** Where knex's warnings go (the composition root points it at the logger); by default one line on stderr. */
  onWarning?: (message: string) => void;
  close(): Promise<void>;
}

/**
 * knex's own log: a warning (a connection that could not be acquired) as one line, never its stack; and nothing
 * for the acquires that closing the pool aborts (a SIGTERM during a query printed `Acquire connection error: Error: aborted` and a stack).
 */
function knexLog(db: () => Db | undefined, closing: () => boolean): Knex.Config['log'] {
  const warn = (message: unknown) => {
    const text = String(message);
    if (closing() && /Error: aborted/.test(text)) return;
    const line = text.split('\n')[0] ?? text;
    const sink = db()?.onWarning;
    if (sink) sink(line);
    else process.stderr.write(`core-server: database: ${line}\n`);
  };
  return { warn, error: warn, deprecate: () => {}, debug: () => {} };
}

export { DatabaseLockedError } from './db-lock.ts';

/** The database named in DATABASE_URL refused or did not answer: said in one line, naming the setting (password hidden). */
export class DatabaseUnreachable extends Error {}

/** A connection string as it may be printed: the password replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]+:)[^@/]+@/i, '$1***@');
}

/**
 * Opens Postgres at `url` after one connection proves it usable, so a wrong host, database or role is one line naming
 * the setting and what the server said (not the pool's retries and two stack traces).
 */
export async function connectPostgres(url: string, poolMax?: number, applicationName?: string): Promise<Db> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: applicationName });
  probe.on('error', () => {});
  try {
    await probe.connect();
  } catch (err) {
    const e = err as Error & { code?: string };
    throw new DatabaseUnreachable(`cannot use the database DATABASE_URL=${redactUrl(url)}: ${e.message}${e.code ? ` (${e.code})` : ''}`);
  } finally {
    await probe.end().catch(() => {});
  }
  return openPostgres(url, poolMax, applicationName);
}

/**
 * Opens Postgres at `url`. `applicationName` (`core-server project`...) shows in pg_stat_activity: an operator sees
 * which process holds which connections, and the CLI sees whether a projector runs (src/cli/settle.ts).
 */
export function openPostgres(url: string, poolMax = 20, applicationName?: string): Db {
  const connection = applicationName ? { connectionString: url, application_name: applicationName } : url;
  let closing = false;
  const db: Db = {
    kind: 'postgres',
    knex: knexFactory({ client: 'pg', connection, pool: { min: 0, max: poolMax, afterCreate: prepareConnection }, compileSqlOnError: false, log: knexLog(() => db, () => closing) }),
    url,
    close: () => {
      closing = true;
      return db.knex.destroy();
    },
  };
  return db;
}

/** A pooled pg connection, with the mark knex gives one that ended (the pool then destroys it instead of handing it out). */
type PooledClient = pg.Client & { __knex__disposed?: unknown };

/**
 * A connection whose server process ended (pg_terminate_backend, a shutdown: a FATAL error) fails the query it
 * was running at once, but pg sees the socket close a moment later, after knex has put the connection back in
 * the pool: the next query would take it and fail too. Marked as knex marks a connection that ended, it is
 * dropped by the pool at once and the next query gets a live one. (The pool's `afterCreate`, which also sets how the
 * connection plans named statements.)
 */
function prepareConnection(connection: PooledClient, done: (err: Error | null, connection: PooledClient) => void): void {
  connection.connection.on('errorMessage', (msg: { severity?: string; code?: string }) => {
    if (msg.severity === 'FATAL' || msg.severity === 'PANIC' || isDatabaseUnavailable(msg)) connection.__knex__disposed ??= `the server ended the connection (${msg.code ?? msg.severity})`;
  });
  // The log's named statements (pooled-query.ts) are planned for their parameters on every call. By default PostgreSQL
  // switches a prepared statement to one generic plan after five calls, and a pooled connection keeps it for life: one
  // chosen while es_events and data_subject_keys were nearly empty (a new deployment, a bench's database) scans them
  // whole ever after. Measured (issue 31, customers.insert at 32 clients): appends averaging 28 ms in such runs, 7.8 ms
  // with plans per call; knex's own queries are unnamed, planned per call anyway.
  connection.query('set plan_cache_mode = force_custom_plan', (err: Error | null) => done(err, connection));
}

/** Opens embedded PGlite: in memory when `dir` is undefined, else on disk under `dir` (locked to this process). */
export async function openPglite(dir?: string, opts: { template?: () => Promise<string | undefined> } = {}): Promise<Db> {
  let release: Release = async () => {};
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    release = await lockDirectory(dir);
  }
  try {
    // A directory without a database yet starts as a copy of the template, when there is one (src/pglite-template.ts).
    const template = dir && opts.template && !fs.existsSync(path.join(dir, 'PG_VERSION')) ? await opts.template() : undefined;
    if (dir && template) copyDatabase(template, dir);
    // pg_trgm: trigram similarity for assemblies.experimental.search, as on PostgreSQL (contrib there).
    const pglite = new PGlite(dir ?? 'memory://', { extensions: { pg_trgm } });
    await pglite.waitReady;
    // knex-pglite takes the instance through a connection function (knex would deep-clone a plain object).
    const connection: Knex.SyncConnectionConfigProvider = () => ({ pglite: fairPglite(pglite) }) as Knex.StaticConnectionConfig;
    let closing = false;
    const db: Db = {
      kind: 'pglite',
      knex: knexFactory({ client: ClientPgLite, connection, compileSqlOnError: false, log: knexLog(() => db, () => closing) }),
      pglite,
      close: async () => {
        closing = true;
        await db.knex.destroy();
        if (!pglite.closed) await pglite.close();
        await release();
      },
    };
    return db;
  } catch (err) {
    await release();
    throw err;
  }
}

/**
 * Copies a closed PGlite data directory into `to`, PG_VERSION last: PGlite takes a directory with PG_VERSION for a
 * database, so one copied only in part (a crash meanwhile) is copied again on the next start rather than opened.
 */
function copyDatabase(from: string, to: string): void {
  const version = path.join(from, 'PG_VERSION');
  fs.cpSync(from, to, { recursive: true, filter: (src) => src !== version });
  fs.copyFileSync(version, path.join(to, 'PG_VERSION'));
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

