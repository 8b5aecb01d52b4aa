// Runs one command against one aggregate stream: load, decide, append with the expected revision.
// `commandHandler` binds a decider to its stream once and stamps the clock into every command.
import type { CommandContext } from '../context.ts';
import { type Decider, type DomainEvent, assertWritable, readEvent } from '../domain/decider.ts';
import { type EventData, type EventMetadata, type EventStore, type LogPosition, WrongExpectedVersionError } from '../eventstore/port.ts';
import { type LoadedAggregate, forget, recall, remember } from './remembered.ts';
import { LayeredIds } from '../domain/layered.ts';

export type { LoadedAggregate } from './remembered.ts';

/** Result of a command: the log position to wait for, and the aggregate state after it. */
export interface CommandResult<E, S> {
  position: LogPosition | null;
  events: E[];
  state: S;
  /** True when an earlier attempt of the same request had already appended these events. */
  duplicate: boolean;
}

/** Loads an aggregate by folding its stream, each event read (upcast and parsed) through the decider's event codec. */
export async function loadAggregate<E extends DomainEvent, S>(
  store: EventStore,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve' | 'events'>,
  stream: string,
  lookFor?: string,
  ids?: Set<string>,
): Promise<{ state: S; revision: bigint | null; position: LogPosition | null; found: boolean }> {
  let state = decider.initialState();
  let revision: bigint | null = null;
  let position: LogPosition | null = null;
  let found = false;
  for await (const e of store.readStream(stream)) {
    state = decider.evolve(state, decider.events ? readEvent(decider.events, e) : ({ type: e.type, data: e.data } as E));
    revision = e.revision;
    position = e.position;
    if (e.id === lookFor) found = true;
    ids?.add(e.id);
  }
  return { state, revision, position, found };
}


const MAX_ATTEMPTS = 5;

/**
 * Decides and appends. A lost optimistic-concurrency race is re-decided on fresh state (bounded);
 * a retry of a request whose events are already stored (same IdSource seed) is a no-op.
 * The context is told the position the command reached, so read-your-writes waits there.
 */
export async function runCommand<C, E extends DomainEvent, S>(
  ctx: CommandContext,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  opts: RunOptions<S> & { maxAttempts?: number } = {},
): Promise<CommandResult<E, S>> {
  const result = await decideAndAppend(ctx, decider, stream, command, opts);
  ctx.reached?.(result.position);
  return result;
}

async function decideAndAppend<C, E extends DomainEvent, S>(
  ctx: CommandContext,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  opts: RunOptions<S> & { maxAttempts?: number },
): Promise<CommandResult<E, S>> {
  const eventId = ctx.ids.nextCommand();
  const firstEventId = eventId(stream, 0);
  const metadata: EventMetadata = {
    ...ctx.metadata,
    org_id: opts.orgId === undefined ? ctx.metadata.org_id : opts.orgId,
    ...(opts.reason ? { reason: opts.reason } : {}),
  };
  const toData = (events: E[]): EventData[] =>
    events.map((e, i) => {
      assertWritable(decider.events, e);
      return { id: eventId(stream, i), type: e.type, data: e.data, metadata };
    });
  const requireStream = opts.requireStream;
  if (opts.expectNew) {
    const created = await tryNewStream(ctx, decider, stream, command, toData, requireStream);
    if (created) return created;
  }
  // The caller's read, or the aggregate as this process last saw it, serves the first attempt; a lost race reads the stream.
  let given: LoadedAggregate<S> | undefined = opts.loaded ?? recall<S>(ctx.store, stream);
  for (let attempt = 1; ; attempt++) {
    const loaded = given ? { ...given, found: given.eventIds.has(firstEventId) } : await readAggregate(ctx.store, decider, stream, firstEventId);
    const stale = given?.remembered === true;
    given = undefined;
    if (loaded.found) return { position: loaded.position, events: [], state: loaded.state, duplicate: true };
    let events: E[];
    try {
      events = decider.decide(command, loaded.state);
    } catch (err) {
      if (!stale) throw err;
      events = [];
    }
    if (events.length === 0) {
      // A refusal or a decision of nothing on a remembered state may be the stale state's: the stream decides.
      if (stale) {
        forget(ctx.store, stream);
        attempt--;
        continue;
      }
      // Nothing to append: the position is the stream's last, so a read-your-writes wait still sees what a racing writer did.
      return { position: loaded.position, events, state: loaded.state, duplicate: false };
    }
    try {
      const data = toData(events);
      const res = await ctx.store.appendToStream(stream, data, { expectedRevision: loaded.revision ?? 'no_stream', now: ctx.now, requireStream });
      const state = events.reduce(decider.evolve, loaded.state);
      remember(ctx.store, stream, { state, revision: res.nextExpectedRevision, position: res.position, eventIds: loaded.eventIds.with(data.map((e) => e.id)) });
      return { position: res.position, events, state, duplicate: res.duplicate };
    } catch (err) {
      forget(ctx.store, stream);
      if (err instanceof WrongExpectedVersionError && attempt < (opts.maxAttempts ?? MAX_ATTEMPTS)) continue;
      throw err;
    }
  }
}

/** Reads the aggregate from its stream (with its event ids) and remembers it for the next command. */
async function readAggregate<E extends DomainEvent, S>(
  store: EventStore,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve' | 'events'>,
  stream: string,
  lookFor?: string,
): Promise<LoadedAggregate<S> & { found: boolean }> {
  const ids = new Set<string>();
  const { state, revision, position, found } = await loadAggregate(store, decider, stream, lookFor, ids);
  const loaded = { state, revision, position, eventIds: LayeredIds.of(ids) };
  remember(store, stream, loaded);
  return { ...loaded, found };
}

/**
 * A command that most likely creates its stream (a new id): decided on the initial state and appended
 * with `no_stream`, without reading the stream first (one round trip fewer). Null when that does not
 * hold (the stream exists, or the decision on the initial state refuses or decides nothing): the
 * caller then loads and decides as usual, so every answer is the one the stream's state gives. A
 * retry of a stored request is found by es_append (same event ids) and answered from the stream.
 */
async function tryNewStream<C, E extends DomainEvent, S>(
  ctx: CommandContext,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  toData: (events: E[]) => EventData[],
  requireStream: string | undefined,
): Promise<CommandResult<E, S> | null> {
  let events: E[];
  try {
    events = decider.decide(command, decider.initialState());
  } catch {
    return null;
  }
  if (events.length === 0) return null;
  try {
    const data = toData(events);
    const res = await ctx.store.appendToStream(stream, data, { expectedRevision: 'no_stream', now: ctx.now, requireStream });
    if (res.duplicate) {
      const loaded = await loadAggregate(ctx.store, decider, stream);
      return { position: res.position, events: [], state: loaded.state, duplicate: true };
    }
    const state = events.reduce(decider.evolve, decider.initialState());
    remember(ctx.store, stream, { state, revision: res.nextExpectedRevision, position: res.position, eventIds: LayeredIds.of(data.map((e) => e.id)) });
    return { position: res.position, events, state, duplicate: false };
  } catch (err) {
    if (err instanceof WrongExpectedVersionError) return null;
    throw err;
  }
}

/** What a caller writes of a command: everything but `now`, which the handler stamps from the request's clock. */
export type Unstamped<C> = C extends { type: infer T; data: infer D } ? { type: T; data: Omit<D, 'now'> } : never;

/** Options of one command run: the organization it belongs to (metadata) and the actor's reason. */
export interface RunOptions<S = unknown> {
  orgId?: string | null;
  reason?: string;
  /** The stream is most likely new (a fresh id): append with no_stream without reading it first; an existing stream falls back to load and decide. */
  expectNew?: boolean;
  /** Another aggregate's stream that must exist: checked by the append itself (RequiredStreamMissingError, nothing written). */
  requireStream?: string;
  /** The stream as the caller just read it (`CommandHandler.read`): decided on without reading it again; a conflict re-reads. */
  loaded?: LoadedAggregate<S>;
}

/** A decider bound to its stream (Emmett's CommandHandler): load, decide, append, with the clock injected here only. */
export interface CommandHandler<C, E extends DomainEvent, S, I = string> {
  /** The stream id of the aggregate `id`. */
  stream(id: I): string;
  /** The aggregate's state as its stream says now. */
  load(ctx: Pick<CommandContext, 'store'>, id: I): Promise<S>;
  /**
   * The aggregate to pass to `run` as `loaded` (one read of the stream for both): as this process last saw
   * it (`remembered`, possibly behind the stream) unless `fresh`. What a remembered state shows can only
   * have moved on: a caller that finds it missing or refuses on it reads it `fresh` first.
   */
  read(ctx: Pick<CommandContext, 'store'>, id: I, opts?: { fresh?: boolean }): Promise<LoadedAggregate<S>>;
  /** Tries a decision on `state` without appending (a refusal throws): for checks before a side effect. */
  decide(ctx: Pick<CommandContext, 'now'>, command: Unstamped<C>, state: S): E[];
  /** Decides `command` on aggregate `id` (stamped with `ctx.now`) and appends the events. */
  run(ctx: CommandContext, id: I, command: Unstamped<C>, opts?: RunOptions<S>): Promise<CommandResult<E, S>>;
}

/** Binds `decider` to the streams named by `stream`; lost races are re-decided up to `maxAttempts` times. */
export function commandHandler<C extends { type: string; data: object }, E extends DomainEvent, S, I = string>(
  decider: Decider<C, E, S>,
  stream: (id: I) => string,
  opts: { maxAttempts?: number } = {},
): CommandHandler<C, E, S, I> {
  return {
    stream,
    load: async (ctx, id) => (await loadAggregate(ctx.store, decider, stream(id))).state,
    read: async (ctx, id, opts = {}) => {
      const hit = opts.fresh ? undefined : recall<S>(ctx.store, stream(id));
      if (hit) return hit;
      const { found: _, ...loaded } = await readAggregate(ctx.store, decider, stream(id));
      return loaded;
    },
    decide: (ctx, command, state) => decider.decide(stamp<C>(command, ctx.now), state),
    run: (ctx, id, command, run = {}) => runCommand(ctx, decider, stream(id), stamp<C>(command, ctx.now), { ...run, maxAttempts: opts.maxAttempts }),
  };
}

// The one place a command gets its time: deciders read `data.now`, callers never write it.
function stamp<C>(command: Unstamped<C>, now: Date): C {
  const { type, data } = command as { type: string; data: object };
  return { type, data: { ...data, now: now.toISOString() } } as C;
}
