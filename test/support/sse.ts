// A real server-sent-event client over fetch for tests: opens a stream with a POST, parses frames as they
// arrive, and waits for events with a real-time bound (time in the service moves by the TestClock).
import type { TestService } from './app.ts';

/** One parsed SSE event. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: Record<string, unknown>;
}

/** An open stream. */
export interface SseClient {
  status: number;
  headers: Headers;
  /** Every event received so far. */
  events: SseEvent[];
  /** Waits until `count` events (optionally of one kind) have arrived; fails after `ms` of real time. */
  waitFor(count: number, opts?: { event?: string; ms?: number }): Promise<SseEvent[]>;
  /** True once the server ended the stream. */
  ended(): boolean;
  close(): void;
}

/** POSTs `body` to a stream operation and reads it in the background. A non-200 answer is returned as JSON in `error`. */
export async function openStream(svc: TestService, id: string, body: unknown, token: string, headers: Record<string, string> = {}): Promise<SseClient & { error?: Record<string, unknown> }> {
  const abort = new AbortController();
  const res = await fetch(`${svc.url}/api/v1/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  let done = false;
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const w of waiters) w();
  };
  if (res.status !== 200 || !res.body) {
    const error = (await res.json()) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, events, error, waitFor: async () => events, ended: () => true, close: () => {} };
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) continue;
            const [k, ...rest] = line.split(':');
            const v = rest.join(':').replace(/^ /, '');
            if (k === 'id') id = v;
            else if (k === 'event') event = v;
            else if (k === 'data') data.push(v);
          }
          if (data.length) events.push({ id, event, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
          wakeAll();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wakeAll();
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    events,
    ended: () => done,
    close: () => abort.abort(),
    async waitFor(count, opts = {}) {
      const matching = () => events.filter((e) => !opts.event || e.event === opts.event);
      const deadline = Date.now() + (opts.ms ?? 15_000);
      while (matching().length < count) {
        if (done) throw new Error(`stream ended with ${matching().length}/${count} ${opts.event ?? ''} events: ${JSON.stringify(events)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out with ${matching().length}/${count} ${opts.event ?? ''} events: ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const w = () => {
            waiters.delete(w);
            clearTimeout(t);
            resolve();
          };
          const t = setTimeout(w, left);
          waiters.add(w);
        });
      }
      return matching();
    },
  };
}
