// Signed provider notifications: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` (the Stripe-Signature scheme).
import crypto from 'node:crypto';

/** How far a notification's timestamp may be from now, in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The signature header value of `body` signed at `at`. */
export function signPayload(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${hmac(secret, `${t}.${body}`)}`;
}

/** Why a signature is not acceptable, or null when it is valid and fresh. */
export function signatureProblem(secret: string, body: string, header: string | undefined, now: Date): string | null {
  if (!header) return 'missing signature';
  const parts = new Map(header.split(',').map((p) => { const i = p.indexOf('='); return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const; }));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return 'malformed signature';
  const expected = Buffer.from(hmac(secret, `${t}.${body}`), 'hex');
  if (!crypto.timingSafeEqual(expected, Buffer.from(v1, 'hex'))) return 'signature mismatch';
  if (Math.abs(now.getTime() / 1000 - t) > SIGNATURE_TOLERANCE_SECONDS) return 'timestamp outside tolerance';
  return null;
}

function hmac(secret: string, text: string): string {
  return crypto.createHmac('sha256', secret).update(text).digest('hex');
}
