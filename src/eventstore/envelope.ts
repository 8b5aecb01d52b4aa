// How one personal value is stored: {"$enc": "v1:<subject>:<iv>:<ciphertext>:<tag>"} (AES-256-GCM, base64url parts,
// the subject as additional data so a value cannot be moved to another subject's key).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A stored encrypted value. */
export interface Envelope {
  $enc: string;
}

/** Whether a stored value is an envelope. */
export function isEnvelope(v: unknown): v is Envelope {
  return typeof v === 'object' && v !== null && typeof (v as { $enc?: unknown }).$enc === 'string';
}

/** Encrypts `text` for `subject` with its key. */
export function seal(subject: string, key: Buffer, text: string): Envelope {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(subject));
  const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return { $enc: `v1:${subject}:${iv.toString('base64url')}:${ct.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}` };
}

/** The subject an envelope was sealed for (the subject may itself hold colons). */
export function envelopeSubject(e: Envelope): string {
  const parts = e.$enc.split(':');
  return parts.slice(1, -3).join(':');
}

/** Decrypts an envelope with its subject's key. */
export function open(e: Envelope, key: Buffer): string {
  const parts = e.$enc.split(':');
  const [tag = '', ct = '', iv = ''] = [parts.pop(), parts.pop(), parts.pop()];
  if (parts.shift() !== 'v1') throw new Error('unknown envelope version');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(parts.join(':')));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
