// Group commit of analytics events: requests that arrive while an append is in flight are appended together in the
// next one (one round trip and one projection batch for a burst), per day stream, with each event's own id and metadata.
import type { EventData, EventStore, LogPosition } from '../../eventstore/port.ts';
import { type AnalyticsCommand, analyticsDecider, analyticsStream } from '../../domain/analytics/event.ts';

/** Most events appended in one round trip. */
export const MAX_GROUP = 500;

interface Waiting {
  event: EventData;
  resolve(position: LogPosition): void;
  reject(err: unknown): void;
}

/** Appends analytics events in groups: `record` resolves once the event is durably in the log. */
export class AnalyticsRecorder {
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(private readonly store: EventStore) {}

  /** Decides one event (a refusal throws at once) and appends it with whatever else is waiting. */
  record(eventId: string, command: AnalyticsCommand, metadata: EventData['metadata']): Promise<LogPosition> {
    const [decided] = analyticsDecider.decide(command, analyticsDecider.initialState());
    if (!decided) throw new Error('the analytics decider decided nothing');
    return new Promise((resolve, reject) => {
      this.queue.push({ event: { id: eventId, type: decided.type, data: decided.data, metadata }, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        const byStream = new Map<string, Waiting[]>();
        for (const w of group) {
          const stream = analyticsStream(w.event.id);
          byStream.set(stream, [...(byStream.get(stream) ?? []), w]);
        }
        for (const [stream, waiting] of byStream) await this.append(stream, waiting);
      }
    } finally {
      this.flushing = false;
    }
  }

  // One append for the group; if it fails (a retried request's event already stored, say), each event alone, so one bad event fails only its request.
  private async append(stream: string, waiting: Waiting[]): Promise<void> {
    try {
      const res = await this.store.appendToStream(stream, waiting.map((w) => w.event), { expectedRevision: 'any' });
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
        w.resolve((await this.store.appendToStream(stream, [w.event], { expectedRevision: 'any' })).position);
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
