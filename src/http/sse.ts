// Writes server-sent events: headers flushed at once, keepalive comments, backpressure respected.
import type { Response } from 'express';
import type { SseMessage } from '../contract/operation.ts';

const KEEPALIVE_MS = 15_000;
/** Bytes a slow reader may leave unread before we drop it (it resumes with Last-Event-ID). */
const MAX_BUFFERED = 1024 * 1024;

// A message fanned out to many clients is one object: serialise and encode it once, as the HTTP/1.1 chunk
// its bytes travel in.
const chunks = new WeakMap<SseMessage, Buffer>();

/** The wire form of a message. */
export function frameOf(m: SseMessage): string {
  return `${m.id ? `id: ${m.id}\n` : ''}event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;
}

/** A message as one chunk of a chunked body (memoised per message object). */
function chunkOf(m: SseMessage): Buffer {
  let chunk = chunks.get(m);
  if (chunk === undefined) {
    const frame = Buffer.from(frameOf(m));
    chunk = Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n')]);
    chunks.set(m, chunk);
  }
  return chunk;
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
  // Once the headers are out, a chunked body's messages go to the socket as ready-made chunks (one buffer
  // shared by every client, no per-client encoding): the same bytes res.write would send, at a fraction of its cost.
  const socket = res.chunkedEncoding ? res.socket : null;
  const out: { write(data: string | Buffer): boolean; writableLength: number; on(e: 'drain', f: () => void): unknown; off(e: 'drain', f: () => void): unknown } = socket ?? res;
  let left = signal.aborted;
  const leave = () => (left = true);
  signal.addEventListener('abort', leave);
  // Messages that are ready together (a batch of the fan-out, a page of a replay) leave in one write: the socket
  // is corked at the first one and uncorked once this turn's ready messages are written.
  let corked = false;
  const uncork = () => {
    corked = false;
    socket?.uncork();
  };
  try {
    for await (const m of events) {
      if (left) break;
      if (socket && !corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      if (!out.write(socket ? chunkOf(m) : frameOf(m))) {
        if (out.writableLength > MAX_BUFFERED) break;
        await new Promise<void>((resolve) => {
          const done = () => {
            out.off('drain', done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          out.on('drain', done);
          signal.addEventListener('abort', done);
        });
      }
    }
  } finally {
    signal.removeEventListener('abort', leave);
    clearInterval(keepalive);
    res.end();
  }
}
