// The crypto-shredding decorator's cache of subjects' keys (shredding.ts). A replay of a large log opens values of every
// customer, and a batch's keys it no longer holds cost a lookup each (PGlite: 6-11 us a subject), so the cache holds
// many keys compactly: the keys sit end to end in one Buffer and the map holds a slot number. Measured with 100k
// subjects: 79 bytes a subject plus its string (~70 bytes for `customer:<uuid>:retained`), 15 MB per 100k subjects; a
// Map of Buffers took 187 bytes a subject plus the string (a Buffer object per key).
import type { SubjectKey } from './keys.ts';

const KEY = 32;
const ERASED = -1;

export class KeyCache {
  readonly #slots = new Map<string, number>();
  readonly #free: number[] = [];
  #slab = Buffer.alloc(0);
  #used = 0;

  /** At most `limit` subjects; past it the oldest tenth goes (a map keeps insertion order). */
  constructor(private readonly limit: number) {}

  get size(): number {
    return this.#slots.size;
  }

  /** The subject's key (a copy: the slot may be reused once evicted), null when erased, undefined when not held. */
  get(subject: string): SubjectKey | undefined {
    const slot = this.#slots.get(subject);
    if (slot === undefined) return undefined;
    if (slot === ERASED) return null;
    return Buffer.from(this.#slab.subarray(slot * KEY, slot * KEY + KEY));
  }

  /** Whether the subject is held (with a key or as erased). */
  has(subject: string): boolean {
    return this.#slots.has(subject);
  }

  /** Whether the subject is held as erased. */
  erased(subject: string): boolean {
    return this.#slots.get(subject) === ERASED;
  }

  set(subject: string, key: SubjectKey): void {
    if (key !== null && key.length !== KEY) throw new Error(`a subject's key is ${KEY} bytes, not ${key.length}`);
    const held = this.#slots.get(subject);
    if (held === undefined && this.#slots.size >= this.limit) this.#evict(Math.max(1, Math.ceil(this.limit / 10)));
    if (key === null) {
      if (held !== undefined && held !== ERASED) this.#free.push(held);
      this.#slots.set(subject, ERASED);
      return;
    }
    const slot = held !== undefined && held !== ERASED ? held : this.#slot();
    key.copy(this.#slab, slot * KEY);
    this.#slots.set(subject, slot);
  }

  // A free slot, growing the slab (doubling, up to the limit) when none is.
  #slot(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#used * KEY === this.#slab.length) {
      const grown = Buffer.alloc(Math.min(this.limit, Math.max(1024, this.#used * 2)) * KEY);
      this.#slab.copy(grown);
      this.#slab = grown;
    }
    return this.#used++;
  }

  #evict(count: number): void {
    for (const [s, slot] of this.#slots) {
      if (count-- <= 0) break;
      this.#slots.delete(s);
      if (slot !== ERASED) this.#free.push(slot);
    }
  }
}
