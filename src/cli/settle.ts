// After a CLI command wrote: the read models show its writes before it exits, so the next command reads them.
// Where a projector (`start`, `project`) runs against the same PostgreSQL, the CLI waits for it and never applies
// events itself: two runners on one projection raced (issue 30: `admin org create` beside `project` failed once in
// four with a duplicate key). Alone (embedded database, or no projector running), it catches up itself.
import type { App } from '../app.ts';
import type { LogPosition } from '../eventstore/port.ts';

const opened = new WeakMap<App, LogPosition | null>();
/** How long the CLI waits for a running projector before saying the read models are behind. */
const PROJECTOR_WAIT_MS = 60_000;

/** Notes where the log was when the command began (settle waits for what was written after). */
export async function commandStarted(app: App): Promise<void> {
  opened.set(app, await app.store.headPosition());
}

/** Makes the read models show everything written so far: waits for the running projector, or catches up here. */
export async function settle(app: App): Promise<void> {
  const { projectorRunning } = await import('../projections/engine/presence.ts'); // pg: loaded by a command that ran
  if (!(await projectorRunning(app.knex, app.db.kind))) return app.runner.catchUp();
  const head = await app.store.headPosition();
  const since = opened.get(app) ?? null;
  if (head === null || head === since) return;
  // The projections the new events concern: those store their checkpoints as they apply them.
  const written = await app.store.readAll({ from: since === null ? 'start' : { after: since }, maxCount: 10_000 });
  const types = new Set(written.map((e) => e.type));
  const concerned = app.runner.projections.filter((p) => !p.handles || [...types].some((t) => p.handles?.(t)));
  await app.runner.waitFor(head, concerned, PROJECTOR_WAIT_MS);
}
