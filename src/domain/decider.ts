// The shape of every aggregate: pure decide/evolve functions, no I/O (Emmett's Decider), and how its stored events are read.
import type { z } from 'zod';
import { DomainError } from './errors.ts';

/** A domain event as deciders see it: a type tag and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** Pure state machine of one aggregate. */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S) => E[];
  /** How stored events of this aggregate are read (schemas and upcasters); loadAggregate parses through it. */
  events?: EventCodec<E>;
}

/** Exhaustiveness check for switches over event and command types. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}

/** One zod schema per event type of an aggregate, keyed by the type name. */
export type EventSchemas = Record<string, z.ZodType>;

/** The event union a schema map describes: the TypeScript event types are derived from the schemas, never written twice. */
export type EventOf<M extends EventSchemas> = { [K in keyof M & string]: DomainEvent<K, z.output<M[K]>> }[keyof M & string];

/** Keeps the literal type names of a schema map (`export const invoiceEvents = eventSchemas({ InvoiceDrafted: z.object(...) })`). */
export function eventSchemas<M extends EventSchemas>(schemas: M): M {
  return schemas;
}

/**
 * Turns the data of an event stored in an older shape into the current shape. Old shapes are recognised
 * by their shape (a field missing, a field under its old name), not by a version number: an upcaster sees
 * every stored event of its type and must return current-shape data unchanged. See docs/decisions.md.
 */
export type Upcaster = (data: unknown) => unknown;

/** How the stored events of one aggregate are read: its schemas, upcasters by (current) type, and renamed types. Built by `eventCodec`, whose `E` is derived from the schemas, so the two agree. */
export interface EventCodec<E extends DomainEvent> {
  schemas: { readonly [K in E['type']]: z.ZodType };
  upcasters: { readonly [K in E['type']]?: Upcaster };
  /** Old type name -> current type name, for types renamed after events of them were stored. */
  renames: Readonly<Record<string, E['type']>>;
  /** Events already read, by the stored object, so read models with several tables parse a recorded event once. */
  readonly memo: WeakMap<object, E>;
}

/** The codec of a schema map, with optional upcasters and type renames. */
export function eventCodec<M extends EventSchemas>(
  schemas: M,
  opts: { upcasters?: { readonly [K in keyof M & string]?: Upcaster }; renames?: Readonly<Record<string, keyof M & string>> } = {},
): EventCodec<EventOf<M>> {
  return { schemas, upcasters: opts.upcasters ?? {}, renames: opts.renames ?? {}, memo: new WeakMap() };
}

/** An upcaster for fields added to a type later: an event stored without one reads with the given default. */
export function addedFields(defaults: Record<string, unknown>): Upcaster {
  return (data) => {
    if (!isRecord(data)) return data;
    const missing = Object.keys(defaults).filter((k) => !Object.hasOwn(data, k));
    return missing.length === 0 ? data : { ...data, ...Object.fromEntries(missing.map((k) => [k, defaults[k]])) };
  };
}

/** An upcaster for a field renamed later: an event stored with `from` (and without `to`) reads with `to`. */
export function renamedField(from: string, to: string): Upcaster {
  return (data) => {
    if (!isRecord(data) || !Object.hasOwn(data, from) || Object.hasOwn(data, to)) return data;
    const { [from]: value, ...rest } = data;
    return { ...rest, [to]: value };
  };
}

/** Where a stored event sits, when the reader knows it (errors name it so an operator can find it). */
export interface StoredEventRef {
  type: string;
  data: unknown;
  streamId?: string;
  id?: string;
  revision?: bigint;
}

/** A stored event that does not read as any current event of its aggregate: never silently cast. */
export class EventReadError extends Error {
  readonly eventId: string | null;
  readonly revision: bigint | null;
  constructor(
    readonly stream: string | null,
    readonly type: string,
    readonly issues: string,
    at: { id?: string; revision?: bigint } = {},
  ) {
    super(`stored event ${type}${at.id ? ` ${at.id}` : ''}${stream ? ` in stream ${stream}${at.revision === undefined ? '' : ` at revision ${at.revision}`}` : ''} does not read as its schema: ${issues}`);
    this.eventId = at.id ?? null;
    this.revision = at.revision ?? null;
  }
}

/** The current name of a stored event type (itself unless it was renamed). */
export function currentType<E extends DomainEvent>(codec: EventCodec<E>, storedType: string): string {
  return Object.hasOwn(codec.renames, storedType) ? (codec.renames[storedType] ?? storedType) : storedType;
}

/** Reads one stored event: renames its type, upcasts its data, then parses it with the current schema. */
export function readEvent<E extends DomainEvent>(codec: EventCodec<E>, stored: StoredEventRef): E {
  const type = currentType(codec, stored.type);
  const at = { id: stored.id, revision: stored.revision };
  if (!isTypeOf(codec, type)) throw new EventReadError(stored.streamId ?? null, stored.type, 'unknown event type', at);
  const upcast = codec.upcasters[type];
  const parsed = codec.schemas[type].safeParse(upcast ? upcast(stored.data) : stored.data);
  if (!parsed.success) throw new EventReadError(stored.streamId ?? null, stored.type, parsed.error.message, at);
  return event(type, parsed.data);
}

/**
 * Refuses an event its own schema would not read back (a value no read model can hold: year 0000, say): what is
 * appended must project, so a decision that slipped past request validation is a 400, never a stored poison.
 */
export function assertWritable<E extends DomainEvent>(codec: EventCodec<E> | undefined, event: E): void {
  if (!codec || !isTypeOf(codec, event.type)) return;
  const parsed = codec.schemas[event.type].safeParse(event.data);
  if (parsed.success) return;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw new DomainError('invalid_request', `The change would record a value the service cannot keep (${event.type}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}).`, 400, { issues });
}

function isTypeOf<E extends DomainEvent>(codec: EventCodec<E>, type: string): type is E['type'] {
  return Object.hasOwn(codec.schemas, type);
}

// The one place a parsed (type, data) pair becomes the union: the data was produced by the schema of that very type.
function event<E extends DomainEvent>(type: E['type'], data: unknown): E {
  const read: DomainEvent = { type, data };
  return read as E;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
