// Identifiers: fresh ids are UUID v7, unique, and sort in the order they were made (keyset pages rely on it).
import { expect } from 'chai';
import fc from 'fast-check';
import { v5 as uuidv5, validate, version } from 'uuid';
import { nameId, newId } from '../../src/ids.ts';

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

describe('nameId', () => {
  it('is the UUID v5 the uuid package gives for the same name (stream ids already stored depend on it)', () => {
    // The namespace every stored nameId was made under.
    const namespace = '6f1d3a52-8c1e-4b8e-9a51-2f0c9d7e4b10';
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary', maxLength: 200 }), (kind, name) => {
        expect(nameId(kind, name)).to.equal(uuidv5(`${kind}:${name}`, namespace));
      }),
      { numRuns: 2_000 },
    );
    expect(nameId('billing-customer', '0195f3e0-0000-7000-8000-000000000001')).to.equal(uuidv5('billing-customer:0195f3e0-0000-7000-8000-000000000001', namespace));
  });
});
