// Identifiers: UUID v7 everywhere, deterministic when an idempotent retry must reproduce them.
import crypto from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { fillRandom } from './random-pool.ts';

const NAMESPACE = '6f1d3a52-8c1e-4b8e-9a51-2f0c9d7e4b10';
const NAMESPACE_BYTES = Buffer.from(NAMESPACE.replaceAll('-', ''), 'hex');

// One random draw per id from the pool (random-pool.ts): one getRandomValues per id cost about 2% of a request's CPU.
const random = Buffer.alloc(16);
const v7State = { msecs: -Infinity, seq: 0 };

/** A fresh random UUID v7, monotonic within the process (as uuid's own v7 keeps them). */
export function newId(): string {
  fillRandom(random);
  const now = Date.now();
  if (now > v7State.msecs) {
    v7State.msecs = now;
    v7State.seq = random.readUInt32BE(6) & 0x7fffffff; // bytes 6-9 as uuid's own v7 seeds its sequence
  } else {
    v7State.seq = (v7State.seq + 1) | 0;
    if (v7State.seq === 0) v7State.msecs++;
  }
  return uuidv7({ random, msecs: v7State.msecs, seq: v7State.seq });
}

/**
 * A stable UUID (v5, RFC 9562 5.5) for a name, e.g. a reservation stream keyed by an email address. The same bytes as
 * uuid's v5 (test/unit/ids.test.ts checks), without its per-call parse of the namespace and its UTF-8 loop: 15 us a
 * customers.insert.
 */
export function nameId(kind: string, name: string): string {
  const h = crypto.createHash('sha1').update(NAMESPACE_BYTES).update(`${kind}:${name}`, 'utf8').digest();
  h.writeUInt8((h.readUInt8(6) & 0x0f) | 0x50, 6); // version 5
  h.writeUInt8((h.readUInt8(8) & 0x3f) | 0x80, 8); // RFC 9562 variant
  const hex = h.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Hands out UUID v7s derived from a seed: the same seed yields the same sequence, so a request
 * retried with the same Idempotency-Key creates the same resource ids and event ids.
 */
export class IdSource {
  private counter = 0;
  private commands = 0;
  constructor(
    private readonly seed: string,
    private readonly msecs: number,
  ) {}

  /** A fresh seed at time `at`. */
  static random(at: Date): IdSource {
    return new IdSource(crypto.randomUUID(), at.getTime());
  }

  /** The next id of this request. */
  next(): string {
    return this.derive(`id:${this.counter++}`);
  }

  /** Event ids of the next command of this request: the k-th command's i-th event on `stream`. */
  nextCommand(): (stream: string, i: number) => string {
    const k = this.commands++;
    return (stream, i) => this.derive(`event:${k}:${stream}:${i}`);
  }

  private derive(label: string): string {
    const random = crypto.createHash('sha256').update(this.seed).update(label).digest().subarray(0, 16);
    return uuidv7({ msecs: this.msecs, random: new Uint8Array(random) });
  }
}
