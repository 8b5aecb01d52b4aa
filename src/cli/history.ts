// `core-server history <stream>`: a stream's events with actor, time and reason, as lines for a terminal or JSON.
// An event whose metadata lacks an actor, or whose type no longer exists, is still printed: it is what an
// operator is looking for.
import type { Knex } from 'knex';
import type { EventStore } from '../eventstore/port.ts';
import { listSkips, storedFailures } from '../projections/engine/health.ts';
import { listUnreadableStreams } from '../unreadable-streams.ts';

/** The lines `history` prints for `stream` (none when the stream has no events). */
export async function formatHistory(store: EventStore, knex: Knex, stream: string, opts: { json?: boolean }): Promise<string[]> {
  const skips = await listSkips(knex, { streamId: stream });
  // Why an event does not read, as the read models and commands that met it recorded it.
  const why = new Map<string, string>();
  for (const [name, f] of await storedFailures(knex)) if (f.stream_id === stream) why.set(f.event_id, `read model ${name} stopped here: ${f.error}: ${f.message}`);
  for (const u of await listUnreadableStreams(knex)) if (u.stream_id === stream) why.set(u.event_id, `commands refuse this stream: ${u.error}`);
  const lines: string[] = [];
  for await (const e of store.readStream(stream, { currentKeys: true })) {
    const m = e.metadata as Partial<typeof e.metadata> | null;
    const skipped = skips.filter((s) => s.event_id === e.id).map(({ projection, reason, actor, skipped_at }) => ({ projection, reason, actor, skipped_at }));
    if (opts.json) {
      lines.push(JSON.stringify({ revision: Number(e.revision), position: e.position, event_id: e.id, type: e.type, at: e.createdAt.toISOString(), metadata: m, data: e.data, unreadable: why.get(e.id) ?? null, skipped_by: skipped }));
      continue;
    }
    const actor = m?.actor ? `${m.actor.type}:${m.actor.id}` : 'unknown (no actor in metadata)';
    lines.push(`#${e.revision} ${e.createdAt.toISOString()} ${e.type} by ${actor}${m?.reason ? ` reason: ${m.reason}` : ''}${m?.request_id ? ` request ${m.request_id}` : ''} event ${e.id}`);
    lines.push(`    ${JSON.stringify(redact(e.data))}`);
    const problem = why.get(e.id);
    if (problem) lines.push(`    unreadable at position ${e.position}: ${problem}`);
    for (const s of skipped) lines.push(`    skipped by read model ${s.projection} on ${s.skipped_at} by ${s.actor}: ${s.reason}`);
  }
  return lines;
}

// Hashes are not secrets, but they do not belong on a terminal either.
function redact(data: unknown): unknown {
  if (!data || typeof data !== 'object') return data;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, /hash|secret/.test(k) ? '[redacted]' : v]));
}
