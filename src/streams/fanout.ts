// Live fan-out for SSE (DESIGN.md section 11): one subscription to the log per process shared through rxjs
// (`share()`), handed to every client's sink a slice of clients at a time, heartbeats from one shared ticker
// on the injected clock, and a bounded queue per client (a client that falls too far behind is dropped; it
// resumes with Last-Event-ID).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Observable, type Subscription, share } from 'rxjs';
import type { Clock } from '../clock.ts';
import { type Foreground, foreground } from '../foreground.ts';
import type { SseMessage } from '../contract/operation.ts';
import { type EventStore, type LogPosition, type RecordedEvent, comparePositions, laterPosition } from '../eventstore/port.ts';

/** Messages a client may have queued before it is dropped. */
export const CLIENT_QUEUE_CAP = 1_000;

/**
 * Clients served per turn of the event loop: a thousand clients' writes for one event would otherwise hold
 * the loop for tens of milliseconds, and every request arriving meanwhile (a search, say) would wait for them.
 */
export const FANOUT_SLICE = 128;

/**
 * How long a batch may wait for operation requests before its slices stop yielding to them: requests go
 * first (a search should not wait behind a thousand writes), and a busy process still delivers within this.
 */
export const MAX_YIELD_MS = 50;

/** A client of the fan-out: each event read, and the end if the shared reader fails. */
export interface Sink {
  event(e: RecordedEvent): void;
  end(): void;
}

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
  private readonly sinks = new Set<Sink>();
  private pending: RecordedEvent[] = [];
  /** When the oldest pending event was read. */
  private pendingSince = 0;
  private pumping = false;
  private reading: Subscription | null = null;

  private readonly foreground: Foreground;
  private readonly maxYieldMs: number;

  constructor(
    private readonly store: EventStore,
    opts: { foreground?: Foreground; maxYieldMs?: number } = {},
  ) {
    this.foreground = opts.foreground ?? foreground;
    this.maxYieldMs = opts.maxYieldMs ?? MAX_YIELD_MS;
    this.events$ = new Observable<RecordedEvent>((sub) => {
      const abort = new AbortController();
      let reached: () => void = () => {};
      let failed: (err: unknown) => void = () => {};
      const run: ReaderRun = { position: null, caughtUp: new Promise<void>((resolve, reject) => ((reached = resolve), (failed = reject))) };
      // A reader that fails before its first catch-up (the database lost) fails the clients waiting for it, not hangs them.
      run.caughtUp.catch(() => {});
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
        failed(new Error('the log reader ended before it caught up'));
        sub.complete();
      })().catch((err: unknown) => {
        failed(err);
        sub.error(err);
      });
      return () => {
        abort.abort();
        if (this.run === run) this.run = null;
      };
    }).pipe(share());
  }

  /**
   * Hands every log event read from now on to `sink`, in log order, until the returned function is called.
   * Events reach the sinks a slice of FANOUT_SLICE sinks per turn of the event loop (one reader of `events$`
   * for all of them), so a large audience never holds the loop for long.
   */
  attach(sink: Sink): () => void {
    this.sinks.add(sink);
    this.reading ??= this.events$.subscribe({
      next: (e) => {
        if (this.pending.length === 0) this.pendingSince = performance.now();
        this.pending.push(e);
        if (!this.pumping) void this.pump();
      },
      error: () => this.endAll(),
      complete: () => this.endAll(),
    });
    return () => {
      this.sinks.delete(sink);
      if (this.sinks.size === 0 && this.reading) {
        this.reading.unsubscribe();
        this.reading = null;
        this.pending = [];
      }
    };
  }

  // The reader failed or the store closed: every client ends (each resumes from its last id) and the next one starts a new reader.
  private endAll(): void {
    const ended = [...this.sinks];
    this.sinks.clear();
    this.reading = null;
    this.pending = [];
    for (const s of ended) s.end();
  }

  // Events in order, in batches: every event read while the previous batch was being delivered goes to each sink
  // in one go, so a client's stream writes them together (one write to its socket instead of one per event:
  // the writes are most of the fan-out's cost, and a busy log makes batches larger, not deliveries later).
  // Each batch goes to the sinks attached when its delivery starts (a sink attached after an event was read has
  // a hand-over position at or past it and skips it), a slice per turn, skipping sinks detached meanwhile.
  // Between slices, and before the first (the rest of the page the reader is handing over joins that batch),
  // a turn of the loop; while operation requests are in flight, also until they are done, for at most
  // maxYieldMs after the batch's first event was read. Requests cut in; the backlog they leave makes the next
  // batch larger, which costs the same writes.
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      let since = 0;
      const turn = async () => {
        await nextTurn();
        const left = since + this.maxYieldMs - performance.now();
        if (this.foreground.busy && left > 0) await this.foreground.idle(left);
      };
      while (this.pending.length) {
        since = this.pendingSince;
        await turn();
        const batch = this.pending;
        this.pending = [];
        const sinks = [...this.sinks];
        for (let i = 0; i < sinks.length; i += FANOUT_SLICE) {
          if (i > 0) await turn();
          for (const sink of sinks.slice(i, i + FANOUT_SLICE)) {
            for (const e of batch) if (this.sinks.has(sink)) sink.event(e);
          }
        }
      }
    } finally {
      this.pumping = false;
    }
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
  const stop = () => {
    ended = true;
    detach();
    extra?.unsubscribe();
    notify();
  };
  const take = (m: Positioned) => {
    if (ended) return;
    if (queue.length >= (s.cap ?? CLIENT_QUEUE_CAP)) return stop(); // too slow: dropped, it resumes from its last id
    queue.push(m);
    notify();
  };
  const detach = s.fanout.attach({
    event: (e) => {
      if (s.select(e)) take({ message: s.toMessage(e), position: e.position });
    },
    end: stop,
  });
  const extra: Subscription | null = s.extra?.subscribe({ next: (m) => take({ message: m, position: null }) }) ?? null;
  let aborted = s.signal.aborted; // read once: the getter is costly on a path taken per client per event
  const onAbort = () => {
    aborted = ended = true;
    notify();
  };
  s.signal.addEventListener('abort', onAbort);
  s.fanout.clients++;
  try {
    const handover = await s.fanout.position();
    let last: LogPosition | null = null;
    for await (const m of s.catchUp(handover)) {
      if (aborted) return;
      last = m.position ?? last;
      yield m.message;
    }
    // Queued messages up to the hand-over were in the catch-up; positions only grow, so once past it stop comparing.
    let after = laterPosition(handover, last);
    while (!aborted) {
      const m = queue.shift();
      if (m) {
        if (m.position !== null && after !== null) {
          if (comparePositions(m.position, after) <= 0) continue;
          after = null;
        }
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
    detach();
    extra?.unsubscribe();
  }
}
