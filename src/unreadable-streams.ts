// Streams that a command or the audit trail met with an event that does not read as its type: their commands
// answer 409 stream_unreadable until an operator repairs the event (an upcaster, or a corrected row), and the
// health page lists them so that happens. A listed stream that reads again is dropped when the list is read.
import type { Knex } from 'knex';
import type { EventReadError } from './domain/decider.ts';

/** One stream whose event does not read. */
export interface UnreadableStream {
  stream_id: string;
  event_id: string;
  revision: number;
  type: string;
  error: string;
  first_seen_at: string;
  last_seen_at: string;
}

/** Records (or refreshes) the stream of `err`; best effort, as it runs on the way to an error answer. */
export async function noteUnreadableStream(knex: Knex, err: EventReadError, now: Date): Promise<void> {
  if (!err.stream || !err.eventId || err.revision === null) return;
  await knex('unreadable_streams')
    .insert({ stream_id: err.stream, event_id: err.eventId, revision: err.revision.toString(), type: err.type, error: err.issues.slice(0, 1000), first_seen_at: now, last_seen_at: now })
    .onConflict('stream_id')
    .merge(['event_id', 'revision', 'type', 'error', 'last_seen_at']);
}

/** Every recorded unreadable stream, oldest first. */
export async function listUnreadableStreams(knex: Knex): Promise<UnreadableStream[]> {
  const rows = (await knex('unreadable_streams').select('*').orderBy('first_seen_at')) as (Omit<UnreadableStream, 'revision' | 'first_seen_at' | 'last_seen_at'> & { revision: string | number; first_seen_at: Date | string; last_seen_at: Date | string })[];
  return rows.map((r) => ({ ...r, revision: Number(r.revision), first_seen_at: new Date(r.first_seen_at).toISOString(), last_seen_at: new Date(r.last_seen_at).toISOString() }));
}
