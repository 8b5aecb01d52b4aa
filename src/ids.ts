// Identifiers: UUID v7 everywhere, deterministic when an idempotent retry must reproduce them.
import crypto from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

const NAMESPACE = '6f1d3a52-8c1e-4b8e-9a51-2f0c9d7e4b10';

/** A fresh random UUID v7. */
export function newId(): string {
  return uuidv7();
}

/** A stable UUID (v5) for a name, e.g. a reservation stream keyed by an email address. */
export function nameId(kind: string, name: string): string {
  return uuidv5(`${kind}:${name}`, NAMESPACE);
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
