// HMAC-signed object URLs of the file store: one method, one key, an expiry on the injected clock, a size cap.
import crypto from 'node:crypto';
import type { Clock } from '../clock.ts';

/** What a signed URL grants. */
export interface Grant {
  /** PUT (upload) or GET (download). */
  m: 'PUT' | 'GET';
  /** The one object key. */
  k: string;
  /** Expiry, epoch seconds. */
  e: number;
  /** Upload: the most bytes accepted. */
  s?: number;
  /** Content type: required on upload, served on download. */
  t?: string;
  /** Download: the file name. */
  f?: string;
}

/** Signs and checks grants with one secret. */
export class UrlSigner {
  constructor(private readonly secret: Buffer, private readonly clock: Clock) {}

  /** A token for the grant. */
  sign(grant: Grant): string {
    const body = Buffer.from(JSON.stringify(grant)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The grant of a token when its signature holds, it is unexpired and it is for `method` on `key`; null otherwise. */
  verify(token: string, method: Grant['m'], key: string): Grant | null {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return null;
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) return null;
    let grant: Grant;
    try {
      grant = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Grant;
    } catch {
      return null;
    }
    if (grant.m !== method || grant.k !== key || !(grant.e * 1000 > this.clock.now().getTime())) return null;
    return grant;
  }

  private mac(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
