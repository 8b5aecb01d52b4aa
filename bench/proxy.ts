// A round-robin HTTP proxy for the bench, in a process of its own: each request goes to the next of
// BENCH_PROXY_TARGETS (base URLs of `serve` processes) over keep-alive connections; tells the parent its URL.
// What a load balancer in front of several `serve` processes does, and no more (no retries, no health checks).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const targets = (process.env.BENCH_PROXY_TARGETS ?? '').split(',').filter(Boolean).map((u) => new URL(u));
if (targets.length === 0) throw new Error('BENCH_PROXY_TARGETS names no target');
const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 64 }));
let turn = 0;

const server = http.createServer((req, res) => {
  const i = turn++ % targets.length;
  const target = targets[i]!;
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: agents[i] },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${err.message}`);
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ proxying: `http://127.0.0.1:${port}` });
});
const stop = () => {
  server.closeAllConnections();
  server.close();
  for (const a of agents) a.destroy();
  process.exit(0);
};
process.on('message', (m) => {
  if (m === 'stop') stop();
});
process.on('disconnect', stop);
