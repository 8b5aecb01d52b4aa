// Limits on credential guessing: failed sign-ins per account and per source address, failed client
// secrets per integration client. Counters live in the database, so every `serve` process shares them.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import { commonErrors } from '../domain/errors.ts';
import { ClockedRateLimiter } from '../limits/clocked-rate-limiter.ts';

/** Failed attempts allowed per window (see docs/decisions.md for the figures chosen). */
export interface AttemptLimitSettings {
  loginPerAccount: number;
  loginPerAddress: number;
  clientSecret: number;
  windowSeconds: number;
}

/** What a guarded request counts against: limiter and key. */
type Counted = { limiter: ClockedRateLimiter; key: string };

/** The limiters of the service. */
export class AttemptLimits {
  readonly loginAccount: ClockedRateLimiter;
  readonly loginAddress: ClockedRateLimiter;
  readonly clientSecret: ClockedRateLimiter;

  constructor(knex: Knex, clock: Clock, s: AttemptLimitSettings) {
    const make = (keyPrefix: string, points: number) => new ClockedRateLimiter({ knex, clock, keyPrefix, points, duration: s.windowSeconds });
    this.loginAccount = make('login-account', s.loginPerAccount);
    this.loginAddress = make('login-address', s.loginPerAddress);
    this.clientSecret = make('client-secret', s.clientSecret);
  }

  /** Sign-in counters for an email and a source address. */
  login(email: unknown, address: string | undefined): Counted[] {
    const out: Counted[] = [{ limiter: this.loginAddress, key: address ?? 'unknown' }];
    if (typeof email === 'string' && email.trim()) out.push({ limiter: this.loginAccount, key: email.trim().toLowerCase() });
    return out;
  }

  /**
   * Counts one attempt against each counter, atomically. Resolves to the seconds to wait when a limit
   * is exhausted (the attempt must then be refused), else null.
   */
  async begin(counted: Counted[]): Promise<number | null> {
    let waitMs = 0;
    for (const c of counted) {
      try {
        await c.limiter.consume(c.key);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        waitMs = Math.max(waitMs, err.msBeforeNext);
      }
    }
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : null;
  }

  /** Settles the attempt once answered: only a credential failure keeps its point; a success also clears the account's failures. */
  async end(counted: Counted[], outcome: 'failed' | 'succeeded' | 'other'): Promise<void> {
    if (outcome === 'failed') return;
    for (const c of counted) {
      if (outcome === 'succeeded' && c.limiter === this.loginAccount) await c.limiter.delete(c.key);
      else await c.limiter.reward(c.key);
    }
  }
}

/**
 * Express middleware that counts an attempt before the route runs and settles it when the answer is
 * sent. `keys` reads the (parsed) request; `outcome` classifies the status sent; `refuse` answers a
 * limited attempt.
 */
export function attemptGuard(
  limits: AttemptLimits,
  opts: {
    keys(req: Request): Counted[];
    outcome(status: number): 'failed' | 'succeeded' | 'other';
    refuse(req: Request, res: Response, next: NextFunction, retryAfterSeconds: number): void;
  },
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const counted = opts.keys(req);
      const retryAfter = await limits.begin(counted);
      const logger = res.locals.logger as { warn(o: object, m: string): void } | undefined;
      // Settled before the answer leaves (not on 'finish'): a client's next attempt must see a success's reset.
      const end = res.end;
      let settled = false;
      res.end = function (this: Response, ...args: unknown[]) {
        if (settled) return Reflect.apply(end, this, args) as Response;
        settled = true;
        void limits
          .end(counted, retryAfter === null ? opts.outcome(res.statusCode) : 'other')
          .catch((err: unknown) => logger?.warn({ err }, 'rate limit counter not settled'))
          .finally(() => Reflect.apply(end, this, args));
        return this;
      } as Response['end'];
      if (retryAfter !== null) return opts.refuse(req, res, next, retryAfter);
      next();
    } catch (err) {
      next(err);
    }
  };
}

const json = express.json({ limit: '1mb', strict: false, type: () => true });

// Parses a JSON body for the guard (the route then finds it parsed); leaves other bodies to the route's 415.
function jsonIfAny(req: Request, res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody || (!req.is('application/json') && !req.is('application/*+json'))) return next();
  json(req, res, next);
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.entries(body).find(([k]) => k === name)?.[1] : undefined;
}

const rateLimited = (retryAfter: number) =>
  commonErrors.error('rate_limited', `Too many failed attempts; retry in ${retryAfter} s.`, { headers: { 'Retry-After': String(retryAfter) } });

/** Operation paths with an attempt guard in front of them (they must go through express's router). */
export const ATTEMPT_LIMITED_PATHS = ['/api/v1/auth.sessions.insert', '/api/2026-01/integrations.insert'] as const;

/** Guards `auth.sessions.insert` (per account and address) and `integrations.insert` (per client). */
export function mountApiAttemptLimits(app: express.Express, limits: AttemptLimits): void {
  app.post(
    ATTEMPT_LIMITED_PATHS[0],
    jsonIfAny,
    attemptGuard(limits, {
      keys: (req) => limits.login(field(req.body, 'email'), req.ip),
      outcome: (status) => (status === 401 ? 'failed' : status === 200 ? 'succeeded' : 'other'),
      refuse: (_req, _res, next, s) => next(rateLimited(s)),
    }),
  );
  app.post(
    ATTEMPT_LIMITED_PATHS[1],
    jsonIfAny,
    attemptGuard(limits, {
      keys: (req) => {
        const clientId = field(req.body, 'client_id');
        return typeof clientId === 'string' ? [{ limiter: limits.clientSecret, key: clientId }] : [];
      },
      outcome: (status) => (status === 401 ? 'failed' : 'other'),
      refuse: (_req, _res, next, s) => next(rateLimited(s)),
    }),
  );
}
