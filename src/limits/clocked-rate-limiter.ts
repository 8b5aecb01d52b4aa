// rate-limiter-flexible's Postgres store, reading time from our Clock (the library reads Date.now()) and
// querying through knex, so it runs on PGlite and PostgreSQL alike and tests move time instead of sleeping.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';

interface Row {
  points: number;
  expire: string | number | null;
}

/** Counters in the `rate_limits` table (created by migration 0050), shared by every process on the database. */
export class ClockedRateLimiter extends RateLimiterPostgres {
  private readonly db: Knex;
  private readonly clock: Clock;

  constructor(opts: { knex: Knex; clock: Clock; keyPrefix: string; points: number; duration: number }) {
    super({ storeClient: opts.knex, storeType: 'knex', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false, keyPrefix: opts.keyPrefix, points: opts.points, duration: opts.duration });
    this.db = opts.knex;
    this.clock = opts.clock;
  }

  /** Keys are hashed: the table holds no email addresses or client ids. */
  override getKey(key: string | number): string {
    return `${this.keyPrefix}:${crypto.createHash('sha256').update(String(key)).digest('base64url')}`;
  }

  // The library's upsert (same SQL semantics: a window restarts once expired), with the injected clock.
  async _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<{ rows: Row[] }> {
    const now = this.clock.now().getTime();
    const newExpire = msDuration > 0 ? now + msDuration : null;
    const rows = (await this.db.raw(
      `insert into rate_limits (key, points, expire) values (?, ?, ?)
       on conflict (key) do update set
         points = case when rate_limits.expire <= ? or ? then excluded.points else rate_limits.points + excluded.points end,
         expire = case when rate_limits.expire <= ? or ? then excluded.expire else rate_limits.expire end
       returning points, expire`,
      [rlKey, points, newExpire, now, forceExpire, now, forceExpire],
    )) as { rows: Row[] };
    if (Math.random() < 0.01) void this.db('rate_limits').where('expire', '<', now - 3_600_000).delete().catch(() => {});
    return { rows: rows.rows };
  }

  async _get(rlKey: string): Promise<{ rows: Row[] } | null> {
    const now = this.clock.now().getTime();
    const rows = (await this.db('rate_limits').where('key', rlKey).andWhere((q) => { q.where('expire', '>', now).orWhereNull('expire'); }).select('points', 'expire')) as Row[];
    return rows.length ? { rows } : null;
  }

  async _delete(rlKey: string): Promise<boolean> {
    return (await this.db('rate_limits').where('key', rlKey).delete()) > 0;
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, result: { rows: Row[] }): RateLimiterRes {
    const row = result.rows[0] ?? { points: 0, expire: null };
    const isFirst = changedPoints === row.points;
    const consumed = isFirst ? changedPoints : row.points;
    const msBeforeNext = row.expire === null ? -1 : Math.max(Number(row.expire) - this.clock.now().getTime(), 0);
    return new RateLimiterRes(Math.max(this.points - consumed, 0), msBeforeNext, consumed, isFirst);
  }
}
