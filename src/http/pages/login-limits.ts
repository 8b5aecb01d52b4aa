// The sign-in page counts failed attempts like auth.sessions.insert does (same counters), and answers 429 past the limit.
import express from 'express';
import { type AttemptLimits, attemptGuard } from '../attempt-limits.ts';
import { sendErrorPage } from './layout.ts';

/** Guards POST /auth/login; mount before the page's own route. */
export function mountLoginAttemptLimits(app: express.Express, limits: AttemptLimits): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.post(
    '/auth/login',
    form,
    attemptGuard(limits, {
      keys: (req) => limits.login((req.body as Record<string, unknown> | undefined)?.email, req.ip),
      // The page answers 401 for a wrong email or password and 303 once signed in.
      outcome: (status) => (status === 401 ? 'failed' : status === 303 ? 'succeeded' : 'other'),
      refuse: (_req, res, _next, s) => {
        res.set('Retry-After', String(s));
        sendErrorPage(res, 429, 'Too many attempts', `Too many failed sign-in attempts. Try again in ${Math.ceil(s / 60)} minute(s).`);
      },
    }),
  );
}
