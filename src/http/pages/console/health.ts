// Health: every read model's state and lag, the event a failed one stopped at and how to repair it, the events
// operators skipped, and the streams commands cannot read (platform.health.get).
import type express from 'express';
import type { Services } from '../../../context.ts';
import { sendConsole, table } from './layout.ts';
import { html } from '../html.ts';
import { ops } from '../../../areas/operations.ts';
import { type ConsolePage, consoleRoute } from './route.ts';

/** Mounts GET /console/health. */
export function mountHealth(app: express.Express, services: Services): void {
  app.get('/console/health', ...consoleRoute(services, healthPage));
}

async function healthPage(p: ConsolePage): Promise<void> {
  const r = await p.api.call(ops['platform.health.get'], undefined);
  if (!r.ok) return void sendConsole(p.res, p.session, r.problem.status, { title: 'Health', section: 'health', problem: r.problem, body: html`<h1>Health</h1>` });
  const h = r.body;
  const failed = h.projections.filter((s) => s.failure);
  const stateOf = (s: (typeof h.projections)[number]) => (s.state === 'failed' ? html`<strong class="bad">failed</strong>` : s.state.replace('_', ' '));
  const rows = h.projections.map((s) => [s.name, stateOf(s), `${s.lag_seconds.toFixed(1)} s`, s.failure ? `${s.failure.type} ${s.failure.event_id} in ${s.failure.stream_id}: ${s.failure.error}: ${s.failure.message}` : '—']);
  const repair = failed.length
    ? html`<p>To repair a failed read model, fix the cause and retry it, or skip the event with a reason (platform staff):</p>
<pre>${failed.map((s) => `core-server projections retry ${s.name}\ncore-server projections skip ${s.name} --event ${s.failure?.event_id ?? ''} --reason "..."`).join('\n')}</pre>
<p class="muted">Or the operations platform.projections.retry and platform.projections.skip.</p>`
    : '';
  sendConsole(p.res, p.session, 200, {
    title: 'Health',
    section: 'health',
    body: html`<h1>Health</h1>
<p>${h.status === 'ok' ? 'Every read model is up to date.' : html`<strong class="bad">Needs attention:</strong> ${failed.length} failed read model(s), ${h.unreadable_streams.length} unreadable stream(s).`}</p>
${table('Read models', ['Read model', 'State', 'Lag', 'Stopped at'], rows, 'No read models.')}
${repair}
${h.unreadable_streams.length ? html`<p class="muted">Repair the event (an upcaster for its type, or the corrected row), then drop the stream from this list with <code>core-server projections forget-stream STREAM</code>.</p>` : ''}
${table('Unreadable streams (their commands answer 409 stream_unreadable)', ['Stream', 'Event', 'Type', 'Why', 'Last seen'], h.unreadable_streams.map((u) => [u.stream_id, `#${u.revision} ${u.event_id}`, u.type, u.error, u.last_seen_at]), 'None.')}
${table('Skipped events', ['Read model', 'Event', 'Stream', 'By', 'When', 'Why'], h.skips.map((s) => [s.projection, `${s.type} ${s.event_id}`, s.stream_id, s.actor, s.skipped_at, s.reason]), 'None.')}`,
  });
}
