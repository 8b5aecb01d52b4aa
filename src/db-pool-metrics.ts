// The database pool as /metrics shows it: connections in use and idle, queries waiting, connections that failed.
import type { Knex } from 'knex';
import type { Metrics } from './metrics.ts';

/** The parts of knex's (tarn) pool that are read. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  on(event: 'createFail' | 'acquireFail', fn: () => void): void;
}

/** Reports `knex`'s pool in `metrics` (counted at scrape time; failures as they happen). */
export function watchPool(knex: Knex, metrics: Metrics): void {
  const pool = (knex.client as { pool?: TarnPool }).pool;
  if (!pool) return;
  pool.on('createFail', () => metrics.dbPoolErrors.inc());
  pool.on('acquireFail', () => metrics.dbPoolErrors.inc());
  metrics.poolSource = () => ({ inUse: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires() });
}
