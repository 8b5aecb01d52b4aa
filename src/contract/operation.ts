// One declaration per operation: id, schemas, error type, access and handler. Router and OpenAPI come from it.
// `operation()` keeps the request, response and access types (typed test calls, narrowed ctx.auth);
// the registry holds them erased.
import type { ZodType, z } from 'zod';
import type { Access, ReadModelRef, RequestContext } from '../context.ts';
import type { ErrorList } from '../domain/errors.ts';

export type { Access } from '../context.ts';

/** An event written to a server-sent-event stream. */
export interface SseMessage {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * The surface an operation is served on. `internal`: called only in process through invoke (workers, the payment webhook after
 * its signature check, pages, the seed, the CLI); never routed over HTTP, and in no OpenAPI document or /docs.
 */
export type Surface = 'core' | 'integrations' | 'internal';

interface Base<Id extends string, Req extends ZodType | null, A extends Access, E extends string> {
  id: Id;
  surface: Surface;
  tags: string[];
  summary: string;
  description?: string;
  /** null: the operation takes no body. */
  request: Req;
  /** Error type name in the spec, e.g. `billing.InvoiceGetError`. */
  error: string;
  /** The codes this operation's errors may carry, from the areas' catalogues (documented in OpenAPI, checked in tests). */
  errors: ErrorList<E>;
  access: A;
  /** The paid feature this operation belongs to: the caller's organization must have this entitlement in effect (403 entitlement_required); staff are exempt. */
  entitlement?: string;
  /** Writes honour Idempotency-Key. */
  write?: boolean;
  /** Request headers (lower case) the handler reads from `ctx.headers` (null when absent); documented as header parameters. */
  requestHeaders?: readonly string[];
  /** Other named schemas the description or a field's description refers to (ingest.SellableItemRow): components of the document. */
  mentions?: readonly ZodType[];
}

/**
 * A request and a success body shown in OpenAPI and /docs (a stream's: one event's data). Every routed operation has
 * them, and a test parses them with the operation's schemas, so they cannot drift from the declaration.
 */
export interface Examples<Req extends ZodType | null, Res> {
  request: Req extends ZodType ? z.input<Req> : null;
  response: Res;
}

/** The validated request body a handler receives. */
export type Input<Req extends ZodType | null> = Req extends ZodType ? z.output<Req> : undefined;

/** A JSON operation with its types. */
export interface JsonOperation<Id extends string = string, Req extends ZodType | null = ZodType | null, Res extends ZodType = ZodType, A extends Access = Access, E extends string = string>
  extends Base<Id, Req, A, E> {
  kind: 'json';
  response: Res;
  examples?: Examples<Req, z.input<Res>>;
  /** Extra response headers (e.g. Cache-Control: no-store). */
  headers?: Record<string, string>;
  /**
   * The read models the handler reads its own writes back from (or that must show them when it answers):
   * `ctx.readYourWrites()` waits until they have applied every command the call ran.
   */
  readModels?: readonly ReadModelRef[];
  handle(ctx: RequestContext<A, E>, req: Input<Req>): Promise<z.input<Res>>;
}

/** A server-sent-event operation with its types. */
export interface StreamOperation<Id extends string = string, Req extends ZodType | null = ZodType | null, A extends Access = Access, E extends string = string> extends Base<Id, Req, A, E> {
  kind: 'stream';
  /** Schema of each event's data, for the documentation. */
  response: ZodType;
  /** The SSE `event` names the stream sends, each with what it means (every one's `data` is `response`): a client's `addEventListener` needs them. */
  events: Readonly<Record<string, string>>;
  examples?: Examples<Req, unknown>;
  /** Validates and prepares before headers are sent (errors here are JSON); then yields events until the client leaves. */
  open(ctx: RequestContext<A, E>, req: Input<Req>, lastEventId: string | null): Promise<AsyncIterable<SseMessage>>;
}

/** An operation as the registry and router see it: the defaults erase the types (handlers are methods, so a typed operation is one of these). */
export type Operation = JsonOperation | StreamOperation;

/** Declares a JSON operation. */
export function operation<const Id extends string, Req extends ZodType | null, Res extends ZodType, const A extends Access, E extends string>(
  def: Omit<JsonOperation<Id, Req, Res, A, E>, 'kind'>,
): JsonOperation<Id, Req, Res, A, E> {
  return { ...def, kind: 'json' };
}

/** Declares a server-sent-event operation. */
export function streamOperation<const Id extends string, Req extends ZodType | null, const A extends Access, E extends string>(
  def: Omit<StreamOperation<Id, Req, A, E>, 'kind'>,
): StreamOperation<Id, Req, A, E> {
  return { ...def, kind: 'stream' };
}
