// Live fan-out for SSE (DESIGN.md section 11): one subscription to the log per process shared through rxjs
// (`share()`), each stream a `filter` of it, heartbeats from one shared ticker on the injected clock, and a
// bounded queue per client (a client that falls too far behind is dropped; it resumes with Last-Event-ID).
import { Observable, type Subscription, filter, merge, share } from 'rxjs';
import type { Clock } from '../clock.ts';
import type { SseMessage } from '../api/operation.ts';
import { type EventStore, type LogPosition, type RecordedEvent, comparePositions, laterPosition } from '../eventstore/port.ts';

/** Messages a client may have queued before it is dropped. */
export const CLIENT_QUEUE_CAP = 1_000;

/** A message with the log position it came from (none for heartbeats). */
export interface Positioned {
  message: SseMessage;
  position: LogPosition | null;
}

// One run of the shared reader: from the log's end when the first client came, until the last left.
interface ReaderRun {
  position: LogPosition | null;
  caughtUp: Promise<void>;
}

/** The process's one reader of the log, shared by every stream client. */
export class LogFanout {
  /** Every event appended after the reader started. */
  readonly events$: Observable<RecordedEvent>;
  private run: ReaderRun | null = null;
  /** Live clients (for metrics and tests). */
  clients = 0;

  constructor(private readonly store: EventStore) {
    this.events$ = new Observable<RecordedEvent>((sub) => {
      const abort = new AbortController();
      let reached: () => void = () => {};
      const run: ReaderRun = { position: null, caughtUp: new Promise<void>((r) => (reached = r)) };
      this.run = run;
      void (async () => {
        for await (const e of this.store.subscribeToAll({ from: 'end', signal: abort.signal })) {
          if ('kind' in e) {
            run.position = e.position;
            reached();
            continue;
          }
          run.position = e.position;
          sub.next(e);
        }
        sub.complete();
      })().catch((err: unknown) => sub.error(err));
      return () => {
        abort.abort();
        if (this.run === run) this.run = null;
      };
    }).pipe(share());
  }

  /** Where the shared reader is: every event after this position reaches current subscribers. Waits for its first catch-up. */
  async position(): Promise<LogPosition | null> {
    const run = this.run;
    if (!run) throw new Error('the log fan-out has no subscriber');
    await run.caughtUp;
    return run.position;
  }
}

const fanouts = new WeakMap<EventStore, LogFanout>();

/** The fan-out of this store (one per process and store). */
export function logFanout(store: EventStore): LogFanout {
  let f = fanouts.get(store);
  if (!f) {
    f = new LogFanout(store);
    fanouts.set(store, f);
  }
  return f;
}

const tickers = new WeakMap<Clock, Map<number, Observable<Date>>>();

/** A shared ticker that emits whenever `everyMs` have passed on `clock` (checked every second of real time, so a test clock moved on is noticed). */
export function clockTicks(clock: Clock, everyMs: number): Observable<Date> {
  let byInterval = tickers.get(clock);
  if (!byInterval) tickers.set(clock, (byInterval = new Map()));
  let ticks = byInterval.get(everyMs);
  if (!ticks) {
    ticks = new Observable<Date>((sub) => {
      let last = clock.now().getTime();
      const timer = setInterval(() => {
        const now = clock.now().getTime();
        if (now - last < everyMs) return;
        last = now;
        sub.next(new Date(now));
      }, Math.min(1_000, everyMs));
      return () => clearInterval(timer);
    }).pipe(share());
    byInterval.set(everyMs, ticks);
  }
  return ticks;
}

/** What a resumable stream is made of. */
export interface LiveStream {
  fanout: LogFanout;
  /** Which log events this client gets, and as what message (id = position for resumable ones). */
  select: (e: RecordedEvent) => boolean;
  toMessage: (e: RecordedEvent) => SseMessage;
  /** Messages from before the live hand-over: everything up to and including `upTo` (after the read models reached it). */
  catchUp: (upTo: LogPosition | null) => AsyncIterable<Positioned>;
  /** Other live messages merged in (heartbeats). */
  extra?: Observable<SseMessage>;
  /** Awaited before a live message is sent (e.g. until the read models a client will query next have it). */
  beforeLive?: (position: LogPosition) => Promise<void>;
  signal: AbortSignal;
  cap?: number;
}

/**
 * Catch-up, then live, with no gap and no duplicate: the live subscription starts first (queued), then the
 * catch-up covers everything up to where the shared reader was at that moment, then queued live messages
 * after that point follow. A client whose queue passes the cap is ended (it resumes from its last id).
 */
export async function* catchUpThenLive(s: LiveStream): AsyncIterable<SseMessage> {
  const queue: Positioned[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const live$ = s.fanout.events$.pipe(filter(s.select));
  const source: Observable<Positioned> = merge(
    new Observable<Positioned>((sub) => live$.subscribe({ next: (e) => sub.next({ message: s.toMessage(e), position: e.position }), error: (err) => sub.error(err), complete: () => sub.complete() })),
    new Observable<Positioned>((sub) => (s.extra ?? new Observable<SseMessage>()).subscribe({ next: (m) => sub.next({ message: m, position: null }) })),
  );
  let subscription: Subscription | null = null;
  subscription = source.subscribe({
    next: (m) => {
      if (queue.length >= (s.cap ?? CLIENT_QUEUE_CAP)) {
        ended = true; // too slow: dropped, it resumes from its last id
        subscription?.unsubscribe();
      } else queue.push(m);
      notify();
    },
    error: () => {
      ended = true;
      notify();
    },
    complete: () => {
      ended = true;
      notify();
    },
  });
  const onAbort = () => {
    ended = true;
    notify();
  };
  s.signal.addEventListener('abort', onAbort);
  s.fanout.clients++;
  try {
    const handover = await s.fanout.position();
    let last: LogPosition | null = null;
    for await (const m of s.catchUp(handover)) {
      if (s.signal.aborted) return;
      last = m.position ?? last;
      yield m.message;
    }
    const after = laterPosition(handover, last);
    while (!s.signal.aborted) {
      const m = queue.shift();
      if (m) {
        if (m.position !== null && after !== null && comparePositions(m.position, after) <= 0) continue;
        if (m.position !== null && s.beforeLive) await s.beforeLive(m.position);
        yield m.message;
        continue;
      }
      if (ended) return;
      await new Promise<void>((r) => (wake = r));
    }
  } finally {
    s.fanout.clients--;
    s.signal.removeEventListener('abort', onAbort);
    subscription?.unsubscribe();
  }
}
