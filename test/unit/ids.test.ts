// Identifiers: fresh ids are UUID v7, unique, and sort in the order they were made (keyset pages rely on it).
import { expect } from 'chai';
import { validate, version } from 'uuid';
import { newId } from '../../src/ids.ts';

describe('newId', () => {
  it('makes valid, distinct UUID v7s that sort in creation order, across pool refills and within one millisecond', () => {
    // 1,000 ids use the 4 KiB random pool four times over; many share a millisecond.
    const ids = Array.from({ length: 1_000 }, () => newId());
    for (const id of ids) {
      expect(validate(id)).to.equal(true);
      expect(version(id)).to.equal(7);
    }
    expect(new Set(ids).size).to.equal(ids.length);
    expect([...ids].sort()).to.deep.equal(ids);
  });
});
