// The wait both log adapters use between polls: an append in this process, the caller leaving, or a timeout, whichever comes first.
import type { EventEmitter } from 'node:events';

/** Resolves after `ms`, or as soon as `emitter` emits `event` or `signal` aborts. */
export function wakeOrTimeout(emitter: EventEmitter, event: string, signal: AbortSignal, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off(event, done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    emitter.on(event, done);
    signal.addEventListener('abort', done);
  });
}
