// Records and id sets that grow by a few keys per event without being copied whole each time (issue 31: an invoice
// stream with 2,000 payments copied 2,000 entries on every payment, ~1.5 ms and as much garbage per command). New
// keys go into a small top layer; once it holds LAYER_MAX keys it is merged into the base, so a long stream pays one
// full copy per LAYER_MAX additions. Immutable like a spread: an older value never sees a later key.

/** Keys a top layer holds before it is merged into the base. */
const LAYER_MAX = 64;

/** A record of `V` by key, in two layers (see above). */
export interface Layered<V> {
  readonly base: Readonly<Record<string, V>>;
  readonly top: Readonly<Record<string, V>>;
  readonly topSize: number;
}

export const emptyLayered = <V>(): Layered<V> => ({ base: {}, top: {}, topSize: 0 });

/** The value of `key`, or undefined. */
export function layeredGet<V>(r: Layered<V>, key: string): V | undefined {
  return Object.hasOwn(r.top, key) ? r.top[key] : Object.hasOwn(r.base, key) ? r.base[key] : undefined;
}

/** `r` with `key` set to `value` (a new value; `r` is unchanged). */
export function layeredSet<V>(r: Layered<V>, key: string, value: V): Layered<V> {
  const top = { ...r.top, [key]: value };
  const topSize = r.topSize + (Object.hasOwn(r.top, key) ? 0 : 1);
  return topSize >= LAYER_MAX ? { base: { ...r.base, ...top }, top: {}, topSize: 0 } : { base: r.base, top, topSize };
}

/** The plain record (for readers that show the state: the audit history); a key keeps its first position. */
export function layeredRecord<V>(r: Layered<V>): Record<string, V> {
  return { ...r.base, ...r.top };
}

/** A set of ids in two layers: `with` adds ids without copying the whole set (see above). */
export class LayeredIds {
  private constructor(
    private readonly base: ReadonlySet<string>,
    private readonly top: ReadonlySet<string>,
  ) {}

  static of(ids: Iterable<string>): LayeredIds {
    return new LayeredIds(new Set(ids), new Set());
  }

  has(id: string): boolean {
    return this.top.has(id) || this.base.has(id);
  }

  /** These ids and `more` (a new value; this one is unchanged). */
  with(more: Iterable<string>): LayeredIds {
    const top = new Set([...this.top, ...more]);
    return top.size >= LAYER_MAX ? new LayeredIds(new Set([...this.base, ...top]), new Set()) : new LayeredIds(this.base, top);
  }
}
