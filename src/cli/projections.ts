// `core-server projections [retry NAME | skip NAME --event ID --reason TEXT]`: an operator's view and repair of
// the read models without SQL. Works beside a running `project` process (Postgres): the runner that stopped sees
// the cleared failure within a second. The embedded database belongs to `start`: stop it first, or use the
// platform.projections.* operations while it runs.
import os from 'node:os';
import type { Command } from 'commander';
import { retryProjection, skipProjectionEvent } from '../commands/platform/projections.ts';
import { listSkips } from '../projections/engine/health.ts';
import type { ProjectionStatus } from '../read-model-status.ts';
import type { BuildProgress } from '../projections/engine/blue-green.ts';
import { forgetUnreadableStream, listUnreadableStreams } from '../unreadable-streams.ts';
import type { WithApp } from './clients.ts';

/** The lines `core-server projections` prints: one per read model, then the skips and unreadable streams. */
export function formatStatuses(statuses: ProjectionStatus[]): string[] {
  return statuses.map((s) => {
    const head = `${s.name.padEnd(40)} ${s.state.padEnd(12)} lag ${s.lag_seconds.toFixed(1)} s`;
    const f = s.failure;
    return f ? `${head}\n    stopped at event ${f.event_id} (${f.type}, ${f.stream_id}, position ${f.position}) since ${f.failed_at}: ${f.error}: ${f.message}` : head;
  });
}

/** The line `core-server rebuild` prints about a build under way, e.g. `  billing.invoices: 120000 events, 24%, about 32 s left`. */
export function formatBuildProgress(p: BuildProgress): string {
  const eta = p.etaSeconds === null ? '' : `, about ${Math.ceil(p.etaSeconds)} s left`;
  return `  ${p.projection}: ${p.events} events, ${Math.floor(p.done * 100)}%${eta}`;
}

/** Adds `projections` and its subcommands to the CLI. */
export function addProjectionCommands(program: Command, withApp: WithApp): void {
  const cmd = program
    .command('projections')
    .description('Lists the read models: state (running, catching_up, failed), lag and the event a failed one stopped at; skips and unreadable streams.')
    .action(async () => {
      await withApp(async (app) => {
        for (const line of formatStatuses(await app.runner.statuses())) console.log(line);
        const skips = await listSkips(app.knex);
        if (skips.length) console.log(`skipped events:\n${skips.map((s) => `    ${s.projection}: ${s.event_id} (${s.type}, ${s.stream_id}) by ${s.actor} on ${s.skipped_at}: ${s.reason}`).join('\n')}`);
        const unreadable = await listUnreadableStreams(app.knex);
        if (unreadable.length) console.log(`unreadable streams (commands answer 409 stream_unreadable):\n${unreadable.map((u) => `    ${u.stream_id} #${u.revision} ${u.type} ${u.event_id}: ${u.error}`).join('\n')}`);
      });
    });
  cmd
    .command('retry')
    .description('Applies again the event a failed read model stopped at (after its code or data was fixed).')
    .argument('<name>', 'read model name')
    .action(async (name: string) => {
      await withApp(async (app) => {
        await retryProjection(app.knex, app.runner.names(), name);
        console.log(`${name}: failure cleared; it applies the event again within a second (see \`core-server projections\`)`);
      });
    });
  cmd
    .command('forget-stream')
    .description('Drops a repaired stream from the list of unreadable streams (a command that meets it unreadable again lists it again).')
    .argument('<stream>', 'stream id, e.g. invoice-0190...')
    .action(async (stream: string) => {
      await withApp(async (app) => {
        await forgetUnreadableStream(app.knex, stream);
        console.log(`${stream}: no longer listed as unreadable`);
      });
    });
  cmd
    .command('skip')
    .description('Leaves the event a failed read model stopped at out of it, with a reason (recorded with who and when; rebuilds keep it).')
    .argument('<name>', 'read model name')
    .requiredOption('--event <id>', 'the event id it failed at')
    .requiredOption('--reason <text>', 'why')
    .action(async (name: string, o: { event: string; reason: string }) => {
      await withApp(async (app) => {
        await skipProjectionEvent(app.knex, app.runner.names(), { name, eventId: o.event, reason: o.reason, actor: `cli:${os.userInfo().username}`, now: app.clock.now() });
        console.log(`${name}: event ${o.event} skipped; it goes on within a second`);
      });
    });
}
