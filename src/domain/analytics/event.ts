// Analytics events: one AnalyticsEventRecorded per logged event. They are appended in groups to one stream per UTC day
// (`analytics-<YYYY-MM-DD>`), so a burst of events costs one append; the decider checks each event on its own.
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { analyticsErrors } from './errors.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { personal } from '../personal.ts';

/** How far back an event's occurred_at may lie. */
export const MAX_EVENT_AGE_DAYS = 30;
/** How far ahead of the server clock an event's occurred_at may lie (client clock skew). */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/** A property value: text, number, true/false or null. */
export const PropertyValue = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

/** Events of the analytics streams. */
export const analyticsEvents = eventSchemas({
  AnalyticsEventRecorded: z.object({
    event_id: EventId,
    organization_id: EventId,
    name: z.string(),
    properties: z.record(z.string(), PropertyValue),
    occurred_at: EventInstant,
    received_at: EventInstant,
    origin: z.string().nullable(),
    /** A referring URL can carry a person's identifiers: the organization's analytics key, erased with its customer. */
    referer: personal(z.string(), { kind: 'analytics', idField: 'organization_id' }).nullable(),
  }),
});

/** An analytics event (derived from `analyticsEvents`). */
export type AnalyticsEvent = EventOf<typeof analyticsEvents>;

/** How analytics events are read. */
export const analyticsCodec = eventCodec(analyticsEvents);

type Recorded = Extract<AnalyticsEvent, { type: 'AnalyticsEventRecorded' }>['data'];

/** Log one event; `occurred_at` defaults to when it was received. */
export type AnalyticsCommand = { type: 'RecordAnalyticsEvent'; data: Omit<Recorded, 'received_at' | 'occurred_at'> & { occurred_at: string | null; now: string } };

/** The stream of the day an event id was minted (UUID v7: its first 48 bits are milliseconds), so a retry lands in the same stream. */
export function analyticsStream(eventId: string): string {
  const ms = Number.parseInt(eventId.replaceAll('-', '').slice(0, 12), 16);
  return `analytics-${new Date(ms).toISOString().slice(0, 10)}`;
}

/** Pure analytics decider: every command is one event; occurred_at must be within the last 30 days and not ahead of the clock by more than 5 minutes. */
export const analyticsDecider: Decider<AnalyticsCommand, AnalyticsEvent, null> = {
  events: analyticsCodec,
  initialState: () => null,
  evolve: (state) => state,
  decide(command) {
    switch (command.type) {
      case 'RecordAnalyticsEvent': {
        const { now, occurred_at, ...rest } = command.data;
        const at = occurred_at ?? now;
        const ms = Date.parse(at);
        const nowMs = Date.parse(now);
        if (ms > nowMs + MAX_CLOCK_SKEW_SECONDS * 1000 || ms < nowMs - MAX_EVENT_AGE_DAYS * 86_400_000)
          throw analyticsErrors.error('occurred_at_out_of_range', `occurred_at must lie within the last ${MAX_EVENT_AGE_DAYS} days and at most ${MAX_CLOCK_SKEW_SECONDS} seconds ahead of the server clock.`);
        return [{ type: 'AnalyticsEventRecorded', data: { ...rest, occurred_at: new Date(ms).toISOString(), received_at: now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
