// Personal data in events (issue 32): fields marked in the event schemas are encrypted with their data subject's key
// before they reach the log and read back as "[erased]" once that key is deleted (crypto-shredding). See docs/decisions.md.
import { EventDate, EventInstant } from './event-fields.ts';
import { z } from 'zod';

/** What every read of an erased personal value yields (the field keeps its type: a string). */
export const ERASED = '[erased]';

/**
 * Whose data a marked field is. The subject id is `<kind>:<id>` where id is the event's top-level `idField`, or the
 * stream key (`customer-<id>` -> `<id>`) when there is none; `retained` fields use the subject's retention key
 * (`<kind>:<id>:retained`), kept until the legal retention period ends.
 */
export interface PersonalMark {
  kind: 'customer' | 'user' | 'note' | 'attachment' | 'analytics' | 'message';
  idField?: string;
  retained?: boolean;
}

/** A marked field of one event type: its path in the event's data and its mark. */
export interface PersonalPath extends PersonalMark {
  path: readonly string[];
}

/** Event type -> its marked fields. */
export type PersonalFields = ReadonlyMap<string, readonly PersonalPath[]>;

const marks = z.registry<PersonalMark>();

/** Marks a string field of an event schema as personal data of `mark`'s subject. */
export function personal<T extends z.ZodType>(schema: T, mark: PersonalMark): T {
  marks.add(schema, mark);
  return schema;
}

/** Every marked field of an event schema (through objects, optional, nullable and defaults). */
export function personalPaths(schema: z.ZodType, path: readonly string[] = []): PersonalPath[] {
  const mark = marks.get(schema);
  if (mark) return [{ ...mark, path }];
  const def = schema.def as { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; in?: z.ZodType };
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'readonly') return def.innerType ? personalPaths(def.innerType, path) : [];
  if (def.type === 'pipe' && def.in) return personalPaths(def.in, path);
  if (def.type === 'object' && def.shape) return Object.entries(def.shape).flatMap(([k, s]) => personalPaths(s, [...path, k]));
  return [];
}

/** The marked fields of every type of the given schema maps (types without any are left out). */
export function personalFieldsOf(maps: readonly Record<string, z.ZodType>[]): PersonalFields {
  const out = new Map<string, PersonalPath[]>();
  for (const map of maps) {
    for (const [type, schema] of Object.entries(map)) {
      const paths = personalPaths(schema);
      if (paths.length > 0) out.set(type, paths);
    }
  }
  return out;
}

/** The subject id a marked field of an event belongs to. */
export function subjectOf(mark: PersonalMark, data: Record<string, unknown>, streamId: string): string {
  const field = mark.idField ? data[mark.idField] : undefined;
  const id = typeof field === 'string' ? field : streamId.slice(streamId.indexOf('-') + 1);
  return `${mark.kind}:${id}${mark.retained ? ':retained' : ''}`;
}

/** The subjects of a customer: its own key (everything personal not kept for tax law) and its retention key. */
export function customerSubjects(customerId: string): { erasable: string; retained: string } {
  return { erasable: `customer:${customerId}`, retained: `customer:${customerId}:retained` };
}

/** Data of the event that records an erasure (who asked is the event's actor; the reason is also in its metadata). */
export const DataSubjectErasedSchema = z.object({
  /** The subject asked about (`customer:<id>`, `user:<id>`). */
  subject: z.string(),
  /** Subjects whose keys were deleted now. */
  erased: z.array(z.string()),
  /** Subjects kept for the legal retention period, and when it ends (`YYYY-MM-DD`), or null when nothing is kept. */
  retained: z.array(z.string()),
  retained_until: EventDate.nullable(),
  legal_basis: z.string(),
  reason: z.string(),
  requested_by: z.object({ type: z.string(), id: z.string() }),
  erased_at: EventInstant,
});

/** Data of the event that records the end of retention: the kept subjects' keys were deleted too. */
export const RetainedDataErasedSchema = z.object({ erased: z.array(z.string()), erased_at: EventInstant });

/** The event types that end subjects' keys (a reader drops the keys it cached when it sees one). */
export const ERASURE_EVENT_TYPES = ['DataSubjectErased', 'NoteErased', 'AttachmentNameErased', 'RetainedDataErased', 'UserErased', 'MessageErased'] as const;
