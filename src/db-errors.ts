// Whether an error says the database could not be reached or refused the connection (transient: retry),
// as opposed to one about the statement or its data (a bug or bad data: never retried blindly).

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/** True for a lost, refused or exhausted database connection (SQLSTATE 08xxx, 57P0x, 53300, socket errors, pool time-outs). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300' || CONNECTION_CODES.has(code))) return true;
    const name = (e as { name?: unknown }).name;
    const message = (e as { message?: unknown }).message;
    if (name === 'KnexTimeoutError') return true;
    if (typeof message === 'string' && /Connection terminated|connection error and is not queryable|too many clients already/i.test(message)) return true;
  }
  return false;
}
