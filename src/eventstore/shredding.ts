// Crypto-shredding above the log port (issue 32): an EventStore decorator that encrypts the personal fields the event
// schemas mark before any log adapter (Postgres or EventStoreDB) sees them, and decrypts them on every read; a subject
// whose key was erased reads as "[erased]". Only marked fields of marked types are touched; other events pass through
// unread (the Postgres adapter's lazy decoding stays lazy), and keys are cached, so appends and replays cost little more.
import { type AppendOptions, type AppendResult, type EventData, type EventMetadata, type EventStore, type LogPosition, type RecordedEvent, SubjectErasedError, SubjectKeyTakenError } from './port.ts';
import { randomBuffer } from '../random-pool.ts';
import { type KeyStore, type SubjectKey, refuseReservedErasure } from './keys.ts';
import { type Envelope, envelopeSubject, isEnvelope, open, seal } from './envelope.ts';
import { KeyCache } from './key-cache.ts';
import { ERASED, ERASURE_EVENT_TYPES, type PersonalFields, subjectOf } from '../domain/personal.ts';

/** The decorated store, plus the one way to erase subjects that also forgets their cached keys. */
export interface ShreddingStore extends EventStore {
  /** Deletes the subjects' keys (tombstones); from now on their values read as "[erased]". Idempotent. */
  eraseSubjects(subjects: readonly string[], now: Date): Promise<void>;
  /** The keys port (the export reads which subjects exist; the retention worker erases through eraseSubjects). */
  readonly keys: KeyStore;
}

// Keys held (key-cache.ts: about 150 bytes a subject with its string, so about 37 MB when full): a rebuild of 100k customers
// (two subjects each) keeps every key it met, and their later events open without a lookup. Past it the oldest tenth
// goes; a replay of more subjects asks for each batch's missing keys in one query anyway (openAll).
const CACHE_LIMIT = 250_000;
const ERASURES = new Set<string>(ERASURE_EVENT_TYPES);

/** A recorded event whose personal fields were decrypted; everything else is read from the stored event. */
class OpenedEvent implements RecordedEvent {
  readonly #inner: RecordedEvent;
  readonly data: unknown;
  constructor(inner: RecordedEvent, data: unknown) {
    this.#inner = inner;
    this.data = data;
  }
  get streamId(): string {
    return this.#inner.streamId;
  }
  get revision(): bigint {
    return this.#inner.revision;
  }
  get position(): LogPosition {
    return this.#inner.position;
  }
  get id(): string {
    return this.#inner.id;
  }
  get type(): string {
    return this.#inner.type;
  }
  get metadata(): EventMetadata {
    return this.#inner.metadata;
  }
  get createdAt(): Date {
    return this.#inner.createdAt;
  }
  toJSON(): RecordedEvent {
    const { streamId, revision, position, id, type, data, metadata, createdAt } = this;
    return { streamId, revision, position, id, type, data, metadata, createdAt };
  }
}
for (const name of ['streamId', 'revision', 'position', 'id', 'type', 'metadata', 'createdAt']) {
  const accessor = Object.getOwnPropertyDescriptor(OpenedEvent.prototype, name);
  if (accessor) Object.defineProperty(OpenedEvent.prototype, name, { ...accessor, enumerable: true });
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let at = data;
  for (const k of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[k];
  }
  return at;
}

// A copy of `data` with the value at `path` replaced (only the objects on the path are copied).
function withValue(data: unknown, path: readonly string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof data !== 'object' || data === null) return data;
  const obj = data as Record<string, unknown>;
  return { ...obj, [head]: withValue(obj[head], rest, value) };
}

/** A copy of `data` in which every object on the given paths is a copy of its own (each copied once), to set values in. */
function copyPaths(data: unknown, list: readonly { path: readonly string[] }[]): Record<string, unknown> {
  const root = { ...(data as Record<string, unknown>) };
  const copied = new Set<unknown>([root]);
  for (const { path } of list) {
    let at = root;
    for (const k of path.slice(0, -1)) {
      let next = at[k] as Record<string, unknown>;
      if (!copied.has(next)) {
        next = { ...next };
        at[k] = next;
        copied.add(next);
      }
      at = next;
    }
  }
  return root;
}

/** Sets the value at `path` in an object whose path objects are already copies (copyPaths). */
function setAt(data: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = data;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[path.at(-1) ?? ''] = value;
}

/** A marked field of an event that holds plaintext: where it is, whose it is, the text. */
export interface PlainValue {
  path: readonly string[];
  subject: string;
  text: string;
}

/** The marked fields of an event of `type` in `stream` that hold plaintext (a string), with their subjects. */
export function plaintextValues(fields: PersonalFields, type: string, data: unknown, stream: string): PlainValue[] {
  const paths = fields.get(type);
  if (!paths) return [];
  const out: PlainValue[] = [];
  for (const p of paths) {
    const v = valueAt(data, p.path);
    if (typeof v === 'string') out.push({ path: p.path, subject: subjectOf(p, data as Record<string, unknown>, stream), text: v });
  }
  return out;
}

/**
 * `data` with each value sealed under its subject's key. An erased subject (null key) stays erased: its value is
 * stored as the placeholder, never under a new key. Used on append and by the log rewrite (`log encrypt-personal-data`).
 */
export function sealValues(data: unknown, values: readonly PlainValue[], keyOf: (subject: string) => SubjectKey): unknown {
  let out = data;
  for (const v of values) {
    const key = keyOf(v.subject);
    out = withValue(out, v.path, key ? seal(v.subject, key, v.text) : ERASED);
  }
  return out;
}

/** Wraps `store` so marked personal fields are sealed on append and opened on read (`cacheLimit`: keys held, for tests). */
export function shreddingStore(store: EventStore, keys: KeyStore, fields: PersonalFields, now: () => Date, { cacheLimit = CACHE_LIMIT } = {}): ShreddingStore {
  const cache = new KeyCache(cacheLimit);
  // A key this process erased meanwhile (an erasure while a lookup or an append ran) is not taken back.
  const remember = (found: Map<string, SubjectKey>) => {
    for (const [s, k] of found) if (!cache.erased(s)) cache.set(s, k);
  };

  // The keys of a read batch or an append (null: erased, or never made), with one lookup for the subjects the cache does
  // not hold. `fresh` (ReadStreamOptions.currentKeys): every live key is looked up again; an erasure is for good. The
  // cache is read after the lookup, and what the lookup found is remembered only for subjects not erased meanwhile: a
  // key this process erased while the lookup ran reads null, and the cache does not take the erased key back.
  const keysOf = async (subjects: ReadonlySet<string>, lookup: (missing: string[]) => Promise<Map<string, SubjectKey>>, fresh = false): Promise<Map<string, SubjectKey>> => {
    const missing: string[] = [];
    for (const s of subjects) if (fresh ? !cache.erased(s) : !cache.has(s)) missing.push(s);
    const found = missing.length > 0 ? await lookup(missing) : new Map<string, SubjectKey>();
    for (const s of missing) if (!found.has(s)) found.set(s, null);
    const keyOf = new Map<string, SubjectKey>();
    const evicted: string[] = [];
    for (const s of subjects) {
      const cached = cache.get(s);
      if (cached === null) keyOf.set(s, null);
      else if (found.has(s)) keyOf.set(s, found.get(s) ?? null);
      else if (cached === undefined) evicted.push(s);
      else keyOf.set(s, cached);
    }
    remember(found);
    // Held when this began, evicted by another read's keys during the lookup (a full cache): looked up again.
    if (evicted.length > 0) for (const [s, k] of await keysOf(new Set(evicted), lookup)) keyOf.set(s, k);
    return keyOf;
  };

  const forget = (e: RecordedEvent) => {
    if (!ERASURES.has(e.type)) return;
    const erased = (e.data as { erased?: unknown }).erased;
    if (Array.isArray(erased)) for (const s of erased) if (typeof s === 'string') cache.set(s, null);
  };

  // An event's envelopes, each with its subject (parsed once: a replay opens hundreds of thousands).
  const NONE: { path: readonly string[]; env: Envelope; subject: string }[] = [];
  const envelopesOf = (e: RecordedEvent): { path: readonly string[]; env: Envelope; subject: string }[] => {
    const paths = fields.get(e.type);
    if (!paths) return NONE;
    let out = NONE;
    const data = e.data;
    for (const p of paths) {
      const v = valueAt(data, p.path);
      if (isEnvelope(v)) (out === NONE ? (out = []) : out).push({ path: p.path, env: v, subject: envelopeSubject(v) ?? subjectOf(p, data as Record<string, unknown>, e.streamId) });
    }
    return out;
  };

  // `current`: keys as the key store holds them now (ReadStreamOptions.currentKeys); an erasure found is remembered, so
  // this process's other reads stop opening the subject too.
  const openAll = async (events: RecordedEvent[], current = false): Promise<RecordedEvent[]> => {
    // An erasure in this very batch ends its keys before the batch's earlier events are opened.
    events.forEach(forget);
    const sealed = events.map(envelopesOf);
    const subjects = new Set<string>();
    for (const list of sealed) for (const v of list) subjects.add(v.subject);
    const keyOf = await keysOf(subjects, (missing) => keys.find(missing), current);
    return events.map((e, i) => {
      const list = sealed[i] ?? NONE;
      if (list.length === 0) return e;
      const data = copyPaths(e.data, list);
      for (const { path, env, subject } of list) {
        const key = keyOf.get(subject) ?? null;
        let text = ERASED;
        if (key) {
          try {
            text = open(env, subject, key);
          } catch (err) {
            throw new Error(`cannot decrypt ${path.join('.')} of event ${e.id} in ${e.streamId}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        setAt(data, path, text);
      }
      return new OpenedEvent(e, data);
    });
  };

  // A stream read for a person: every event first, then one lookup of their subjects' keys.
  async function* openCurrent(source: AsyncIterable<RecordedEvent>): AsyncIterable<RecordedEvent> {
    const events: RecordedEvent[] = [];
    for await (const e of source) events.push(e);
    yield* await openAll(events, true);
  }

  async function* openEach(source: AsyncIterable<RecordedEvent>): AsyncIterable<RecordedEvent> {
    for await (const e of source) {
      const [opened] = await openAll([e]);
      if (opened) yield opened;
    }
  }

  // The events with their values sealed, the subjects whose keys sealed them (the append's liveKeys), and the keys made
  // here for subjects the cache does not know (the append's newKeys), when the log creates them in the append itself.
  // Only an append that starts a stream makes keys: its subjects are new (a customer's, a note's); any other append's
  // unknown subjects most likely have keys already, which one lookup finds (ensure).
  const sealAll = async (stream: string, events: EventData[], create: boolean): Promise<{ events: EventData[]; live: string[]; made: Map<string, Buffer> | null }> => {
    const todo = events.map((e) => plaintextValues(fields, e.type, e.data, stream));
    const subjects = new Set(todo.flatMap((list) => list.map((t) => t.subject)));
    if (subjects.size === 0) return { events, live: [], made: null };
    let made: Map<string, Buffer> | null = null;
    let keyOf: Map<string, SubjectKey>;
    if (create) {
      // Made here, remembered only once the append stored them (appendToStream).
      keyOf = new Map();
      for (const s of subjects) {
        let k = cache.get(s); // null (erased) stays null
        if (k === undefined) (made ??= new Map()).set(s, (k = randomBuffer(32)));
        keyOf.set(s, k);
      }
    } else keyOf = await keysOf(subjects, (missing) => keys.ensure(missing, now()));
    const live = [...keyOf].filter(([, k]) => k !== null).map(([s]) => s);
    const sealed = events.map((e, i) => {
      const list = todo[i] ?? [];
      return list.length === 0 ? e : { ...e, data: sealValues(e.data, list, (s) => keyOf.get(s) ?? null) };
    });
    return { events: sealed, live, made };
  };

  return {
    keys,
    async eraseSubjects(subjects, at) {
      // Here too, not only in the table adapter: a KMS adapter gets the same refusal.
      refuseReservedErasure(subjects);
      await keys.erase(subjects, at);
      for (const s of subjects) cache.set(s, null);
    },
    // The cache may hold a key another process has erased since (this process learns of it from the erasure's event, or
    // here): the append names the keys it sealed with (liveKeys), the log refuses it if one is erased (checked in the
    // append's statement, serialized with the erasure: append-group.ts ERASED_KEY_IN), and it is sealed again without.
    async appendToStream(stream: string, events: EventData[], opts: AppendOptions): Promise<AppendResult> {
      let create = store.createsKeys === true && opts.expectedRevision === 'no_stream';
      for (let attempt = 1; ; attempt++) {
        const sealed = await sealAll(stream, events, create);
        const more: Partial<AppendOptions> = {};
        if (sealed.live.length > 0) more.liveKeys = sealed.live;
        if (sealed.made) more.newKeys = sealed.made;
        try {
          const result = await store.appendToStream(stream, sealed.events, { ...opts, ...more });
          // Unless this process erased one of them meanwhile (its null stays).
          if (sealed.made) remember(new Map([...sealed.made].filter(([s]) => !cache.has(s))));
          return result;
        } catch (err) {
          if (err instanceof SubjectKeyTakenError) {
            // Another writer (or an erasure) has these subjects: seal again with what the key table holds.
            create = false;
            continue;
          }
          if (!(err instanceof SubjectErasedError) || attempt >= 3) throw err;
          for (const s of err.subjects) cache.set(s, null);
        }
      }
    },
    readStream: (stream, opts) => (opts?.currentKeys ? openCurrent(store.readStream(stream, opts)) : openEach(store.readStream(stream, opts))),
    readAll: async (opts) => openAll(await store.readAll(opts)),
    subscribeToAll(opts) {
      const source = store.subscribeToAll(opts);
      return (async function* () {
        for await (const item of source) {
          if ('kind' in item && item.kind === 'caughtUp') yield item;
          else {
            const [opened] = await openAll([item as RecordedEvent]);
            if (opened) yield opened;
          }
        }
      })();
    },
    headPosition: () => store.headPosition(),
    lastCommittedPosition: () => store.lastCommittedPosition(),
    changeToken: () => store.changeToken(),
    waitForChange: (cursor, token, signal) => store.waitForChange(cursor, token, signal),
    close: () => store.close(),
  };
}
