// /metrics and /readyz tell an outsider about the service's load and internals: they need METRICS_TOKEN,
// or, when none is configured, a caller on this machine that did not come through a proxy.
import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** Express middleware for the operational endpoints; `token` is METRICS_TOKEN (undefined: loopback only). */
export function opsGuard(token: string | undefined) {
  const expected = token === undefined ? null : crypto.createHash('sha256').update(token).digest();
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (expected && given !== undefined && crypto.timingSafeEqual(crypto.createHash('sha256').update(given).digest(), expected)) return next();
    const direct = LOOPBACK.has(req.socket.remoteAddress ?? '') && req.get('x-forwarded-for') === undefined && req.get('forwarded') === undefined;
    if (!expected && direct) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({
        type: 'Unauthenticated',
        code: 'unauthenticated',
        message: expected ? 'This endpoint needs authorization: Bearer <METRICS_TOKEN>.' : 'This endpoint answers only on the machine itself; set METRICS_TOKEN to reach it from elsewhere.',
        request_id: res.locals.requestId as string,
      });
  };
}
