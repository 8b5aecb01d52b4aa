// Idempotency-Key on writes: the same key and body return the first answer; another body gets 422.
import crypto from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import { IdSource } from '../ids.ts';
import { commonErrors } from '../domain/errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { isDatabaseUnavailable } from '../db-errors.ts';

/** How long a key is remembered: after 24 h the same key starts a new request, and the purge deletes the row. */
const KEY_TTL_MS = 24 * 3_600_000;
const LEASE_MS = 60_000;
/** Pauses before the retries of a bookkeeping statement that met a lost connection (each is safe to repeat). */
const BOOKKEEPING_RETRY_MS = [50, 250];

/** A stored answer to replay. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

interface Row {
  operation: string;
  request_hash: string;
  seed: string;
  status_code: number | null;
  response: unknown;
  locked_until: Date | null;
  created_at: Date;
}

/** Hash of what makes two requests "the same": the operation and the body as canonical JSON (key order does not count). */
export function requestHash(operation: string, body: unknown): string {
  return crypto.createHash('sha256').update(operation).update('\n').update(canonicalJson(body)).digest('hex');
}

/**
 * Runs `run` at most once per (scope, key). Ids come from a seed stored with the key, so a retry after
 * a crash or a transient failure re-creates the same ids and event ids: the event store drops the
 * repeat and nothing is written twice. Whatever fails once this request may hold the key's lease (the
 * database lost, say) gives the lease back, so a retry with the same key goes ahead at once instead of
 * meeting 409 idempotency_key_in_use until the lease runs out; the answer of a write that was done is
 * stored across a lost connection.
 */
export async function withIdempotency(
  knex: Knex,
  args: { scope: string; key: string; operation: string; body: unknown; now: Date },
  run: (ids: IdSource) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (args.key.length < 1 || args.key.length > 255 || !/^[\x21-\x7e]+$/.test(args.key))
    throw commonErrors.error('invalid_idempotency_key', 'Idempotency-Key must be 1-255 visible ASCII characters.');
  const hash = requestHash(args.operation, args.body);
  const now = args.now;
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const seed = crypto.randomUUID();
  // Gives back the lease this request holds, found by its own seed or by the lease time it claimed (never another's),
  // and rethrows. A lease that cannot be given back (the database stays away) runs out after LEASE_MS.
  const giveBack = (mine: { seed: string } | { locked_until: Date }) => async (err: unknown): Promise<never> => {
    await bookkeeping(() => knex('idempotency_keys').where({ scope: args.scope, key: args.key, ...mine }).whereNull('status_code').update({ locked_until: null })).catch(() => {});
    throw err;
  };
  await knex('idempotency_keys')
    .where({ scope: args.scope, key: args.key })
    .andWhere('created_at', '<', new Date(now.getTime() - KEY_TTL_MS))
    .delete();
  const inserted = await knex('idempotency_keys')
    .insert({ scope: args.scope, key: args.key, operation: args.operation, request_hash: hash, seed, created_at: now, locked_until: leaseUntil })
    .onConflict(['scope', 'key'])
    .ignore()
    .returning('seed')
    .catch(giveBack({ seed }));
  let ids: IdSource;
  if (inserted.length === 1) {
    ids = new IdSource(seed, now.getTime());
  } else {
    const row = (await knex('idempotency_keys').where({ scope: args.scope, key: args.key }).first()) as Row;
    if (row.operation !== args.operation || row.request_hash !== hash)
      throw commonErrors.error('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key.');
    if (row.status_code !== null) return { status: row.status_code, body: row.response, replayed: true };
    const claimed = await knex('idempotency_keys')
      .where({ scope: args.scope, key: args.key })
      .whereNull('status_code')
      .andWhere((q) => { q.whereNull('locked_until').orWhere('locked_until', '<', now); })
      .update({ locked_until: leaseUntil })
      .catch(giveBack({ locked_until: leaseUntil }));
    if (claimed !== 1)
      throw commonErrors.error('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.', { headers: { 'Retry-After': '1' } });
    ids = new IdSource(row.seed, new Date(row.created_at).getTime());
  }
  const lease = inserted.length === 1 ? { seed } : { locked_until: leaseUntil };
  // Transient or unknown failure: release the lease so a retry can finish the job with the same ids.
  const result = await run(ids).catch(giveBack(lease));
  // The write is done: its answer is stored even across a lost connection, so a retry replays it.
  await bookkeeping(() =>
    knex('idempotency_keys')
      .where({ scope: args.scope, key: args.key })
      .update({ status_code: result.status, response: JSON.stringify(result.body), locked_until: null }),
  ).catch(giveBack(lease));
  return { ...result, replayed: false };
}

/** Runs a statement that is safe to repeat, again after a short pause while the database connection is lost. */
async function bookkeeping<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await statement();
    } catch (err) {
      const pause = BOOKKEEPING_RETRY_MS[attempt];
      if (pause === undefined || !isDatabaseUnavailable(err)) throw err;
      await delay(pause);
    }
  }
}

/** Rows deleted per statement by the purge: short statements, so writes are never held up behind a long delete. */
const PURGE_BATCH = 5_000;

/** Deletes every key older than KEY_TTL_MS at `now` (a key that old is never replayed); returns how many. */
export async function purgeExpiredIdempotencyKeys(knex: Knex, now: Date): Promise<number> {
  const before = new Date(now.getTime() - KEY_TTL_MS);
  let purged = 0;
  for (;;) {
    const batch = knex('idempotency_keys').where('created_at', '<', before).limit(PURGE_BATCH).select('scope', 'key');
    // Counted from the rows returned: knex-pglite answers a plain delete with its raw result, not a count.
    const n = (await knex('idempotency_keys').whereIn(['scope', 'key'], batch).delete().returning('key')).length;
    purged += n;
    if (n < PURGE_BATCH) return purged;
  }
}
