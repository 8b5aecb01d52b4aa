// Secrets: recognisable prefix, >= 128 random bits, checksum suffix; stored only as SHA-256; scrypt for passwords.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Secret kinds and their prefixes. */
export type SecretPrefix = 'svc_sess_' | 'svc_key_' | 'svc_secret_' | 'svc_code_';

function base62(bytes: Buffer): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

function checksum(prefix: string, body: string): string {
  return base62(crypto.createHash('sha256').update(prefix + body).digest().subarray(0, 4)).slice(-6);
}

/** A new secret: prefix + 192 random bits in base62 + a 6-character checksum. */
export function newSecret(prefix: SecretPrefix): string {
  const body = base62(crypto.randomBytes(24));
  return `${prefix}${body}${checksum(prefix, body)}`;
}

/** True when the secret has the prefix and a valid checksum (cheap rejection of typos and foreign strings). */
export function looksValid(secret: string, prefix: SecretPrefix): boolean {
  if (!secret.startsWith(prefix) || secret.length < prefix.length + 10 || secret.length > 200) return false;
  const rest = secret.slice(prefix.length);
  return checksum(prefix, rest.slice(0, -6)) === rest.slice(-6);
}

/** SHA-256 hex: how secrets are stored and looked up. */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** scrypt hash of a password: `scrypt$N$r$p$salt$hash` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Checks a password against its stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return crypto.timingSafeEqual(key, expected);
}
