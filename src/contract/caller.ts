// What invoke takes and answers, as every surface sees it: who calls (Caller), which operation (Invocable), and the answer.
// The pipeline itself is src/pipeline/invoke.ts; these types live here so the context and the declarations can name them.
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { Auth } from './auth.ts';

/** What the pipeline needs to know of a JSON operation to call it (every JsonOperation is one). */
export interface Invocable {
  readonly id: string;
  readonly kind: 'json';
  readonly surface: 'core' | 'integrations' | 'internal';
  readonly error: string;
  readonly request: ZodType | null;
  readonly response: ZodType;
}

/** Who is calling and in what circumstances: everything an adapter knows that the pipeline does not. */
export interface Caller {
  auth: Auth;
  /** The request (or job) id: logs and event metadata carry it. Default: a new id. */
  requestId?: string;
  /** Ties every event of one user action or job together. Default: the causing event's correlation, else the request id. */
  correlationId?: string;
  /** The event this call reacts to (workers, webhooks): its id becomes the events' causation_id. */
  causation?: { eventId: string; correlationId?: string | null } | null;
  /** Why (kept in the metadata of every event appended). */
  reason?: string;
  /** Writes: the same key and input return the first answer and write once. */
  idempotencyKey?: string;
  /** The idempotency scope of the key; default: the caller. */
  idempotencyScope?: string;
  /** Request headers the operation declares (HTTP adapters), null when absent. */
  headers?: Readonly<Record<string, string | null>>;
  /** Aborted when the caller goes away (made only when a handler asks for it). */
  signal?: () => AbortSignal;
  logger?: Logger;
}

/** What invoke answers: the success body and whether it was replayed from an earlier call with the same key. */
export interface Invoked<T> {
  body: T;
  replayed: boolean;
}
