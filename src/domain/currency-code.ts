// The code check shared by API schemas and domain rows: current ISO 4217 codes with minor units, from the shipped
// table (src/iso4217.ts), never the runtime's Intl list (which keeps withdrawn codes and follows CLDR's digits).
import { z } from 'zod';
import { isoMinorUnits } from '../iso4217.ts';

/** A current ISO 4217 code with minor units (list one; not "N.A." codes such as XAU or XXX, nor withdrawn ones). */
export const CurrencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case ISO 4217 code')
  .refine((c) => isoMinorUnits(c) !== undefined, 'not a current ISO 4217 currency with minor units')
  .describe('ISO 4217 currency code, e.g. GBP.');
