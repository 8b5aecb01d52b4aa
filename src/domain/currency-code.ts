// The ISO 4217 code check shared by API schemas and domain rows (imports check rows like request bodies).
import { z } from 'zod';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217 currency code known to the runtime. */
export const CurrencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case ISO 4217 code')
  .refine((c) => CURRENCIES.has(c), 'not an ISO 4217 currency')
  .describe('ISO 4217 currency code, e.g. GBP.');
