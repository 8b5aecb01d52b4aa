// Money and dates as a customer reads them on a document: ISO 4217's digits (never the runtime's CLDR ones), dates in UTC.
import { displayMinorUnits } from '../iso4217.ts';

/** An amount in minor units as people read it (`£12.34`, `IQD 12.345`). */
export function formatMoney(amount: number, currency: string): string {
  const digits = displayMinorUnits(currency);
  if (digits === null) return `${amount} ${currency} (minor units)`;
  return new Intl.NumberFormat('en-GB', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits);
}

/** `2026-03-01` or an instant -> `1 March 2026` (UTC). */
export function formatDate(value: string | null): string {
  if (!value) return '-';
  const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(d.getTime()) ? value : new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(d);
}
