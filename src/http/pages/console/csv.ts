// CSV exports of the console's lists (issue 28 §6): names next to ids, amounts as decimals in their currency, and no
// cell a spreadsheet would run as a formula.
import type { Response } from 'express';
import { minorDigits } from './layout.ts';

/** Most rows one export holds (the API is paged through, 200 at a time). */
export const MAX_EXPORT = 10_000;

/** A plain decimal number: the only cells written without the formula guard (a number is never a formula). */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break. Text starting with = + - @ (or a tab or
 * carriage return) gets a leading ' so a spreadsheet shows it instead of running it as a formula.
 */
export function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (!PLAIN_NUMBER.test(s) && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Minor units as a decimal in the currency's digits ("1386.50", "-12.5" never: always all digits; JPY "1200"). */
export function decimal(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / 10 ** digits)}.${String(abs % 10 ** digits).padStart(digits, '0')}`;
}

/** Sends rows (the header first) as a CSV download named `<name>-<day>.csv`. */
export function sendCsv(res: Response, name: string, day: string, rows: readonly (readonly (string | number | null | undefined)[])[]): void {
  res.set({ 'Content-Disposition': `attachment; filename="${name}-${day}.csv"`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.type('text/csv; charset=utf-8').send(`${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`);
}
