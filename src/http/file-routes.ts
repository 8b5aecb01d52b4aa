// HTTP side of the file store: PUT and GET of `/objects/<key>?token=…`, each checked against its signed grant.
import type { Readable } from 'node:stream';
import express, { type Request, type Response } from 'express';
import { newId } from '../ids.ts';

/** What the signed routes need of the file store: the composition root hands it in (src/http names no storage module). */
export interface SignedObjectStore {
  /** Where the store's signed URLs point. */
  readonly route: string;
  /** What the URL's token grants for `method` on `key`, or null when it grants nothing. */
  grant(token: string, method: 'PUT' | 'GET', key: string): { e: number; s?: number; t?: string; f?: string } | null;
  claimUpload(key: string, expiry: number): Promise<boolean>;
  releaseUpload(key: string, expiry: number): Promise<void>;
  head(key: string): Promise<{ size: number } | null>;
  get(key: string): Promise<Readable | null>;
  upload(key: string, body: Readable, maxBytes: number): Promise<'stored' | 'too_large'>;
  disposition(filename: string): string;
}

/** Mounts the signed object routes of `store` on `app`. */
export function mountFileObjectRoutes(app: express.Express, store: SignedObjectStore): void {
  // Returned promises: express 5 hands a rejection (the disk failing) to the error handler.
  app.put(`${store.route}/*key`, (req, res) => upload(store, req, res));
  app.get(`${store.route}/*key`, (req, res) => download(store, req, res));
}

function keyOf(req: Request): string {
  const raw: unknown = req.params.key;
  return Array.isArray(raw) ? raw.join('/') : String(raw);
}

// The service's error body, with the request id the access log carries (a bare app in tests has none: a new one).
function refuse(res: Response, status: number, code: string, message: string): void {
  const requestId: unknown = res.locals.requestId;
  res.status(status).set('Cache-Control', 'no-store').json({ type: 'ObjectError', code, message, request_id: typeof requestId === 'string' ? requestId : newId() });
}

async function upload(store: SignedObjectStore, req: Request, res: Response): Promise<void> {
  const key = keyOf(req);
  const grant = store.grant(String(req.query.token ?? ''), 'PUT', key);
  if (!grant) return refuse(res, 403, 'invalid_signature', 'The URL is invalid, expired or not for this object.');
  if (grant.t !== undefined && req.get('content-type') !== grant.t) return refuse(res, 403, 'content_type_mismatch', `Content-Type must be ${grant.t}.`);
  const max = grant.s ?? 0;
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) return refuse(res, 413, 'too_large', `At most ${max} bytes.`);
  // An upload URL works once, even for PUTs that overlap or come after the object was moved or deleted: the claim is
  // taken before any byte is written, and only an upload that stored nothing gives it back.
  if (!(await store.claimUpload(key, grant.e))) return refuse(res, 409, 'upload_url_used', 'This upload URL was already used; prepare a new upload.');
  if (await store.head(key)) return refuse(res, 409, 'object_exists', 'This upload URL was already used.');
  let stored: 'stored' | 'too_large';
  try {
    stored = await store.upload(key, req, max);
  } catch {
    await store.releaseUpload(key, grant.e);
    if (!res.headersSent) refuse(res, 400, 'upload_failed', 'The upload did not complete.');
    return;
  }
  if (stored === 'too_large') {
    await store.releaseUpload(key, grant.e);
    return refuse(res, 413, 'too_large', `At most ${max} bytes.`);
  }
  res.status(200).set('Cache-Control', 'no-store').end();
}

async function download(store: SignedObjectStore, req: Request, res: Response): Promise<void> {
  const key = keyOf(req);
  const grant = store.grant(String(req.query.token ?? ''), 'GET', key);
  if (!grant) return refuse(res, 403, 'invalid_signature', 'The URL is invalid, expired or not for this object.');
  const head = await store.head(key);
  const body = head && (await store.get(key));
  if (!head || !body) return refuse(res, 404, 'not_found', 'No such object.');
  res.status(200).set({
    'Content-Type': grant.t ?? 'application/octet-stream',
    'Content-Length': String(head.size),
    'Content-Disposition': store.disposition(grant.f ?? key.split('/').pop() ?? 'download'),
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
  });
  body.on('error', () => res.destroy());
  body.pipe(res);
}
