// The console's only way to the data: the public core API, called over HTTP with the signed-in user's own session
// token, exactly as any API client would (so the console can do nothing an API client cannot).
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { z, ZodType } from 'zod';
import type { WebSession } from '../web-session.ts';

/** An error answer of the API, in its one body shape. */
export interface ApiProblem {
  status: number;
  code: string;
  message: string;
  issues: { path: string; message: string }[];
  requestId: string | null;
}

/** The outcome of one call: the parsed success body, or the problem. */
export type ApiResult<T> = { ok: true; body: T } | { ok: false; problem: ApiProblem };

/** Options of a write: the reason kept in the events' metadata, and the idempotency key of the form submission. */
export interface WriteOptions {
  reason?: string;
  idempotencyKey?: string;
}

/** A client of `/api/v1` bound to one page request (its session, and the address the request came in on). */
export class ConsoleApi {
  private readonly base: string;
  constructor(
    req: Request,
    private readonly session: WebSession,
    private readonly correlationId: string,
  ) {
    // The address and port this request arrived on is one the service listens on: call the API there.
    const host = req.socket.localAddress ?? '127.0.0.1';
    this.base = `http://${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort ?? 80}/api/v1/`;
  }

  /** POSTs `body` to operation `id` and parses the answer with `schema` (a mismatch is a problem, not a crash). */
  async call<S extends ZodType>(id: string, body: unknown, schema: S, opts: WriteOptions = {}): Promise<ApiResult<z.output<S>>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.session.token}`,
      'content-type': 'application/json',
      'x-correlation-id': this.correlationId,
      ...(opts.reason ? { 'svc-reason': encodeURIComponent(opts.reason) } : {}),
      ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
    };
    let res: Response;
    try {
      res = await fetch(this.base + id, { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
    } catch {
      return { ok: false, problem: { status: 503, code: 'unavailable', message: 'The API could not be reached. Try again.', issues: [], requestId: null } };
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: reported below
    }
    if (!res.ok) return { ok: false, problem: problemOf(res.status, json, res.headers.get('x-request-id')) };
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false, problem: { status: 502, code: 'unexpected_answer', message: `The API answered ${id} in an unexpected shape.`, issues: [], requestId: res.headers.get('x-request-id') } };
    return { ok: true, body: parsed.data };
  }
}

function problemOf(status: number, json: unknown, requestId: string | null): ApiProblem {
  const o = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const issues = Array.isArray(o.issues)
    ? o.issues.flatMap((i: unknown) => (typeof i === 'object' && i !== null && 'path' in i && 'message' in i ? [{ path: String(i.path), message: String(i.message) }] : []))
    : [];
  return {
    status,
    code: typeof o.code === 'string' ? o.code : 'error',
    message: typeof o.message === 'string' ? o.message : `The API answered ${status}.`,
    issues,
    requestId: typeof o.request_id === 'string' ? o.request_id : requestId,
  };
}

/** A fresh idempotency key for a form: a resubmitted form (double click, back and submit again) writes once. */
export function newIdempotencyKey(): string {
  return `console-${crypto.randomUUID()}`;
}
