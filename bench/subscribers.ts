// Child process of phase (g): the assemblies.subscribe.stream clients, each its own socket. They live apart
// from the process that times searches, so parsing a thousand frames per event does not delay its clock.
import http from 'node:http';

/** What the parent sends: connect, then report. */
export type SubscribersCommand = { connect: { url: string; token: string; clients: number } } | { report: true };
/** What the child answers. */
export type SubscribersReply = { connected: number } | { latencies: number[]; delivered: number } | { error: string };

const latencies: number[] = [];
let delivered = 0;
const requests: http.ClientRequest[] = [];

/** One SSE client: records, per event, the time from the search's `completed_at` to its arrival. */
function subscriber(url: URL, token: string): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: '/api/v1/assemblies.subscribe.stream', method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscribe: ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const at = Date.parse((JSON.parse(data.slice(6)) as { completed_at: string }).completed_at);
          latencies.push(Date.now() - at);
          delivered++;
        }
      });
      res.on('error', () => {});
      resolve(req);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

const send = (m: SubscribersReply) => process.send?.(m);

process.on('message', (m: SubscribersCommand) => {
  if ('report' in m) return send({ latencies, delivered });
  const url = new URL(m.connect.url);
  void (async () => {
    for (let i = 0; i < m.connect.clients; i += 50)
      requests.push(...(await Promise.all(Array.from({ length: Math.min(50, m.connect.clients - i) }, () => subscriber(url, m.connect.token)))));
    send({ connected: requests.length });
  })().catch((err: unknown) => send({ error: String(err) }));
});
process.on('disconnect', () => {
  for (const r of requests) r.destroy();
  process.exit(0);
});
