// Response headers that keep browsers from sniffing or rendering API answers, and confine the /docs pages.
import type { NextFunction, Request, Response } from 'express';

/** JSON and text answers: nothing in them may load or run anything, nor be framed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** /docs/guide: one inline stylesheet, links; no scripts, no framing. */
const GUIDE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/**
 * /docs, the reference: scripts only from this origin (Scalar's bundle and its starter, no inline code), the styles it
 * injects, and requests (the documents, try-it calls) only to this origin: nothing loads from anywhere else.
 */
const REFERENCE_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sets nosniff on every answer, and a Content-Security-Policy on the API, health/metrics and /docs (pages set their own). */
export function setSecurityHeaders(req: Request, res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.path === '/docs') res.setHeader('Content-Security-Policy', REFERENCE_CSP);
  else if (req.path === '/docs/guide') res.setHeader('Content-Security-Policy', GUIDE_CSP);
  else if (req.path.startsWith('/api/') || req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics') res.setHeader('Content-Security-Policy', API_CSP);
}

/** The same as express middleware. */
export function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  setSecurityHeaders(req, res);
  next();
}
