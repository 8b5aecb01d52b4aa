// ISO 4217 minor units written out independently of the shipped table (list one, published 2026-01-01), for suites
// that compare what the service uses with ISO: every current code not named here has 2.
import { ISO4217_LIST_ONE } from '../../src/iso4217.ts';

const ZERO = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR = 'CLF UYW';
/** Codes of list one whose minor units ISO gives as "N.A." (no amounts in them). */
export const NOT_APPLICABLE = new Set('XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX'.split(' '));

/** The codes where the runtime's Intl (CLDR) digits differ from ISO 4217, with ISO's: what the service used to get wrong. */
export const CLDR_DIFFERS: Record<string, number> = {
  AFN: 2, ALL: 2, COP: 2, HUF: 2, IDR: 2, IQD: 3, IRR: 2, KPW: 2, LAK: 2, LBP: 2, MGA: 2, MMK: 2, PKR: 2, SOS: 2, SYP: 2, YER: 2,
};

/** ISO 4217's minor units of a current code with minor units (by the groups above). */
export function isoExponent(code: string): number {
  if (ZERO.split(' ').includes(code)) return 0;
  if (THREE.split(' ').includes(code)) return 3;
  if (FOUR.split(' ').includes(code)) return 4;
  return 2;
}

/** Every code of list one that takes amounts (not "N.A."), sorted. */
export function isoCodes(): string[] {
  return ISO4217_LIST_ONE.map(([code]) => code).filter((c) => !NOT_APPLICABLE.has(c)).sort();
}
