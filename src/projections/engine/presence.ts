// Whether a projector (`start` or `project`) runs against this PostgreSQL: it holds one idle connection named
// PROJECTOR while its daemon runs, which PostgreSQL drops the moment the process ends, however it ends. The CLI
// looks for it before it would apply events itself: two runners racing on one projection is what the daemon
// owns, not a one-off command (issue 30).
import pg from 'pg';
import type { Knex } from 'knex';
import type { Db } from '../../db.ts';

/** The application_name of a projector's presence connection (seen in pg_stat_activity). */
const PROJECTOR = 'core-server projector';

/** Announces this process as a projector until the returned function is called (nothing on PGlite: one process only). */
export async function announceProjector(db: Db): Promise<() => Promise<void>> {
  if (db.kind !== 'postgres' || !db.url) return async () => {};
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const c = new pg.Client({ connectionString: db.url, application_name: PROJECTOR });
    // The server went away (a restart): announce again once it is back, so the CLI keeps seeing us.
    c.on('error', () => {});
    c.on('end', () => {
      if (closed) return;
      retry = setTimeout(() => void connect().catch(() => {}), 1_000);
      retry.unref();
    });
    try {
      await c.connect();
      client = c;
    } catch {
      if (!closed) {
        retry = setTimeout(() => void connect().catch(() => {}), 1_000);
        retry.unref();
      }
    }
  };
  await connect();
  return async () => {
    closed = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

/** True when another process runs the projections against this database. */
export async function projectorRunning(knex: Knex, kind: Db['kind']): Promise<boolean> {
  if (kind !== 'postgres') return false;
  const res = await knex.raw('select count(*)::int as n from pg_stat_activity where application_name = ? and datname = current_database()', [PROJECTOR]);
  return ((res.rows as { n: number }[])[0]?.n ?? 0) > 0;
}
