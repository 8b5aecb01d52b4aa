// Aggregates as this process last read or wrote them, so the next command on one skips reading its stream.
// A remembered state may be behind the stream (another process appended since): a decision on it appends
// with its revision, which then conflicts and is re-decided on a fresh read; what it refuses, decides
// nothing on, or cannot find is read again before the caller is answered (see runCommand).
import type { EventStore, LogPosition } from '../eventstore/port.ts';
import type { LayeredIds } from '../domain/layered.ts';

/** An aggregate as read before its command runs: a caller that must see it first (a 404, say) passes it on, so the stream is read once. */
export interface LoadedAggregate<S> {
  state: S;
  revision: bigint | null;
  position: LogPosition | null;
  /** Ids of the stream's events: a retried request is recognized by its first event id without reading again. */
  eventIds: LayeredIds;
  /** As this process last read or wrote it (see recall): the stream may have moved on since. */
  remembered?: boolean;
}

/** Most aggregates remembered per event store (least recently used go first). */
const MAX_REMEMBERED = 5_000;

const byStore = new WeakMap<EventStore, Map<string, LoadedAggregate<unknown>>>();

/** The aggregate of `stream` as last read or written here, marked `remembered`, or undefined. */
export function recall<S>(store: EventStore, stream: string): LoadedAggregate<S> | undefined {
  const streams = byStore.get(store);
  const hit = streams?.get(stream);
  if (!streams || !hit) return undefined;
  streams.delete(stream); // re-insert: the map's order is the eviction order
  streams.set(stream, hit);
  return { ...(hit as LoadedAggregate<S>), remembered: true };
}

/** Keeps `loaded` as the aggregate of `stream` (a fresh read, or the state after this process's append). */
export function remember<S>(store: EventStore, stream: string, loaded: LoadedAggregate<S>): void {
  let streams = byStore.get(store);
  if (!streams) byStore.set(store, (streams = new Map()));
  streams.delete(stream);
  streams.set(stream, { state: loaded.state, revision: loaded.revision, position: loaded.position, eventIds: loaded.eventIds });
  if (streams.size > MAX_REMEMBERED) {
    const oldest = streams.keys().next();
    if (!oldest.done) streams.delete(oldest.value);
  }
}

/** Forgets the aggregate of `stream` (its append failed, or what was remembered proved stale). */
export function forget(store: EventStore, stream: string): void {
  byStore.get(store)?.delete(stream);
}
