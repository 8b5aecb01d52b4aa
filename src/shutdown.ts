// Stopping on SIGTERM/SIGINT within a deadline, whatever state the log reader or the storage is in.
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { LogOutput } from './logging.ts';

/** What a process needs to stop: its service's close and logger. */
export interface Stoppable {
  logger: Logger;
  close(): Promise<void>;
}

/** How long the last log lines may take to leave after the service closed. */
const LOG_FLUSH_MS = 1_000;

/**
 * On the first SIGTERM/SIGINT: close the service, flush logs (bounded), exit 0. If that takes longer than
 * `timeoutMs`, exit 1 with a line on stderr. A second signal exits at once (128 + signal number).
 */
export function stopOnSignals(app: Stoppable, opts: { timeoutMs: number; output?: LogOutput }): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      lastWords(`core-server: second ${signal} during shutdown; exiting now`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    // Referenced on purpose: it must fire even when nothing else keeps the event loop alive.
    setTimeout(() => {
      lastWords(`core-server: shutdown did not finish within ${opts.timeoutMs} ms; exiting`);
      process.exit(1);
    }, opts.timeoutMs);
    app.logger.info({ signal }, 'shutting down');
    void (async () => {
      let code = 0;
      try {
        await app.close();
      } catch (err) {
        code = 1;
        app.logger.error({ err }, 'shutdown failed');
      }
      await opts.output?.flushWithin(Math.min(LOG_FLUSH_MS, opts.timeoutMs));
      process.exit(code);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

// One line on stderr if it can be written now; never waits for a reader.
function lastWords(line: string): void {
  try {
    fs.writeSync(2, `${line}\n`);
  } catch {
    // stderr is closed or full: exit without the line
  }
}
