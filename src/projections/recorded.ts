// How projections read recorded events: through their aggregate's codec (once per event), and by stream key and category.
import type { RecordedEvent } from '../eventstore/port.ts';
import { type DomainEvent, type EventCodec, readEvent } from '../domain/decider.ts';

/** A recorded event read through its aggregate's codec (upcast, then parsed), once per recorded event however many tables read it. */
export function readRecorded<E extends DomainEvent>(codec: EventCodec<E>, e: RecordedEvent): E {
  const known = codec.memo.get(e);
  if (known) return known;
  const read = readEvent(codec, e);
  codec.memo.set(e, read);
  return read;
}

/** `customer-0190...` -> `0190...`. */
export function streamKey(event: RecordedEvent): string {
  return event.streamId.slice(event.streamId.indexOf('-') + 1);
}

/** The category of a stream id (`customer-0190...` -> `customer`). */
export function streamCategory(streamId: string): string {
  return streamId.slice(0, streamId.indexOf('-'));
}
