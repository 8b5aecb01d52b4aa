// Group commit of analytics events: requests that arrive while an append is in flight are appended together in the
// next one (one round trip and one projection batch for a burst), per day stream, with each event's own id and metadata.
import type { EventData, EventStore, LogPosition } from '../../eventstore/port.ts';
import { type AnalyticsCommand, analyticsDecider, analyticsStream } from '../../domain/analytics/event.ts';
import { InFlightBatch, type Pending } from '../../in-flight-batch.ts';

/** Most events appended in one round trip. */
export const MAX_GROUP = 500;

type Waiting = Pending<EventData, LogPosition>;

/** Appends analytics events in groups: `record` resolves once the event is durably in the log. */
export class AnalyticsRecorder {
  private readonly batch: InFlightBatch<EventData, LogPosition>;

  constructor(private readonly store: EventStore) {
    this.batch = new InFlightBatch(async (group) => {
      const byStream = new Map<string, Waiting[]>();
      for (const w of group) {
        const stream = analyticsStream(w.item.id);
        byStream.set(stream, [...(byStream.get(stream) ?? []), w]);
      }
      for (const [stream, waiting] of byStream) await this.append(stream, waiting);
    }, MAX_GROUP);
  }

  /** Decides one event (a refusal throws at once) and appends it with whatever else is waiting. */
  record(eventId: string, command: AnalyticsCommand, metadata: EventData['metadata']): Promise<LogPosition> {
    const [decided] = analyticsDecider.decide(command, analyticsDecider.initialState());
    if (!decided) throw new Error('the analytics decider decided nothing');
    return this.batch.add({ id: eventId, type: decided.type, data: decided.data, metadata });
  }

  // One append for the group; if it fails (a retried request's event already stored, say), each event alone, so one bad event fails only its request.
  private async append(stream: string, waiting: Waiting[]): Promise<void> {
    try {
      const res = await this.store.appendToStream(stream, waiting.map((w) => w.item), { expectedRevision: 'any' });
      for (const w of waiting) w.resolve(res.position);
      return;
    } catch (err) {
      if (waiting.length === 1) {
        waiting[0]?.reject(err);
        return;
      }
    }
    for (const w of waiting) {
      try {
        // A retry of an event already stored in this stream answers as the stored append did (no second copy).
        w.resolve((await this.store.appendToStream(stream, [w.item], { expectedRevision: 'any' })).position);
      } catch (err) {
        w.reject(err);
      }
    }
  }
}

const recorders = new WeakMap<EventStore, AnalyticsRecorder>();

/** The recorder of an event store (one per store, so every request of a process shares its groups). */
export function recorderFor(store: EventStore): AnalyticsRecorder {
  let r = recorders.get(store);
  if (!r) recorders.set(store, (r = new AnalyticsRecorder(store)));
  return r;
}
