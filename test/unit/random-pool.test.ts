// The CSPRNG pool behind ids, IVs and subjects' keys: no two callers get the same bytes, across refills.
import { expect } from 'chai';
import { fillRandom, randomBuffer } from '../../src/random-pool.ts';

function iv(): Buffer {
  const b = Buffer.alloc(12);
  fillRandom(b);
  return b;
}

describe('random pool', () => {
  it('hands out bytes no other caller gets, across many refills of its 4 KiB block', () => {
    // Keys of 32 bytes and IVs of 12 taken in turn: the block is refilled ten times, a part-used block left behind each time.
    const keys = Array.from({ length: 2_000 }, (_, i) => (i % 3 === 0 ? randomBuffer(32) : iv()));
    const seen = new Set(keys.map((k) => k.toString('hex')));
    expect(seen.size).to.equal(keys.length);
    // Nothing handed out is the zeroes a taken slot is wiped to.
    expect(keys.some((k) => k.every((b) => b === 0))).to.equal(false);
  });

  it('refuses more than a block at once', () => {
    expect(() => fillRandom(new Uint8Array(4097))).to.throw(RangeError);
  });
});
