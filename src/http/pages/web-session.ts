// Browser sessions of the app pages: the session cookie, CSRF tokens, and the safe return target after login.
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type express from 'express';
import type { Services, Auth } from '../../context.ts';
import type { SessionLookup } from '../authenticate.ts';

/** A signed-in browser: the session (as the API sees it) and its raw token (for CSRF tokens). */
export interface WebSession {
  auth: Extract<Auth, { kind: 'session' }>;
  token: string;
}

/** True when the app is served over https: cookies are then Secure and `__Host-` prefixed. */
export function isSecure(services: Services): boolean {
  return services.config.appUrl.startsWith('https://');
}

/** Name of the session cookie. */
export function sessionCookieName(services: Services): string {
  return isSecure(services) ? '__Host-svc_session' : 'svc_session';
}

/** Name of the cookie behind the login form's CSRF token (double submit: there is no session yet). */
export function loginCsrfCookieName(services: Services): string {
  return isSecure(services) ? '__Host-svc_login_csrf' : 'svc_login_csrf';
}

/** Cookies of a request (no dependency: the Cookie header is simple). */
export function readCookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      // a malformed cookie is ignored
    }
  }
  return out;
}

/** Sets a cookie: HttpOnly, SameSite=Lax, Path=/, Secure over https. */
export function setCookie(res: Response, services: Services, name: string, value: string, maxAgeSeconds: number): void {
  res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${isSecure(services) ? '; Secure' : ''}`);
}

/** Deletes a cookie. */
export function clearCookie(res: Response, services: Services, name: string): void {
  setCookie(res, services, name, '', 0);
}

const LOOKUP = Symbol('web session lookup');

/** Hands the pages the session lookup (the composition root's, the same the API's bearer tokens use). */
export function useSessionLookup(app: express.Express, lookup: SessionLookup): void {
  (app.locals as Record<symbol, unknown>)[LOOKUP] = lookup;
}

/** The signed-in session of the request, or null (missing, expired or revoked). */
export async function currentSession(req: Request, services: Services): Promise<WebSession | null> {
  const token = readCookies(req)[sessionCookieName(services)];
  if (!token) return null;
  const lookup = (req.app.locals as Record<symbol, SessionLookup | undefined>)[LOOKUP];
  if (!lookup) throw new Error('Pages are mounted without a session lookup (useSessionLookup).');
  const auth = await lookup(services.knex, token, services.clock.now());
  return auth && auth.kind === 'session' ? { auth, token } : null;
}

/** CSRF token of a signed-in session: an HMAC keyed by the session token, so only its holder can make it. */
export function csrfToken(session: WebSession): string {
  return crypto.createHmac('sha256', session.token).update('csrf:v1').digest('base64url');
}

/** Constant-time comparison of two short strings. */
export function sameString(a: unknown, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** True when the form carries the session's CSRF token. */
export function validCsrf(session: WebSession, submitted: unknown): boolean {
  return sameString(submitted, csrfToken(session));
}

/**
 * Where to go after login: only a path on this origin. Anything else (`//evil.example`,
 * `https://evil.example`, `/\evil.example`, control characters) becomes the start page `/`.
 */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4000) return '/';
  // eslint-disable-next-line no-control-regex -- the class names the control characters it refuses
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\') || /[\u0000-\u001f\u007f]/.test(raw)) return '/';
  try {
    const base = 'http://app.invalid';
    if (new URL(raw, base).origin !== base) return '/';
  } catch {
    return '/';
  }
  return raw;
}
