// Reads a stream operation's answer (`parseAs: 'stream'`) as server-sent events: `event`, `id` and the JSON `data`.

/** One event of a stream; `data` is the stream's documented event schema. */
export interface SseEvent<T> {
  event: string;
  id: string | null;
  data: T;
}

/** The events of an SSE body, in order, until it ends (comments and keepalives skipped). */
export async function* sseEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent<T>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let id: string | null = null;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue;
        const at = line.indexOf(':');
        const field = at < 0 ? line : line.slice(0, at);
        const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) yield { event, id, data: JSON.parse(data.join('\n')) as T };
    }
  }
}
