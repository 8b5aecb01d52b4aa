// Health: every read model's state and lag, the event a failed one stopped at and how to repair it, the events
// operators skipped, and the streams commands cannot read (platform.health.get).
import type express from 'express';
import type { Services } from '../../context.ts';
import { HealthResponse } from '../../contract/schemas/platform.ts';
import { esc, sendConsole, table } from './layout.ts';
import { type ConsolePage, consoleRoute } from './route.ts';

/** Mounts GET /console/health. */
export function mountHealth(app: express.Express, services: Services): void {
  app.get('/console/health', ...consoleRoute(services, healthPage));
}

async function healthPage(p: ConsolePage): Promise<void> {
  const r = await p.api.call('platform.health.get', undefined, HealthResponse);
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Health', section: 'health', problem: r.problem, body: '<h1>Health</h1>' });
  const h = r.body;
  const failed = h.projections.filter((s) => s.failure);
  const stateOf = (s: (typeof h.projections)[number]) => (s.state === 'failed' ? '<strong class="bad">failed</strong>' : esc(s.state.replace('_', ' ')));
  const rows = h.projections.map((s) => [esc(s.name), stateOf(s), esc(`${s.lag_seconds.toFixed(1)} s`), s.failure ? esc(`${s.failure.type} ${s.failure.event_id} in ${s.failure.stream_id}: ${s.failure.error}: ${s.failure.message}`) : '—']);
  const repair = failed.length
    ? `<p>To repair a failed read model, fix the cause and retry it, or skip the event with a reason (platform staff):</p>
<pre>${failed.map((s) => esc(`core-server projections retry ${s.name}\ncore-server projections skip ${s.name} --event ${s.failure?.event_id ?? ''} --reason "..."`)).join('\n')}</pre>
<p class="muted">Or the operations platform.projections.retry and platform.projections.skip.</p>`
    : '';
  sendConsole(p.res, p.session, 200, {
    title: 'Health',
    section: 'health',
    body: `<h1>Health</h1>
<p>${h.status === 'ok' ? 'Every read model is up to date.' : `<strong class="bad">Needs attention:</strong> ${esc(String(failed.length))} failed read model(s), ${esc(String(h.unreadable_streams.length))} unreadable stream(s).`}</p>
${table('Read models', ['Read model', 'State', 'Lag', 'Stopped at'], rows, 'No read models.')}
${repair}
${h.unreadable_streams.length ? '<p class="muted">Repair the event (an upcaster for its type, or the corrected row), then drop the stream from this list with <code>core-server projections forget-stream STREAM</code>.</p>' : ''}
${table('Unreadable streams (their commands answer 409 stream_unreadable)', ['Stream', 'Event', 'Type', 'Why', 'Last seen'], h.unreadable_streams.map((u) => [esc(u.stream_id), esc(`#${u.revision} ${u.event_id}`), esc(u.type), esc(u.error), esc(u.last_seen_at)]), 'None.')}
${table('Skipped events', ['Read model', 'Event', 'Stream', 'By', 'When', 'Why'], h.skips.map((s) => [esc(s.projection), esc(`${s.type} ${s.event_id}`), esc(s.stream_id), esc(s.actor), esc(s.skipped_at), esc(s.reason)]), 'None.')}`,
  });
}
