// Writes server-sent events: headers flushed at once, keepalive comments, backpressure respected.
import type { Response } from 'express';
import type { SseMessage } from '../api/operation.ts';

const KEEPALIVE_MS = 15_000;
/** Bytes a slow reader may leave unread before we drop it (it resumes with Last-Event-ID). */
const MAX_BUFFERED = 1024 * 1024;

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
      let frame = '';
      if (m.id) frame += `id: ${m.id}\n`;
      frame += `event: ${m.event}\n`;
      frame += `data: ${JSON.stringify(m.data)}\n\n`;
      if (!res.write(frame)) {
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
