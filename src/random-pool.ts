// CSPRNG bytes drawn 4 KiB at a time. One randomFillSync per value (an id, an IV, a subject's key) cost as much as
// the work the value was for (about 9 us a key on these machines); these are the same bytes, fetched in bulk.
import { randomFillSync } from 'node:crypto';

const block = Buffer.alloc(4096);
let at = block.length;

/** Fills `out` (at most 4 KiB) with bytes no other caller gets: each is zeroed in the pool once handed out. */
export function fillRandom(out: Uint8Array): void {
  if (out.length > block.length) throw new RangeError('fillRandom takes at most 4 KiB at a time');
  if (at + out.length > block.length) {
    randomFillSync(block);
    at = 0;
  }
  out.set(block.subarray(at, at + out.length));
  block.fill(0, at, at + out.length);
  at += out.length;
}

/** `n` fresh random bytes. */
export function randomBuffer(n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  fillRandom(out);
  return out;
}
