// Which thrown values mean "the database cannot be reached or refused the connection" (a lost, refused or
// exhausted connection), as opposed to a bug or a refused statement. Such a fault is the client's to retry:
// the HTTP binding answers it 503 database_unavailable with Retry-After (docs/decisions.md, issue 25).

/** SQLSTATE codes, outside class 08, of a connection the server ended or would not open. */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown: another backend crashed, every connection is reset
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57P05', // idle_session_timeout: the server closed an idle connection
  '53000', // insufficient_resources
  '53100', // disk_full
  '53200', // out_of_memory
  '53300', // too_many_connections: "sorry, too many clients already", a role's or database's CONNECTION LIMIT
]);

/** Socket errors of the connection to the server (refused, reset, unreachable, name not resolved). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * What pg and knex say, with no code, when a connection died or cannot be had. knex puts the statement in
 * front of the driver's message (never values: compileSqlOnError is off), so these are matched anywhere in it.
 */
const MESSAGES = [
  'Connection terminated unexpectedly', // pg: the socket closed under a query or while idle
  'Connection terminated due to connection timeout', // pg: connectionTimeoutMillis
  'Client has encountered a connection error and is not queryable', // pg: a query on a client that lost its connection
  'Connection ended unexpectedly', // knex: a pooled connection that ended
  'Knex: Timeout acquiring a connection', // knex: no pooled connection within acquireConnectionTimeout (KnexTimeoutError)
  'timeout exceeded when trying to connect', // pg-pool
  'Query read timeout', // pg: query_timeout
];

/**
 * EventStoreDB client errors (their `type`) of a log that cannot be reached now: no server or connection, a call past its
 * deadline, a node that is no longer the leader. Matched by type, so this module does not load the gRPC client.
 */
const EVENT_LOG_UNAVAILABLE = new Set(['unavailable', 'deadline-exceeded', 'not-leader']);

/** How deep wrapped causes are followed (a cycle must not loop). */
const MAX_DEPTH = 5;

/** True when `err` (or an error it wraps: `cause`, an AggregateError's `errors`) says the database or the event log is unreachable or out of connections. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; type?: unknown };
  if (typeof e.type === 'string' && EVENT_LOG_UNAVAILABLE.has(e.type)) return true;
  if (typeof e.code === 'string') {
    if (e.code.startsWith('08') && e.code.length === 5) return true; // connection_exception and its subclasses
    if (UNAVAILABLE_STATES.has(e.code) || SOCKET_CODES.has(e.code)) return true;
  }
  if (typeof e.message === 'string' && MESSAGES.some((m) => (e.message as string).includes(m))) return true;
  if (isDatabaseUnavailable(e.cause, depth + 1)) return true;
  return Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1));
}
