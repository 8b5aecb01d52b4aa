// Shapes shared by every area: ids, pagination, money, dates, metadata.
import { CurrencyCode } from '../../domain/currency-code.ts';
import { z, type ZodType } from 'zod';

// Lower-cased as it is read: ids name streams and rows exactly, and RFC 9562 makes a UUID's hex digits case-insensitive.
/** uuid.Uuid */
export const Uuid = z.uuid().toLowerCase().describe('UUID').meta({ id: 'uuid.Uuid' });

/** The empty object of remove-style operations. */
export const Empty = z.strictObject({}).describe('Empty object.').meta({ id: 'Empty' });

/** `YYYY-MM-DD`, a real calendar date (responses: what the service wrote). */
export const CalendarDate = z.iso.date().describe('Calendar date, YYYY-MM-DD.');

/** RFC 3339 UTC timestamp (responses: what the service wrote). */
export const Timestamp = z.iso.datetime().describe('RFC 3339 timestamp (UTC).');

/** First year a request's date or instant may fall in (once in UTC). */
export const FIRST_YEAR = 1900;
/** Last year a request's date or instant may fall in (once in UTC). */
export const LAST_YEAR = 9999;
const EARLIEST_MS = Date.UTC(FIRST_YEAR, 0, 1);
const PAST_LATEST_MS = Date.UTC(LAST_YEAR + 1, 0, 1);
/** The message of a date or instant outside FIRST_YEAR..LAST_YEAR. */
export const OUT_OF_RANGE = `must be in the years ${FIRST_YEAR} to ${LAST_YEAR} (UTC)`;

/** Whether a date or RFC 3339 instant falls in FIRST_YEAR..LAST_YEAR once in UTC (what Postgres, JavaScript and our own formats all read back). */
export function inRange(value: string): boolean {
  const t = Date.parse(value);
  return t >= EARLIEST_MS && t < PAST_LATEST_MS;
}

/** A request's calendar date: `YYYY-MM-DD`, a real date, in the years 1900-9999. */
export const RequestDate = z.iso.date().refine(inRange, OUT_OF_RANGE).describe(`Calendar date, YYYY-MM-DD, in the years ${FIRST_YEAR}-${LAST_YEAR}.`);

/** A request's instant: RFC 3339 with `Z` or an offset, in the years 1900-9999 once in UTC (`0000-01-01T00:30:00+01:00` is year -1 and refused). */
export const RequestInstant = z.iso
  .datetime({ offset: true })
  .refine(inRange, OUT_OF_RANGE)
  .describe(`RFC 3339 timestamp (\`Z\` or an offset; stored in UTC), in the years ${FIRST_YEAR}-${LAST_YEAR} once in UTC.`);

/** A request's calendar month, `YYYY-MM`, in the years 1900-9999. */
export const RequestMonth = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a calendar month, YYYY-MM')
  .refine((m) => inRange(`${m}-01`), OUT_OF_RANGE)
  .describe(`Calendar month (UTC), YYYY-MM, in the years ${FIRST_YEAR}-${LAST_YEAR}.`);

/** ISO 4217 currency code known to the runtime (one definition, in the domain, so imported rows check it too). */
export { CurrencyCode };

/** Integer amount in minor units. */
export const MinorUnits = z.int().min(-1e15).max(1e15).describe('Integer amount in minor units (pence, cents).');

/** Money: integer minor units and a currency. */
export const Money = z.strictObject({ amount: MinorUnits, currency: CurrencyCode }).describe('An amount of money.').meta({ id: 'Money' });

/** Keys no record of a request may have: JavaScript gives them meaning (a `__proto__` key would be dropped silently). */
export const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * A record of the caller's own keys that refuses RESERVED_KEYS naming them. The check reads the body as sent:
 * z.record skips an own `__proto__` key without a word, so it cannot be refused after parsing.
 */
export function ownKeysRecord<T extends ZodType>(record: T): z.ZodPreprocess<T, z.input<T>> {
  // Typed as the record's input (for callers' types); the check itself takes anything.
  return z.preprocess<unknown, T, z.input<T>>((value: unknown, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    for (const key of RESERVED_KEYS) if (Object.hasOwn(value, key)) ctx.issues.push({ code: 'custom', path: [key], message: `"${key}" is a reserved key`, input: value });
    return value;
  }, record);
}

/** Key-value metadata, Stripe-like limits. */
export const Metadata = ownKeysRecord(
  z.record(z.string().min(1).max(40), z.string().max(500)).refine((m) => Object.keys(m).length <= 50, 'at most 50 keys'),
).describe('Your own key-value pairs (at most 50 keys; keys up to 40 characters, values up to 500; not `__proto__`, `constructor` or `prototype`).');

/** Request fields of every paginated list. */
export const PageRequest = {
  limit: z.int().min(1).max(200).default(50).describe('Page size, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('The `pagination.cursor` of the previous page.'),
};

/**
 * Extensions of a list (issue 28): `include_total_count` asks for the count of every item the filters match (as Stripe's
 * `total_count`); the list's sort param is declared with it. Both are optional: without them a list is the spec's.
 */
export const TotalCountRequest = {
  include_total_count: z.boolean().default(false).describe('Extension: true adds `total_count`, every item the filters match (default false).'),
};

/** The `total_count` a list answers when asked for it (extension). */
export const TotalCountField = { total_count: z.int().optional().describe('Extension: every item the filters match; present when `include_total_count` was true.') };

/** A list's sort param (extension): `column` ascending, `-column` descending; the default is the spec's order, created_at oldest first. */
export function sortParam<const C extends readonly [string, ...string[]]>(columns: C) {
  const values = columns.flatMap((c) => [c, `-${c}`]) as [string, ...string[]];
  return z.enum(values).default('created_at').describe(`Extension: the order, one of ${values.join(', ')} (a leading - for descending; default created_at, oldest first), then id.`);
}

/** ForwardPagination */
export const ForwardPagination = z.object({ cursor: z.string().describe('Pass as `cursor` to get the next page.') }).meta({ id: 'ForwardPagination' });

/** ForwardPaginatedList<T>, registered under the spec's name `id` (a `.describe()` after this would make an unnamed copy: pass `description`). */
export function page<T extends ZodType>(item: T, id: string, description?: string) {
  return z
    .object({ items: z.array(item).describe('This page of items.'), pagination: ForwardPagination.nullable().describe('null on the last page.') })
    .meta({ id, ...(description ? { description } : {}) });
}

/** A page that may also say how many items match in all (`total_count`, extension: only when asked for). */
export function countedPage<T extends ZodType>(item: T, id: string) {
  return z
    .object({ items: z.array(item).describe('This page of items.'), pagination: ForwardPagination.nullable().describe('null on the last page.'), ...TotalCountField })
    .meta({ id });
}
