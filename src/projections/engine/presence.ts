// Whether a projector (`start` or `project`) runs against this PostgreSQL: while its daemon runs, its listener
// connection's name says `projector`, and PostgreSQL drops that connection the moment the process ends, however it ends. The CLI
// looks for it before it would apply events itself: two runners racing on one projection is what the daemon
// owns, not a one-off command (issue 30).
import type { Knex } from 'knex';
import type { Db } from '../../db.ts';
import { holdsTag, sharedListener } from '../../db-listener.ts';

/** The application_name of a projector's presence connection before the listener connection carried it (a process of an older release). */
const OLD_PROJECTOR = 'core-server projector';

/** Announces this process as a projector until the returned function is called (nothing on PGlite: one process only). */
export async function announceProjector(db: Db): Promise<() => Promise<void>> {
  if (db.kind !== 'postgres' || !db.url) return async () => {};
  // The presence is the process's listener connection, named with `projector` (src/db-listener.ts): no connection of its own.
  const listener = sharedListener(db);
  listener.use();
  await listener.hold('projector');
  await listener.listen();
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    await listener.releaseTag('projector');
    await listener.leave();
  };
}

/** True when another process runs the projections against this database. */
export async function projectorRunning(knex: Knex, kind: Db['kind']): Promise<boolean> {
  if (kind !== 'postgres') return false;
  const res = await knex.raw(`select count(*)::int as n from pg_stat_activity where (application_name = ? or (${holdsTag('?')})) and datname = current_database()`, [OLD_PROJECTOR, 'projector']);
  return ((res.rows as { n: number }[])[0]?.n ?? 0) > 0;
}
