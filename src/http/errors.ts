// Errors that carry their HTTP status and code, and the one place they become the error body.
import { ZodError } from 'zod';
import { DomainError, type Issue } from '../domain/errors.ts';
import { EventReadError } from '../domain/decider.ts';
import { WrongExpectedVersionError } from '../eventstore/port.ts';
import { InvalidPositionError } from '../eventstore/port.ts';
import { ProjectionLagError, ReadModelFailedError } from '../context.ts';
import { isDatabaseUnavailable } from '../db-errors.ts';

/** One field-level problem of a rejected request. */
export type { Issue } from '../domain/errors.ts';

/** The JSON error body every surface returns. */
export interface ErrorBody {
  type: string;
  code: string;
  message: string;
  issues?: Issue[];
  request_id: string;
}

/** The message of 503 database_unavailable: the fault is the database's, and a retry is safe. */
const DATABASE_UNAVAILABLE = 'The database is unavailable; retry shortly. A write retried with the same Idempotency-Key is applied at most once.';

/** Turns zod issues into `{ path, message }` pairs with dotted paths. */
export function zodIssues(err: ZodError): Issue[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/**
 * Maps any thrown value to status, headers and body. Unknown errors are 500 and say nothing of internals (`internal`:
 * log them as errors). A lost or refused database connection is 503 database_unavailable (`fault`: log it as a warning).
 */
export function toErrorResponse(err: unknown, type: string, requestId: string): { status: number; headers: Record<string, string>; body: ErrorBody; internal: boolean; fault?: boolean } {
  const body = (code: string, message: string, issues?: Issue[]): ErrorBody => ({ type, code, message, ...(issues ? { issues } : {}), request_id: requestId });
  if (err instanceof DomainError) return { status: err.status, headers: err.headers ?? {}, body: body(err.code, err.message, err.issues), internal: false };
  if (err instanceof ZodError) return { status: 400, headers: {}, body: body('invalid_request', 'The request is not valid.', zodIssues(err)), internal: false };
  if (err instanceof WrongExpectedVersionError)
    return { status: 409, headers: {}, body: body('concurrency_conflict', 'The resource was changed by another request at the same time; retry.'), internal: false };
  if (err instanceof ProjectionLagError)
    return { status: 503, headers: { 'Retry-After': '1' }, body: body('projection_lag', 'The change was saved but is not yet readable; retry shortly.'), internal: false };
  if (err instanceof EventReadError)
    return {
      status: 409,
      headers: {},
      body: body('stream_unreadable', `This resource's history holds an event that cannot be read (${err.type}${err.eventId ? ` ${err.eventId}` : ''}${err.revision === null ? '' : ` at revision ${err.revision}`}${err.stream ? ` of ${err.stream}` : ''}): nothing was changed. Operators see it on the health page.`),
      internal: false,
    };
  if (err instanceof ReadModelFailedError)
    return {
      status: 503,
      headers: { 'Retry-After': '30' },
      body: body('read_model_failed', `The change was saved, but the read model${err.projections.length > 1 ? 's' : ''} ${err.projections.join(', ')} that answer${err.projections.length > 1 ? '' : 's'} it stopped at an event it cannot apply; operators have been alerted (see /readyz).`),
      internal: false,
    };
  if (err instanceof InvalidPositionError) return { status: 400, headers: {}, body: body('invalid_resume_point', 'The resume point is not a position of this service.'), internal: false };
  if (isDatabaseUnavailable(err))
    return { status: 503, headers: { 'Retry-After': '1' }, body: body('database_unavailable', DATABASE_UNAVAILABLE), internal: false, fault: true };
  return { status: 500, headers: {}, body: body('internal_error', 'An internal error occurred. Quote the request id when reporting it.'), internal: true };
}
