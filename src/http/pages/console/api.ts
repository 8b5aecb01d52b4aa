// The console's only way to the data: the public core API's operations, called in process through the same
// pipeline as HTTP (invoke) with the signed-in staff member as the caller: the console can call only registered
// operations with that person's own access, so it can do nothing an API client cannot. It names an operation by its
// typed declaration (`ops[...]`, src/areas/operations.ts), so the body it sends and the answer it reads are checked
// against the operation's schemas at compile time.
import crypto from 'node:crypto';
import type { z, ZodType } from 'zod';
import type { Services } from '../../../context.ts';
import type { JsonOperation } from '../../../contract/operation.ts';
import { toErrorResponse } from '../../errors.ts';
import { ContractViolation } from '../../../pipeline/invoke.ts';
import type { WebSession } from '../web-session.ts';

/** An error answer of the API, in its one body shape. */
export interface ApiProblem {
  status: number;
  code: string;
  message: string;
  issues: { path: string; message: string }[];
  requestId: string | null;
}

/** What a caller sends an operation: the input of its request schema (the pipeline validates it); nothing when it takes no body. */
export type RequestOf<Op extends JsonOperation> = Op['request'] extends ZodType ? z.input<Op['request']> : undefined;

/** The outcome of one call: the parsed success body, or the problem. */
export type ApiResult<T> = { ok: true; body: T } | { ok: false; problem: ApiProblem };

/** Options of a write: the reason kept in the events' metadata, and the idempotency key of the form submission. */
export interface WriteOptions {
  reason?: string;
  idempotencyKey?: string;
}

/** The core API's operations bound to one page request: its signed-in session and its request id. */
export class ConsoleApi {
  constructor(
    private readonly services: Services,
    private readonly session: WebSession,
    private readonly requestId: string,
  ) {}

  /**
   * Calls `op` with `input` and parses the answer with the operation's response schema (a mismatch is a problem, not
   * a crash). `op` must be the declaration the service registered: the console calls nothing else.
   */
  async call<Op extends JsonOperation>(op: Op, input: RequestOf<Op>, opts: WriteOptions = {}): Promise<ApiResult<z.output<Op['response']>>> {
    if (this.services.operation(op.id) !== op)
      return { ok: false, problem: { status: 404, code: 'unknown_operation', message: `There is no operation ${op.id}.`, issues: [], requestId: this.requestId } };
    let answer: unknown;
    try {
      const out = await this.services.invoke(op, input ?? (op.request === null ? undefined : {}), {
        auth: this.session.auth,
        requestId: this.requestId,
        correlationId: this.requestId,
        reason: opts.reason,
        idempotencyKey: opts.idempotencyKey,
      });
      answer = out.body;
    } catch (err) {
      if (err instanceof ContractViolation) return { ok: false, problem: { status: 500, code: 'contract_violation', message: err.message, issues: [], requestId: this.requestId } };
      const out = toErrorResponse(err, op.error, this.requestId);
      if (out.internal) this.services.logger.error({ err, operation: op.id, request_id: this.requestId }, 'operation failed (console)');
      return { ok: false, problem: problemOf(out.status, out.body, this.requestId) };
    }
    const parsed = parseWith<Op['response']>(op.response, answer);
    if (!parsed.success) return { ok: false, problem: { status: 502, code: 'unexpected_answer', message: `${op.id} answered in an unexpected shape.`, issues: [], requestId: this.requestId } };
    return { ok: true, body: parsed.data };
  }
}

// The answer parsed by the operation's response schema, typed by it (named explicitly at the call: inferred from
// op.response, the type would widen to the constraint's).
function parseWith<S extends ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value);
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
