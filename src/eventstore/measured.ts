// An EventStore decorator that records append latency in the service's metrics.
import type { Histogram } from 'prom-client';
import type { AppendOptions, AppendResult, EventData, EventStore } from './port.ts';

/** Wraps a store so every append is timed into `eventstore_append_duration_seconds`. */
export function measuredStore(store: EventStore, appendDuration: Histogram<never>): EventStore {
  return {
    async appendToStream(stream: string, events: EventData[], opts: AppendOptions): Promise<AppendResult> {
      const end = appendDuration.startTimer();
      try {
        return await store.appendToStream(stream, events, opts);
      } finally {
        end();
      }
    },
    readStream: (stream, opts) => store.readStream(stream, opts),
    readAll: (opts) => store.readAll(opts),
    subscribeToAll: (opts) => store.subscribeToAll(opts),
    headPosition: () => store.headPosition(),
    lastCommittedPosition: () => store.lastCommittedPosition(),
    changeToken: () => store.changeToken(),
    waitForChange: (cursor, token, signal) => store.waitForChange(cursor, token, signal),
    close: () => store.close(),
  };
}
