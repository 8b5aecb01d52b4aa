// The operations endpoints of every process kind: /healthz, /readyz and /metrics, on the API port of `start` and
// `serve`, and on OPS_PORT (any process kind; `project` and `work` have no other port). One /readyz shape everywhere.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { newId } from '../ids.ts';
import type { Services } from '../context.ts';
import type { ProjectionStatus } from '../read-model-status.ts';
import { notReady } from '../read-model-status.ts';
import { opsGuard } from './ops-guard.ts';

/** One thing readiness depends on: the database, a read model, a worker. */
export interface ReadinessCheck {
  /** `database`, `projection:<name>` or `worker:<name>`. */
  name: string;
  ok: boolean;
  /** What an operator reads: `reachable`, `running, 0.0 s behind`, `failed at event ...`, the worker's error. */
  detail: string;
  /** A read model's checkpoint, state, lag and failure (projection checks). */
  projection?: ProjectionStatus;
}

/** The answer of /readyz: 200 when every check is ok, else 503. */
export interface Readiness {
  status: 'ready' | 'unavailable';
  checks: ReadinessCheck[];
}

/** More checks of one process kind (the workers of `work`). */
export type ExtraChecks = () => ReadinessCheck[];

/** Whether this process can do its job: the database answers, the read models are not stopped or far behind, the workers succeed. */
export async function readiness(services: Services, extra?: ExtraChecks): Promise<Readiness> {
  const checks: ReadinessCheck[] = [];
  try {
    await services.knex.raw('select 1');
    checks.push({ name: 'database', ok: true, detail: 'reachable' });
    const statuses = await services.runner.statuses();
    const stalled = new Set(notReady(statuses).map((s) => s.name));
    for (const s of statuses) checks.push({ name: `projection:${s.name}`, ok: !stalled.has(s.name), detail: projectionDetail(s), projection: s });
  } catch {
    checks.push({ name: 'database', ok: false, detail: 'database unreachable' });
  }
  checks.push(...(extra?.() ?? []));
  return { status: checks.every((c) => c.ok) ? 'ready' : 'unavailable', checks };
}

function projectionDetail(s: ProjectionStatus): string {
  if (s.failure) return `failed at event ${s.failure.event_id} (${s.failure.type}): ${s.failure.error}: ${s.failure.message}`;
  return `${s.state.replace('_', ' ')}, ${s.lag_seconds.toFixed(1)} s behind the log`;
}

/** Mounts /healthz, and /readyz and /metrics behind METRICS_TOKEN (or loopback when none is set). */
export function mountOpsRoutes(app: express.Express, services: Services, extra?: ExtraChecks): void {
  app.use(['/metrics', '/readyz'], opsGuard(services.config.metricsToken));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await readiness(services, extra);
    if (ready.status !== 'ready') res.status(503).set('Retry-After', '5');
    res.json(ready);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(services.metrics.registry.contentType).send(await services.metrics.registry.metrics());
  });
}

/** A listening operations server. */
export interface OpsListener {
  url: string;
  close(): Promise<void>;
}

/** Listens on OPS_PORT/OPS_HOST (0: an ephemeral port) with the operations endpoints only. */
export async function listenOps(services: Services, opts: { port: number; host: string; extra?: ExtraChecks }): Promise<OpsListener> {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req: Request, res: Response, next) => {
    res.locals.requestId = newId();
    next();
  });
  mountOpsRoutes(app, services, opts.extra);
  app.use((req, res) => {
    res.status(404).json({ type: 'NotFound', code: 'not_found', message: `Nothing at ${req.method} ${req.path} (this is the operations port: /healthz, /readyz, /metrics).`, request_id: res.locals.requestId as string });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
