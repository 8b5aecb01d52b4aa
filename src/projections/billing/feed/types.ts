// What a billing event looks like in the public feed, and how an internal event type is mapped to it.
import { type DomainEvent, type EventCodec, currentType } from '../../../domain/decider.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { readRecorded } from '../../recorded.ts';
import type { FeedEventType } from '../../../domain/billing/feed-event-types.ts';

/** What a feed event is about. */
export type FeedSubjectType = 'customer' | 'invoice' | 'payment' | 'credit_note_request';

/** The public part of one billing event (id, time and organization come from the recorded event). */
export interface FeedEntry {
  /** Seen by billing staff only (e.g. changes to a draft invoice, which its organization cannot see yet). */
  staffOnly?: boolean;
  type: FeedEventType;
  subject: { type: FeedSubjectType; id: string };
  data: Record<string, unknown>;
}

/**
 * One mapper per event type of an aggregate: the compiler insists every type is decided, so a new
 * internal event never reaches the feed by accident. Return null to keep an event out of the feed.
 */
export type FeedMappers<E extends DomainEvent> = {
  [K in E['type']]: (data: Extract<E, { type: K }>['data'], event: RecordedEvent, known: FeedKnowledge) => FeedEntry | null;
};

/** What the feed already knows about a subject, for events that do not repeat it. */
export interface FeedKnowledge {
  /** The currency of a subject seen earlier in the feed ('XXX', ISO 4217's "no currency", if never seen). */
  currencyOf(subjectId: string): string;
  /** Whether an invoice was finalized earlier in the log (its organization sees it from then on). */
  finalized(invoiceId: string): boolean;
}

/** Mappers with the event types erased, as the projection looks them up. */
export type AnyFeedMapper = (data: unknown, event: RecordedEvent, known: FeedKnowledge) => FeedEntry | null;

/** Erases the per-type data of a mapper table (sound: the projection only calls a mapper with its own type's data). */
export function erase<E extends DomainEvent>(m: FeedMappers<E>): Record<string, AnyFeedMapper> {
  return m as Record<string, AnyFeedMapper>;
}

/** The feed's part of one stream category: its mappers, and how its events are read (upcast and parsed) before mapping. */
export interface CategoryFeed {
  types: string[];
  map(e: RecordedEvent, known: FeedKnowledge): FeedEntry | null;
}

/** A category's feed from its aggregate's codec and mappers; events without a mapper map to null unread. */
export function categoryFeed<E extends DomainEvent>(codec: EventCodec<E>, mappers: FeedMappers<E>): CategoryFeed {
  const byType = erase(mappers);
  return {
    types: [...Object.keys(byType), ...Object.keys(codec.renames).filter((old) => Object.hasOwn(byType, currentType(codec, old)))],
    map(e, known) {
      if (!Object.hasOwn(byType, currentType(codec, e.type))) return null;
      const read = readRecorded(codec, e);
      return byType[read.type]?.(read.data, e, known) ?? null;
    },
  };
}

/** Copies only the named keys that are present: the feed exposes fields by allow-list, never by default. */
export function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** The aggregate id of an event's stream (`invoice-0190...` -> `0190...`). */
export function streamId(e: RecordedEvent): string {
  return e.streamId.slice(e.streamId.indexOf('-') + 1);
}
