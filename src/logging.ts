// The service's logger: JSON lines on stdout that never block the process (nor its exit), and error
// serialization that never copies request or event data into a log line.
import pino, { type DestinationStream, type Logger } from 'pino';
import sonicBoom from 'sonic-boom';

// sonic-boom is CommonJS: its class is a property of the module object.
const { SonicBoom } = sonicBoom;

/** Most log bytes held in memory while stdout is not being read; beyond it lines are dropped, not queued. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/**
 * Access-log lines (one per request) are written in batches of this many bytes, or every FLUSH_MS: a write per
 * line was 1-6% of a cheap request's CPU profile. Every other line is written at once, so what a failing start
 * or a crash logged is never held back.
 */
const BATCH_BYTES = 8 * 1024; // below sonic-boom's largest single write (16 KiB)
const FLUSH_MS = 200;
/** How an access-log line ends (pino writes msg last). */
const ACCESS_LINE_END = '"msg":"request"}\n';

/** A log destination that can be flushed within a bound. */
export interface LogOutput extends DestinationStream {
  /** Resolves once what was logged is written, or after `timeoutMs`, whichever comes first. */
  flushWithin(timeoutMs: number): Promise<boolean>;
}

/**
 * Stdout written asynchronously: a reader that stops reading makes lines wait (then drop), never the
 * event loop. pino registers no exit hook for a stream it did not create, so process.exit never waits
 * on a synchronous flush of a pipe nobody drains.
 */
export function stdoutLogOutput(fd = 1): LogOutput {
  const boom = new SonicBoom({ fd, sync: false, maxLength: MAX_BUFFERED_BYTES, minLength: BATCH_BYTES, periodicFlush: FLUSH_MS });
  let broken = false;
  let urgent = false;
  boom.on('drain', () => {
    if (!urgent || broken) return;
    urgent = false;
    boom.flush();
  });
  // EPIPE and friends: the reader is gone; stop writing rather than crash on an unhandled 'error'.
  boom.on('error', () => {
    broken = true;
  });
  return {
    write(line: string) {
      if (broken) return;
      boom.write(line);
      if (line.endsWith(ACCESS_LINE_END)) return;
      // Written now, or, when a write is in flight, as soon as it is done.
      urgent = true;
      boom.flush();
    },
    flushWithin(timeoutMs) {
      if (broken) return Promise.resolve(false);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        try {
          boom.flush(() => {
            clearTimeout(timer);
            resolve(true);
          });
        } catch {
          clearTimeout(timer);
          resolve(false);
        }
      });
    },
  };
}

/** Fields of an error that are safe to log: its kind, code and where it was thrown, never the data it was about. */
export function safeErrorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { type: typeof err, message: 'a non-Error value was thrown' };
  const e = err as Error & { code?: unknown; routine?: unknown; table?: unknown; column?: unknown; constraint?: unknown; severity?: unknown };
  // A database error: its message and detail may quote the offending value (customer data), and knex
  // prefixes the statement; keep the SQLSTATE and the schema names, drop the text.
  if (typeof e.severity === 'string' && typeof e.code === 'string') {
    return {
      type: e.constructor.name,
      message: `database error ${e.code}`,
      code: e.code,
      ...(typeof e.routine === 'string' ? { routine: e.routine } : {}),
      ...(typeof e.table === 'string' ? { table: e.table } : {}),
      ...(typeof e.column === 'string' ? { column: e.column } : {}),
      ...(typeof e.constraint === 'string' ? { constraint: e.constraint } : {}),
      stack: stackFrames(e.stack),
    };
  }
  return { type: e.constructor.name, message: e.message.slice(0, 500), ...(typeof e.code === 'string' ? { code: e.code } : {}), stack: stackFrames(e.stack) };
}

// The "at ..." lines of a stack, without the message line(s) above them.
function stackFrames(stack: string | undefined): string | undefined {
  return stack?.split('\n').filter((l) => /^\s+at /.test(l)).join('\n');
}

/** The service logger: `err` fields go through safeErrorFields. */
export function createLogger(level: string, output: DestinationStream = stdoutLogOutput()): Logger {
  return pino({ level, base: { service: 'core-server' }, serializers: { err: safeErrorFields } }, output);
}
