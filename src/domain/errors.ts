// Errors are a contract: each area declares its codes with their HTTP status once (a catalogue);
// deciders and handlers throw codes from it, and an operation's `errors` list is built from it.

/** One field-level problem of a refused request: a dotted path and what is wrong there. */
export interface Issue {
  path: string;
  message: string;
}

/** What an error may carry besides its code and message: field issues, answer headers (Retry-After), details for logs. */
export interface ErrorExtra {
  issues?: Issue[];
  headers?: Record<string, string>;
  details?: Record<string, unknown>;
}

/** A refused command or request; `code` is the stable machine-readable reason, `status` its HTTP status. */
export class DomainError extends Error {
  readonly issues?: Issue[];
  readonly headers?: Record<string, string>;
  readonly details?: Record<string, unknown>;
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    extra: ErrorExtra = {},
  ) {
    super(message);
    this.issues = extra.issues;
    this.headers = extra.headers;
    this.details = extra.details;
  }
}

declare const catalogued: unique symbol;
/**
 * Codes an operation may answer with; only a catalogue makes one, so every listed code has a known status. It also
 * makes the errors: a handler throws `ctx.errors.error(code, ...)`, and a code its operation does not declare is a
 * type error (oRPC's per-procedure error map). Codes thrown deeper (deciders, shared helpers) are checked in test runs.
 */
export type ErrorList<C extends string = string> = readonly C[] & {
  readonly [catalogued]: true;
  /** The error to throw for a declared `code`. */
  error(code: C, message: string, extra?: ErrorExtra): DomainError;
  /** The HTTP status of every code of the list's catalogue (the shared ones included): what OpenAPI documents per status. */
  readonly statuses: Readonly<Record<string, number>>;
};

/** One area's error codes and their HTTP statuses. */
export interface ErrorCatalogue<C extends string> {
  readonly statuses: Readonly<Record<C, number>>;
  /** The error to throw for `code`. */
  error(code: C, message: string, extra?: ErrorExtra): DomainError;
  /** The codes an operation declares. */
  list<const L extends C>(...codes: L[]): ErrorList<L>;
}

/** Declares a catalogue: code -> HTTP status. */
export function errorCatalogue<const T extends Record<string, number>>(statuses: T): ErrorCatalogue<Extract<keyof T, string>> {
  // Read through the catalogue's own keys: indexing the generic `T` would widen to its `Record<string, number>` bound.
  const table: Readonly<Record<Extract<keyof T, string>, number>> = statuses;
  return {
    statuses,
    error: (code, message, extra) => new DomainError(code, message, table[code], extra),
    // The brand is a type-level mark only: a catalogue is the one place that makes a list.
    list: <const L extends Extract<keyof T, string>>(...codes: L[]) =>
      Object.assign([...codes], { error: (code: L, message: string, extra?: ErrorExtra) => new DomainError(code, message, table[code], extra), statuses: table }) as readonly L[] as ErrorList<L>,
  };
}

/** Codes every area shares: the HTTP binding answers some of them for any operation. */
export const COMMON_ERRORS = {
  invalid_request: 400,
  malformed_json: 400,
  invalid_cursor: 400,
  invalid_idempotency_key: 400,
  invalid_resume_point: 400,
  unauthenticated: 401,
  forbidden: 403,
  entitlement_required: 403,
  concurrency_conflict: 409,
  stream_unreadable: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  projection_lag: 503,
  read_model_failed: 503,
  database_unavailable: 503,
} as const;

/** A code every operation may answer without listing it (the pipeline's input check answers it for any operation). */
export type ImplicitCode = 'invalid_request';

/** The shared codes as a catalogue (pagination, idempotency, access, input). */
export const commonErrors = errorCatalogue(COMMON_ERRORS);

/** 403 for an authenticated caller without the right. */
export function forbidden(message = 'You do not have access to this operation.'): DomainError {
  return commonErrors.error('forbidden', message);
}
