// One declaration per operation: id, schemas, error type, access and handler. Router and OpenAPI come from it.
import type { ZodType, z } from 'zod';
import type { RequestContext } from './context.ts';

/** Who may call an operation. */
export type Access =
  | 'public'
  | 'org_user'
  | 'org_admin'
  | 'billing_staff'
  | 'platform_staff'
  | { integration: string[] | 'any' };

/** An event written to a server-sent-event stream. */
export interface SseMessage {
  event: string;
  data: unknown;
  id?: string;
}

interface Base<Req extends ZodType | null> {
  id: string;
  surface: 'core' | 'integrations';
  tags: string[];
  summary: string;
  description?: string;
  /** null: the operation takes no body. */
  request: Req;
  /** Error type name in the spec, e.g. `billing.InvoiceGetError`. */
  error: string;
  /** The codes this operation's errors may carry (documented in OpenAPI). */
  errors: string[];
  access: Access;
  /** Writes honour Idempotency-Key. */
  write?: boolean;
}

type Input<Req extends ZodType | null> = Req extends ZodType ? z.output<Req> : undefined;

/** How a JSON operation is written: typed request and response. */
export interface JsonOperationDef<Req extends ZodType | null, Res extends ZodType> extends Base<Req> {
  response: Res;
  /** Extra response headers (e.g. Cache-Control: no-store). */
  headers?: Record<string, string>;
  handle(ctx: RequestContext, req: Input<Req>): Promise<z.input<Res>>;
}

/** How a stream operation is written. */
export interface StreamOperationDef<Req extends ZodType | null> extends Base<Req> {
  /** Schema of each event's data, for the documentation. */
  response: ZodType;
  /** Validates and prepares before headers are sent (errors here are JSON); then yields events until the client leaves. */
  open(ctx: RequestContext, req: Input<Req>, lastEventId: string | null): Promise<AsyncIterable<SseMessage>>;
}

/** An operation as the router sees it (request type erased after validation). */
export type Operation =
  | (Base<ZodType | null> & { kind: 'json'; response: ZodType; headers?: Record<string, string>; handle(ctx: RequestContext, req: unknown): Promise<unknown> })
  | (Base<ZodType | null> & { kind: 'stream'; response: ZodType; open(ctx: RequestContext, req: unknown, lastEventId: string | null): Promise<AsyncIterable<SseMessage>> });

/** Declares a JSON operation. */
export function operation<Req extends ZodType | null, Res extends ZodType>(def: JsonOperationDef<Req, Res>): Operation {
  // The router validates the body with def.request before calling, so the narrowing below holds.
  return { ...def, kind: 'json', handle: (ctx, req) => def.handle(ctx, req as Input<Req>) };
}

/** Declares a server-sent-event operation. */
export function streamOperation<Req extends ZodType | null>(def: StreamOperationDef<Req>): Operation {
  return { ...def, kind: 'stream', open: (ctx, req, last) => def.open(ctx, req as Input<Req>, last) };
}
