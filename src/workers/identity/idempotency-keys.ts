// Idempotency-key purge: keys older than 24 h are never replayed (the same key then starts a new request), so their rows,
// each holding a stored answer, are deleted on every pass of the process that runs the workers (`start`, `work`).
import type { Worker } from '../worker.ts';
import { purgeExpiredIdempotencyKeys } from '../../pipeline/idempotency.ts';

/** What one pass deleted. */
export interface IdempotencyPurgeResult {
  purged: number;
}

/** The purge as the composition root runs it: on the common interval, on the injected clock. */
export const idempotencyKeysWorker: Worker<IdempotencyPurgeResult> = {
  name: 'idempotency-keys.purge',
  async runOnce(services) {
    const purged = await purgeExpiredIdempotencyKeys(services.knex, services.clock.now());
    if (purged) services.logger.info({ purged }, 'expired idempotency keys purged');
    return { purged };
  },
};
