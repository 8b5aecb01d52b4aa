// Writes server-sent events: headers flushed at once, keepalive comments, backpressure respected.
import type { Response } from 'express';
import type { SseMessage } from '../api/operation.ts';

const KEEPALIVE_MS = 15_000;
/** Bytes a slow reader may leave unread before we drop it (it resumes with Last-Event-ID). */
const MAX_BUFFERED = 1024 * 1024;

// A message fanned out to many clients is one object: serialise it once.
const frames = new WeakMap<SseMessage, string>();

/** The wire form of a message (memoised per message object). */
export function frameOf(m: SseMessage): string {
  let frame = frames.get(m);
  if (frame === undefined) {
    frame = `${m.id ? `id: ${m.id}\n` : ''}event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;
    frames.set(m, frame);
  }
  return frame;
}

/** Streams `events` to the client until it leaves or the iterable ends. */
export async function writeSse(res: Response, events: AsyncIterable<SseMessage>, signal: AbortSignal): Promise<void> {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  res.write(': connected\n\n');
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  try {
    for await (const m of events) {
      if (signal.aborted) break;
      if (!res.write(frameOf(m))) {
        if (res.writableLength > MAX_BUFFERED) break;
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          res.on('drain', done);
          signal.addEventListener('abort', done);
        });
      }
    }
  } finally {
    clearInterval(keepalive);
    res.end();
  }
}
