// The HTTP binding: one POST route per registered operation, the error body, health, metrics, OpenAPI.
import type http from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { newId } from '../ids.ts';
import { IdSource } from '../ids.ts';
import { toErrorResponse } from './errors.ts';
import { DomainError } from '../domain/errors.ts';
import { isDatabaseUnavailable } from '../db-errors.ts';
import type { Auth, Services } from '../context.ts';
import type { Operation } from '../contract/operation.ts';
import type { Registry } from '../contract/registry.ts';
import { openApiDocument } from './openapi.ts';
import { mountDocs } from './docs.ts';
import { errorViolation } from '../contract/check.ts';
import { writeSse } from './sse.ts';
import { foreground } from '../foreground.ts';
import { StreamCaps } from './stream-caps.ts';
import { requestReason } from './reason.ts';
import { securityHeaders, setSecurityHeaders } from './security-headers.ts';
import { type Caller, ContractViolation, type Entitled, type InvokeOptions, actorOf, invoke, prepare } from '../pipeline/invoke.ts';
import { type ExtraChecks, mountOpsRoutes } from './ops.ts';
import { EventReadError } from '../domain/decider.ts';
import { noteUnreadableStream } from '../unreadable-streams.ts';

export type { Entitled } from '../pipeline/invoke.ts';

/** Resolves the caller of a surface from the request. */
export type Authenticator = (req: Request, services: Services) => Promise<Auth>;

const SURFACE_PREFIX = { core: '/api/v1/', integrations: '/api/2026-01/' } as const;

/** The service's HTTP binding: the express application, and the request listener to serve it with. */
export interface HttpApp {
  express: express.Express;
  /** Serves a request: an operation's canonical POST in the fast lane, everything else through express. */
  listener: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

/** Builds the express application of the service. */
export function createHttpApp(
  services: Services,
  registry: Registry,
  opts: {
    authenticators: Record<'core' | 'integrations', Authenticator>;
    mount?: (app: express.Express) => void;
    /** Check every answer against its operation's declaration (tests): a mismatch answers 500 contract_violation. */
    checkContracts?: boolean;
    /** Whether an organization has an entitlement in effect now (operations that declare one). */
    entitled?: Entitled;
    /** Middleware that runs before every route (rate limits). */
    before?: (app: express.Express) => void;
    /** Operation paths that `before` guards: they take express's router, never the fast lane. */
    guardedPaths?: readonly string[];
    /** More /readyz checks of this process (its workers). */
    opsChecks?: ExtraChecks;
  },
): HttpApp {
  const app = express();
  app.disable('x-powered-by');
  // Answers to POSTs are not cached: hashing every body for an ETag is wasted work.
  app.set('etag', false);
  // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (default none: the peer's address counts).
  app.set('trust proxy', services.config.trustProxy.length ? services.config.trustProxy : false);
  const dispatchOpts = { checkContracts: opts.checkContracts ?? false, entitled: opts.entitled, streams: new StreamCaps(services.config.streamCaps) };
  const guarded = new Set(opts.guardedPaths ?? []);
  app.use((req, res, next) => {
    startRequest(services, req, res);
    next();
  });
  app.use(securityHeaders);
  opts.before?.(app);

  mountOpsRoutes(app, services, opts.opsChecks);

  for (const surface of ['core', 'integrations'] as const) {
    const prefix = SURFACE_PREFIX[surface];
    const title = surface === 'core' ? 'core-server' : 'core-server integrations';
    let cached: unknown;
    app.get(`${prefix}openapi.json`, (_req, res) => {
      cached ??= openApiDocument(registry.list(surface), { surface, title, serverUrl: surface === 'core' ? `${services.config.baseUrl}/api/v1` : `${services.config.integrationsUrl}/api/2026-01` });
      res.json(cached);
    });
    app.post(`${prefix}:operation`, jsonBody, async (req, res) => {
      const op = registry.get(surface, String(req.params.operation));
      await dispatch(services, op, opts.authenticators[surface], req, res, dispatchOpts);
    });
    app.all(`${prefix}:operation`, (req, res) => {
      const op = registry.get(surface, String(req.params.operation));
      const requestId = res.locals.requestId as string;
      if (!op) return void res.status(404).json(unknownOperation(String(req.params.operation), requestId));
      res.status(405).set('Allow', 'POST').json({ type: op.error, code: 'method_not_allowed', message: 'Operations are called with POST.', request_id: requestId });
    });
  }
  mountDocs(app, registry);
  opts.mount?.(app);
  app.use('/api', (req, res) => {
    res.status(404).json(unknownOperation(req.path.replace(/^\//, ''), res.locals.requestId as string));
  });
  app.use((req, res) => {
    res.status(404).json({ type: 'NotFound', code: 'not_found', message: `Nothing at ${req.method} ${req.path}.`, request_id: res.locals.requestId as string });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(err, req, res));
  // The answer to an error thrown before or outside an operation's own handling (body parsing, say).
  function sendError(err: unknown, req: Request, res: Response): void {
    const requestId = res.locals.requestId as string;
    const status = err instanceof DomainError ? null : bodyErrorStatus(err);
    if (status) {
      const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'malformed_json';
      const message = status === 413 ? 'The request body is larger than 1 MiB.' : status === 415 ? 'The request body must be application/json.' : 'The request body is not valid JSON.';
      res.locals.errorCode = code;
      res.status(status).json({ type: errorTypeFor(registry, req), code, message, request_id: requestId });
      return;
    }
    const out = toErrorResponse(err, errorTypeFor(registry, req), requestId);
    res.locals.errorCode = out.body.code;
    if (out.internal) services.logger.error({ err, request_id: requestId }, 'unhandled error');
    else if (out.fault) services.logger.warn({ err, request_id: requestId, path: req.path }, 'database unavailable: answered 503');
    res.status(out.status).set(out.headers).json(out.body);
  }

  // The fast lane: a POST to a registered operation's canonical path skips express's router (its setup and a
  // dozen layers matched per request: about 7% of analytics.events.insert's CPU profile). It gives the request
  // and answer express's prototypes, as express's own app.handle does, so the handlers see the same objects.
  // Anything else (other methods, a guarded operation, an unknown name, a path that is not byte for byte
  // canonical) goes to express, whose routes give the same answers.
  const listener = (rawReq: http.IncomingMessage, rawRes: http.ServerResponse): void => {
    const [, version, id] = (rawReq.method === 'POST' && LANE_PATH.exec(rawReq.url ?? '')) || [];
    const surface = version === 'v1' ? 'core' : 'integrations';
    const op = id === undefined || guarded.has(rawReq.url ?? '') ? undefined : registry.get(surface, id);
    if (!op) return void app(rawReq, rawRes);
    const req = Object.setPrototypeOf(rawReq, app.request) as Request;
    const res = Object.setPrototypeOf(rawRes, app.response) as Response;
    req.res = res;
    res.req = req;
    req.originalUrl = req.url;
    req.baseUrl = '';
    res.locals = Object.create(null) as Response['locals'];
    startRequest(services, req, res);
    setSecurityHeaders(req, res);
    // What express's final handler does with an error once the answer has started: log it and close.
    const failed = (err: unknown) => {
      if (!res.headersSent) return sendError(err, req, res);
      services.logger.error({ err, request_id: res.locals.requestId as string }, 'unhandled error');
      res.destroy();
    };
    jsonBody(req, res, (err?: unknown) => {
      if (err) return failed(err);
      dispatch(services, op, opts.authenticators[surface], req, res, dispatchOpts).catch(failed);
    });
  };
  return { express: app, listener };
}

/** The canonical path of an operation, without a query: what the fast lane takes. */
const LANE_PATH = /^\/api\/(v1|2026-01)\/([A-Za-z0-9_.-]+)$/;

function unknownOperation(name: string, requestId: string) {
  return { type: 'UnknownOperation', code: 'unknown_operation', message: `There is no operation ${name}.`, request_id: requestId };
}

function errorTypeFor(registry: Registry, req: Request): string {
  const [, version, id] = /^\/api\/(v1|2026-01)\/([^/?]+)/.exec(req.originalUrl) ?? [];
  if (id === undefined) return 'Error';
  // The router decodes the name (auth%2Esessions.get is auth.sessions.get): the error type follows it.
  let name = id;
  try {
    name = decodeURIComponent(id);
  } catch {
    // Not valid percent-encoding: no operation has that name.
  }
  return registry.get(version === 'v1' ? 'core' : 'integrations', name)?.error ?? 'UnknownOperation';
}

function bodyErrorStatus(err: unknown): number | null {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') return 413;
  if (e?.type === 'entity.parse.failed') return 400;
  if (e?.type === 'unsupported.media') return 415;
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return 415;
  // Other body-reading failures (a corrupt gzip or br body, say) arrive as http-errors with a 4xx status.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return e.status === 413 || e.status === 415 ? e.status : 400;
  return null;
}

const parseJson = express.json({ limit: '1mb', strict: false, type: () => true });

// Accepts application/json (or no body at all); anything else is 415 before parsing.
function jsonBody(req: Request, res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) {
    req.body = undefined;
    return next();
  }
  if (!req.is('application/json') && !req.is('application/*+json')) return next(Object.assign(new Error('unsupported media'), { type: 'unsupported.media' }));
  parseJson(req, res, next);
}

async function dispatch(
  services: Services,
  op: Operation | undefined,
  authenticate: Authenticator,
  req: Request,
  res: Response,
  { streams, ...pipeline }: InvokeOptions & { streams: StreamCaps },
): Promise<void> {
  const requestId = res.locals.requestId as string;
  const logger = res.locals.logger as Services['logger'];
  if (!op) {
    res.status(404).json(unknownOperation(String(req.params.operation), requestId));
    return;
  }
  res.locals.operation = op.id;
  // An operation's request is foreground work until its answer is done (streams run in the background).
  if (op.kind === 'json') res.once('close', foreground.enter());
  // Made only when a handler asks for it, and aborted only when the client left before its answer: a controller,
  // its signal and an abort's DOMException for every request cost about 2% of a cheap operation's CPU.
  let abort: AbortController | undefined;
  let left = false;
  const signal = () => {
    if (!abort) {
      abort = new AbortController();
      if (left) abort.abort();
    }
    return abort.signal;
  };
  res.on('close', () => {
    if (res.writableFinished) return;
    left = true;
    abort?.abort();
  });
  try {
    const auth = await authenticate(req, services);
    noteCaller(res, auth);
    const caller: Caller = {
      auth,
      requestId,
      logger,
      correlationId: req.get('x-correlation-id')?.slice(0, 200),
      reason: op.kind === 'json' && op.write ? requestReason(req) : undefined,
      headers: Object.fromEntries((op.requestHeaders ?? []).map((h) => [h, req.get(h) ?? null])),
      signal,
    };
    if (op.kind === 'stream') {
      const { input, context, now } = await prepare(services, op, req.body, caller, pipeline);
      // A slot of the token and of the organization, held until the connection closes (429 past a cap).
      const leave = streams.enter(auth);
      res.once('close', leave);
      services.metrics.sseConnections.inc({ stream: op.id });
      res.once('close', () => services.metrics.sseConnections.dec({ stream: op.id }));
      try {
        const events = await op.open(context(IdSource.random(now)), input, req.get('last-event-id') ?? null);
        // The database answers before the stream starts: without it the client is told 503 and retries, instead of
        // a 200 whose stream ends at once (a session may be served from the cache without a query).
        await services.knex.raw('select 1');
        await writeSse(res, events, signal());
      } finally {
        leave();
      }
      return;
    }
    const out = await invoke(services, op, req.body, { ...caller, idempotencyKey: req.get('idempotency-key') }, pipeline);
    if (out.replayed) res.set('Idempotent-Replayed', 'true');
    res.status(200).set(op.headers ?? {}).json(out.body);
  } catch (err) {
    if (err instanceof ContractViolation) return contractViolation(res, op, err.message, requestId);
    if (res.headersSent) {
      // A stream that lost the database ends; its client resumes from its last id.
      if (isDatabaseUnavailable(err)) logger.warn({ err, operation: op.id }, 'database unavailable: stream ended');
      else logger.error({ err }, 'error after the response started');
      res.end();
      return;
    }
    const out = toErrorResponse(err, op.error, requestId);
    res.locals.errorCode = out.body.code;
    if (out.internal) logger.error({ err, operation: op.id }, 'operation failed');
    else if (out.fault) logger.warn({ err, operation: op.id }, 'database unavailable: answered 503');
    if (err instanceof EventReadError) {
      logger.error({ err, operation: op.id }, 'a stream holds an event that does not read');
      await noteUnreadableStream(services.knex, err, services.clock.now()).catch((e: unknown) => logger.warn({ err: e }, 'could not record the unreadable stream'));
    }
    const violation = pipeline.checkContracts && !out.internal ? errorViolation(op, out.body.code) : null;
    if (violation) return contractViolation(res, op, violation, requestId);
    res.status(out.status).set(out.headers).set(op.kind === 'json' ? (op.headers ?? {}) : {}).json(out.body);
  }
}

// The answer broke the operation's declaration (only checked in test runs): say so loudly instead.
function contractViolation(res: Response, op: Operation, message: string, requestId: string): void {
  res.locals.errorCode = 'contract_violation';
  res.status(500).json({ type: op.error, code: 'contract_violation', message, request_id: requestId });
}

/** Says who is calling, for the request's log line: the actor its events would carry and the organization it acts in. */
export function noteCaller(res: Response, auth: Auth): void {
  if (auth.kind === 'anonymous') return;
  const actor = actorOf(auth);
  res.locals.actor = `${actor.type}:${actor.id}`;
  res.locals.organization = auth.organizationId;
}

// One log line per request, with the request id, the caller (actor, organization) when known and the error code of
// a refusal; the id is echoed in X-Request-Id and every error body.
function startRequest(services: Services, req: Request, res: Response): void {
  const given = req.get('x-request-id');
  const requestId = given && /^[\w.:-]{1,100}$/.test(given) ? given : newId();
  const logger = services.logger.child({ request_id: requestId });
  res.locals.requestId = requestId;
  res.locals.logger = logger;
  res.set('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const operation = (res.locals.operation as string | undefined) ?? 'other';
    const code = (res.locals.errorCode as string | undefined) ?? (res.statusCode >= 400 ? `http_${res.statusCode}` : 'none');
    services.metrics.httpDuration.observe({ operation, status: String(res.statusCode), code }, seconds);
    logger.info({
      method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000),
      actor: (res.locals.actor as string | undefined) ?? null, organization: (res.locals.organization as string | null | undefined) ?? null,
      ...(code === 'none' ? {} : { code }),
    }, 'request');
  });
}
