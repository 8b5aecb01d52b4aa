// How one personal value is stored (AES-256-GCM, the subject as additional data so a value cannot be moved to another
// subject's key). v2, written since issue 32's second pass: {"$enc": "v2:<base64url(iv | ciphertext | tag)>"}: the
// subject is not stored, the reader derives it from the field's mark as the writer did (subjectOf). v1, still read:
// {"$enc": "v1:<subject>:<iv>:<ciphertext>:<tag>"} (base64url parts). v2 is half v1's size and one base64 pass: the
// sealed appends and replays of the bench spent their extra time in the subject, the parts and the JSON around them.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { fillRandom } from '../random-pool.ts';

/** A stored encrypted value. */
export interface Envelope {
  $enc: string;
}

const IV = 12;
const TAG = 16;

/** Whether a stored value is an envelope. */
export function isEnvelope(v: unknown): v is Envelope {
  return typeof v === 'object' && v !== null && typeof (v as { $enc?: unknown }).$enc === 'string';
}

/** Encrypts `text` for `subject` with its key (a v2 envelope: the reader must know the subject). */
export function seal(subject: string, key: Buffer, text: string): Envelope {
  const plain = Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(IV + plain.length + TAG);
  // Random 96-bit IVs (NIST SP 800-38D 8.2.2), cut from the pool: randomBytes(12) per value cost as much as the cipher.
  fillRandom(out.subarray(0, IV));
  const cipher = createCipheriv('aes-256-gcm', key, out.subarray(0, IV));
  cipher.setAAD(Buffer.from(subject));
  const ct = cipher.update(plain);
  ct.copy(out, IV);
  const rest = cipher.final();
  rest.copy(out, IV + ct.length);
  cipher.getAuthTag().copy(out, IV + ct.length + rest.length);
  return { $enc: `v2:${out.toString('base64url')}` };
}

/** The subject a v1 envelope names (the subject may itself hold colons), or null for a v2 envelope (the field's mark says). */
export function envelopeSubject(e: Envelope): string | null {
  if (!e.$enc.startsWith('v1:')) return null;
  return e.$enc.split(':').slice(1, -3).join(':');
}

/** Decrypts an envelope with its subject's key; `subject` is the one the field's mark gives (a v1 envelope names its own). */
export function open(e: Envelope, subject: string, key: Buffer): string {
  if (e.$enc.startsWith('v2:')) {
    const raw = Buffer.from(e.$enc.slice(3), 'base64url');
    if (raw.length < IV + TAG) throw new Error('truncated envelope');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV));
    decipher.setAAD(Buffer.from(subject));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    const head = decipher.update(raw.subarray(IV, raw.length - TAG));
    const tail = decipher.final();
    return (tail.length === 0 ? head : Buffer.concat([head, tail])).toString('utf8');
  }
  const parts = e.$enc.split(':');
  const [tag = '', ct = '', iv = ''] = [parts.pop(), parts.pop(), parts.pop()];
  if (parts.shift() !== 'v1') throw new Error('unknown envelope version');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(parts.join(':')));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
