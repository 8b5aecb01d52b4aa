// A sellable item as a supplier sends it: one row of an import, checked like an API request body.
import { z } from 'zod';
import { CurrencyCode } from '../currency-code.ts';

// Printable text: no control characters (tabs and newlines are allowed in descriptions only).
const PRINTABLE = /^[^\p{Cc}]*$/u;
// eslint-disable-next-line no-control-regex -- the class names the control characters it refuses
const TEXTUAL = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/;

/** Most items one import may carry. */
export const MAX_IMPORT_ROWS = 1_000_000;
/** Largest import file in bytes (256 MiB). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;
/** Most HCA ids or part numbers one item may list. */
export const MAX_ITEM_REFERENCES = 100;
/** Highest price in minor units. */
export const MAX_PRICE_MINOR_UNITS = 1_000_000_000_000;

const code = (what: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, `${what} must start with a letter or digit and contain only letters, digits and . _ : / -`);

/** One sellable item: the row schema of CSV and NDJSON imports (CSV cells are mapped onto it first). */
export const SellableItemRowSchema = z.strictObject({
  sku: z.string().trim().min(1).max(100).regex(PRINTABLE, 'must not contain control characters').describe("The supplier's own stock-keeping unit; unique within the supplier."),
  title: z.string().trim().min(1).max(300).regex(PRINTABLE, 'must not contain control characters').describe('Short name shown to buyers.'),
  description: z.string().max(5000).regex(TEXTUAL, 'must not contain control characters').nullable().default(null).describe('Longer text; null when none.'),
  price: z
    .strictObject({
      amount: z.int('must be a whole number of minor units').min(0).max(MAX_PRICE_MINOR_UNITS).describe('Unit price in minor units (pence, cents).'),
      currency: CurrencyCode.describe('ISO 4217 currency code.'),
    })
    .describe('Unit price before tax.'),
  stock_quantity: z.int('must be a whole number').min(0).max(1_000_000_000).describe('Units in stock now.'),
  hca_ids: z.array(code('an HCA id')).max(MAX_ITEM_REFERENCES).default([]).describe('HCA ids (assemblies or parts) the item fits.'),
  part_numbers: z.array(code('a part number')).max(MAX_ITEM_REFERENCES).default([]).describe('Manufacturer part numbers the item matches.'),
}).describe('One sellable item: one NDJSON line of an import, or one CSV record mapped onto it.').meta({ id: 'ingest.SellableItemRow' });

/** A checked sellable item. */
export type SellableItem = z.output<typeof SellableItemRowSchema>;

/** The columns of a CSV import (header row required; order free; `hca_ids` and `part_numbers` separate values with `|`). */
export const CSV_COLUMNS = ['sku', 'title', 'description', 'price_amount', 'price_currency', 'stock_quantity', 'hca_ids', 'part_numbers'] as const;
/** Columns a CSV header must have. */
export const REQUIRED_CSV_COLUMNS = ['sku', 'title', 'price_amount', 'price_currency', 'stock_quantity'] as const;

/** The row object of one CSV record (by header name): numbers parsed when they are whole numbers, lists split on `|`, empty cells absent. */
export function csvRowObject(cells: Record<string, string>): Record<string, unknown> {
  const whole = (v: string) => (/^-?\d{1,16}$/.test(v.trim()) ? Number(v.trim()) : v);
  const list = (v: string) => v.split('|').map((s) => s.trim()).filter((s) => s !== '');
  const has = (k: string) => cells[k] !== undefined && cells[k] !== '';
  const out: Record<string, unknown> = {};
  if (cells.sku !== undefined) out.sku = cells.sku;
  if (cells.title !== undefined) out.title = cells.title;
  if (has('description')) out.description = cells.description;
  out.price = { amount: has('price_amount') ? whole(cells.price_amount ?? '') : undefined, currency: cells.price_currency ?? undefined };
  if (cells.stock_quantity !== undefined) out.stock_quantity = cells.stock_quantity === '' ? undefined : whole(cells.stock_quantity);
  if (has('hca_ids')) out.hca_ids = list(cells.hca_ids ?? '');
  if (has('part_numbers')) out.part_numbers = list(cells.part_numbers ?? '');
  return out;
}

/** The CSV column a schema path names (`price.amount` -> `price_amount`, `hca_ids.3` -> `hca_ids`). */
export function csvField(path: PropertyKey[]): string {
  const [head, sub] = path.map(String);
  if (head === 'price' && sub) return `price_${sub}`;
  return head ?? '';
}

/** A problem with one row: the 1-based line it starts on, the field (null for the whole row) and what is wrong. */
export interface RowError {
  line: number;
  field: string | null;
  message: string;
}

/** Checks one row; `csv` names fields by column. */
export function checkRow(value: unknown, line: number, csv: boolean): { item: SellableItem } | { errors: RowError[] } {
  const parsed = SellableItemRowSchema.safeParse(value);
  if (parsed.success) return { item: parsed.data };
  return {
    errors: parsed.error.issues.slice(0, 10).map((i) => ({
      line,
      field: i.path.length === 0 ? (i.code === 'unrecognized_keys' ? i.keys.join(', ') : null) : csv ? csvField(i.path) : i.path.map(String).join('.'),
      message: i.code === 'unrecognized_keys' ? `unknown field${i.keys.length > 1 ? 's' : ''}` : i.message,
    })),
  };
}
