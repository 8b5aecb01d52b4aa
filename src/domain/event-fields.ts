// Field schemas of stored events for values the read models keep in typed columns (uuid, timestamptz, date, bigint,
// integer): an event whose fields pass these can be projected. The bounds are what every store holds, wider than a
// request accepts (src/contract/schemas), so events stored before a request bound was narrowed still read. See docs/decisions.md.
import { z } from 'zod';

/** Earliest instant an event may carry: 0001-01-01T00:00:00Z (Postgres has no year 0; JavaScript writes years before 1 as `-00000Y`). */
export const FIRST_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
/** Latest instant an event may carry: the end of year 9999 (a later one has no four-digit RFC 3339 form). */
export const LAST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

const YEARS = 'must lie in the years 0001 to 9999 (UTC)';

/** Whether an RFC 3339 timestamp, once in UTC, lies in the years 0001 to 9999. */
export function inEventRange(timestamp: string): boolean {
  const t = Date.parse(timestamp);
  return t >= FIRST_INSTANT_MS && t <= LAST_INSTANT_MS;
}

/** An id the read models keep in a uuid column: any 8-4-4-4-12 hex form, as Postgres takes it (not only RFC 9562 variants, so ids stored by older code or tools still read). */
export const EventId = z.guid();

/** An instant (RFC 3339, UTC `Z`) the read models keep in a timestamptz column. */
export const EventInstant = z.iso.datetime().refine(inEventRange, YEARS);

/** A calendar date (`YYYY-MM-DD`) the read models keep in a date column or order by. */
export const EventDate = z.iso.date().refine((d) => !d.startsWith('0000'), YEARS);

/** An amount of money in integer minor units (bigint columns; sums stay integers). */
export const EventAmount = z.int();

/** A count or index the read models keep in an integer (32-bit) column. */
export const EventInt32 = z.int32();
