// Response headers that keep browsers from sniffing or rendering API answers, and confine the /docs page.
import type { NextFunction, Request, Response } from 'express';

/** JSON and text answers: nothing in them may load or run anything, nor be framed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** /docs: one inline stylesheet, links; no scripts, no framing. */
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sets nosniff on every answer, and a Content-Security-Policy on the API, health/metrics and /docs (pages set their own). */
export function setSecurityHeaders(req: Request, res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.path === '/docs') res.setHeader('Content-Security-Policy', DOCS_CSP);
  else if (req.path.startsWith('/api/') || req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics') res.setHeader('Content-Security-Policy', API_CSP);
}

/** The same as express middleware. */
export function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  setSecurityHeaders(req, res);
  next();
}
