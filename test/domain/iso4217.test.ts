// Minor units are ISO 4217's: the shipped table, the codes the service accepts, and the digits amounts are shown with.
import { expect } from 'chai';
import { CurrencyCode } from '../../src/domain/currency-code.ts';
import { ISO4217_LIST_ONE, displayMinorUnits, isoMinorUnits } from '../../src/iso4217.ts';
import { CLDR_DIFFERS, NOT_APPLICABLE, isoCodes, isoExponent } from '../support/iso4217.ts';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('ISO 4217 minor units', () => {
  it('the shipped table is list one: one row per code, sorted, with ISO exponents ("N.A." as null)', () => {
    const codes = ISO4217_LIST_ONE.map(([code]) => code);
    expect(codes).to.deep.equal([...new Set(codes)].sort());
    expect(new Set(ISO4217_LIST_ONE.map(([, numeric]) => numeric)).size).to.equal(codes.length);
    for (const [code, , minor] of ISO4217_LIST_ONE) expect(minor, code).to.equal(NOT_APPLICABLE.has(code) ? null : isoExponent(code));
    // Amendments up to 2026-01-01: XCG replaced ANG, BGN and CUC were withdrawn, XAD and ZWG were added.
    expect(codes).to.include.members(['XCG', 'XAD', 'ZWG', 'SLE', 'VED']);
    expect(codes).not.to.include.members(['ANG', 'BGN', 'CUC', 'HRK', 'SLL', 'ZWL']);
  });

  it('every code the service accepts is a current ISO 4217 code with minor units, and each of those is accepted, with ISO exponent', () => {
    const accepted: string[] = [];
    for (const a of LETTERS) for (const b of LETTERS) for (const c of LETTERS) if (CurrencyCode.safeParse(a + b + c).success) accepted.push(a + b + c);
    expect(accepted).to.deep.equal(isoCodes());
    for (const code of accepted) expect(isoMinorUnits(code), code).to.equal(isoExponent(code));
  });

  it("uses ISO's exponent where the runtime's (CLDR) differs: IQD 3; HUF, IDR, COP, PKR 2", () => {
    for (const [code, minor] of Object.entries(CLDR_DIFFERS)) {
      expect(isoMinorUnits(code), code).to.equal(minor);
      expect(displayMinorUnits(code), code).to.equal(minor);
    }
  });

  it('refuses withdrawn and "N.A." codes for new amounts, and shows amounts recorded in them with the digits they were recorded with', () => {
    for (const code of ['BGN', 'HRK', 'ANG', 'XAU', 'XXX', 'XDR']) expect(CurrencyCode.safeParse(code).success, code).to.equal(false);
    expect(displayMinorUnits('BGN')).to.equal(2);
    expect(displayMinorUnits('SLL')).to.equal(0);
    expect(displayMinorUnits('XXX')).to.equal(null);
  });
});
