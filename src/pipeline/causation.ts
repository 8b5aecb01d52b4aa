// What caused a system caller's work: the last event of the stream the work reacts to (an invoice a collection pass charges,
// a lookup a worker answers). Its id becomes the causation id of every event the work appends, and its correlation carries on.
import type { Caller } from '../contract/caller.ts';
import type { EventStore } from '../eventstore/port.ts';

/** The causation of work on `stream`: its last event (null when the stream has none). */
export async function causedBy(store: EventStore, stream: string): Promise<NonNullable<Caller['causation']> | null> {
  for await (const e of store.readStream(stream, { direction: 'backwards', maxCount: 1 })) return { eventId: e.id, correlationId: e.metadata.correlation_id };
  return null;
}
