// Shapes shared by every area: ids, pagination, money, dates, metadata.
import { CurrencyCode } from '../../domain/currency-code.ts';
import { z, type ZodType } from 'zod';

/** uuid.Uuid */
export const Uuid = z.uuid().describe('UUID').meta({ id: 'uuid.Uuid' });

/** The empty object of remove-style operations. */
export const Empty = z.strictObject({}).describe('Empty object.').meta({ id: 'Empty' });

/** `YYYY-MM-DD`, a real calendar date. */
export const CalendarDate = z.iso.date().describe('Calendar date, YYYY-MM-DD.');

/** RFC 3339 UTC timestamp. */
export const Timestamp = z.iso.datetime().describe('RFC 3339 timestamp (UTC).');

/** ISO 4217 currency code known to the runtime (one definition, in the domain, so imported rows check it too). */
export { CurrencyCode };

/** Integer amount in minor units. */
export const MinorUnits = z.int().min(-1e15).max(1e15).describe('Integer amount in minor units (pence, cents).');

/** Money: integer minor units and a currency. */
export const Money = z.strictObject({ amount: MinorUnits, currency: CurrencyCode }).describe('An amount of money.').meta({ id: 'Money' });

/** Key-value metadata, Stripe-like limits. */
export const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .describe('Your own key-value pairs (at most 50 keys; keys up to 40 characters, values up to 500).');

/** Request fields of every paginated list. */
export const PageRequest = {
  limit: z.int().min(1).max(200).default(50).describe('Page size, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('The `pagination.cursor` of the previous page.'),
};

/** ForwardPagination */
export const ForwardPagination = z.object({ cursor: z.string().describe('Pass as `cursor` to get the next page.') }).meta({ id: 'ForwardPagination' });

/** ForwardPaginatedList<T>, registered under the spec's name `id` (a `.describe()` after this would make an unnamed copy: pass `description`). */
export function page<T extends ZodType>(item: T, id: string, description?: string) {
  return z
    .object({ items: z.array(item).describe('This page of items.'), pagination: ForwardPagination.nullable().describe('null on the last page.') })
    .meta({ id, ...(description ? { description } : {}) });
}
