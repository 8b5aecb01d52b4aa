// Schemas of the analytics area, named as the spec names them.
import { z } from 'zod';
import { MAX_CLOCK_SKEW_SECONDS, MAX_EVENT_AGE_DAYS, PropertyValue } from '../../domain/analytics/event.ts';
import { CalendarDate, PageRequest, RequestDate, RequestInstant, Timestamp, Uuid, ownKeysRecord, page } from './common.ts';

/** An event name: 1-100 characters, letters, digits and . _ : / - (e.g. `search.completed`, `page_view`). */
export const EventName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'must start with a letter or digit and contain only letters, digits and . _ : / -')
  .describe('Event name, 1-100 characters: letters, digits and . _ : / - (e.g. `search.completed`).');

export const AnalyticsEventsInsertRequest = z
  .strictObject({
    name: EventName,
    properties: ownKeysRecord(z.record(z.string().min(1).max(40), PropertyValue).refine((p) => Object.keys(p).length <= 50, 'at most 50 properties'))
      .default({})
      .describe('What happened, as key-value pairs: at most 50 keys of up to 40 characters (not `__proto__`, `constructor` or `prototype`); values are text (up to 500 characters), numbers, true/false or null.'),
    occurred_at: RequestInstant.optional().describe(`When it happened (default: when received); within the last ${MAX_EVENT_AGE_DAYS} days and at most ${MAX_CLOCK_SKEW_SECONDS} s ahead of the server clock.`),
  })
  .meta({ id: 'analytics.AnalyticsEventsInsertRequest' });

export const AnalyticsEventItem = z
  .object({
    id: Uuid,
    name: z.string(),
    properties: z.record(z.string(), PropertyValue),
    occurred_at: Timestamp,
    received_at: Timestamp,
    origin: z.string().nullable().describe('The request\'s `origin` header as given; null when absent.'),
    referer: z.string().nullable().describe('The request\'s `referer` header as given; null when absent.'),
  })
  .meta({ id: 'analytics.AnalyticsEventItem' });

export const AnalyticsEventsInsertResponse = AnalyticsEventItem.describe('The recorded event.').meta({ id: 'analytics.AnalyticsEventsInsertResponse' });

export const AnalyticsEventsListRequest = z
  .strictObject({ ...PageRequest, name: EventName.optional().describe('Only events of this name.') })
  .meta({ id: 'analytics.AnalyticsEventsListRequest' });

export const AnalyticsEventsListResponse = page(AnalyticsEventItem, 'analytics.AnalyticsEventPage');

export const AnalyticsCountsListRequest = z
  .strictObject({
    ...PageRequest,
    from: RequestDate.describe('First day (UTC) counted.'),
    to: RequestDate.describe('Last day (UTC) counted, at most 366 days after `from`.'),
    name: EventName.optional().describe('Only this event name.'),
  })
  .meta({ id: 'analytics.AnalyticsCountsListRequest' });

export const AnalyticsDailyCount = z
  .object({ day: CalendarDate.describe('UTC day of occurred_at.'), name: z.string(), count: z.int().describe('Events of that name on that day.') })
  .meta({ id: 'analytics.AnalyticsDailyCount' });

export const AnalyticsCountsListResponse = page(AnalyticsDailyCount, 'analytics.AnalyticsDailyCountPage');
