// invoke: the one way any surface calls an operation. The adapter (HTTP, the console, a page, a worker, the
// CLI) says only who is calling and how to present the answer; invoke checks access and entitlement,
// validates the input, builds the handler's context with the clock, ids and the event metadata (stamped once:
// actor, request and correlation ids, the causing event, the reason), notes where the handler's commands left the
// log so `ctx.readYourWrites()` waits there for the read models the operation declares, applies idempotency, runs
// the handler and, in test runs, checks the answer against the declaration. Errors are thrown as they are: each adapter maps them
// (HTTP through toErrorResponse).
import type { z } from 'zod';
import { checkAccess } from './access.ts';
import { withIdempotency } from './idempotency.ts';
import { successViolation } from '../contract/check.ts';
import type { JsonOperation, Operation } from '../contract/operation.ts';
import { type Auth, type CommandContext, type RequestContext, type Services, type SystemAuth, callerOrg, hasRole } from '../context.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import type { Caller, Invocable, Invoked } from '../contract/caller.ts';
import type { Registry } from '../contract/registry.ts';

export type { Caller, Invoked } from '../contract/caller.ts';
import { IdSource, newId } from '../ids.ts';
import { validInput } from './input.ts';
import { trackWrites } from './read-models.ts';
import { commonErrors } from '../domain/errors.ts';

/** Whether `organizationId` has entitlement `key` in effect at `now`. */
export type Entitled = (organizationId: string, key: string, now: Date) => Promise<boolean>;

/** How the pipeline runs in this process. */
export interface InvokeOptions {
  /** Check every answer against its declaration (tests): a mismatch throws ContractViolation. */
  checkContracts?: boolean;
  entitled?: Entitled;
}

/** An answer broke its operation's declaration (only checked in test runs). */
export class ContractViolation extends Error {}

/** The actor an authenticated caller appends events as. */
export function actorOf(auth: Auth): EventMetadata['actor'] {
  switch (auth.kind) {
    case 'session':
      return { type: auth.platformRoles.length ? 'staff' : 'user', id: auth.userId };
    case 'integration':
      return { type: 'integration', id: auth.integrationId };
    case 'system':
      return { type: 'system', id: auth.job };
    default:
      return { type: 'system', id: 'anonymous' };
  }
}

/** The metadata every event of this call carries: the one place it is made. */
export function eventMetadata(caller: Caller & { requestId: string }, actor: EventMetadata['actor'] = actorOf(caller.auth)): EventMetadata {
  return {
    org_id: callerOrg(caller.auth),
    actor,
    request_id: caller.requestId,
    correlation_id: caller.correlationId ?? caller.causation?.correlationId ?? caller.requestId,
    causation_id: caller.causation?.eventId ?? null,
    ...(caller.reason ? { reason: caller.reason } : {}),
  };
}

/** Checks access and entitlement, validates `input`, and makes the handler's context (streams open with it too). */
export async function prepare(services: Services, op: Operation, input: unknown, caller: Caller, opts: InvokeOptions = {}): Promise<{ input: unknown; context: (ids: IdSource) => RequestContext; now: Date }> {
  checkAccess(op.access, caller.auth);
  const now = services.clock.now();
  await checkEntitlement(op, caller.auth, now, opts.entitled);
  const valid = validInput(op, input);
  const requestId = caller.requestId ?? newId();
  const metadata = eventMetadata({ ...caller, requestId });
  const logger = caller.logger ?? services.logger.child({ request_id: requestId });
  const headers = caller.headers ?? {};
  const readModels = op.kind === 'json' ? op.readModels : undefined;
  const context = (ids: IdSource): RequestContext => {
    const writes = trackWrites(services);
    return {
      services,
      store: services.store,
      ids,
      now,
      requestId,
      logger,
      auth: caller.auth,
      errors: op.errors,
      get signal() {
        return caller.signal?.() ?? new AbortController().signal;
      },
      headers: Object.fromEntries((op.requestHeaders ?? []).map((h) => [h, headers[h] ?? null])),
      metadata,
      reached: writes.reached,
      async readYourWrites() {
        if (!readModels) throw new Error(`${op.id} reads its writes back but declares no readModels`);
        await writes.wait(readModels);
      },
    };
  };
  return { input: valid, context, now };
}

/** Calls a JSON operation as `caller`: the whole pipeline. `input` is what the caller sent (validated here). */
export async function invoke<Op extends JsonOperation>(services: Services, op: Op, input: unknown, caller: Caller, opts: InvokeOptions = {}): Promise<Invoked<z.output<Op['response']>>> {
  const { input: valid, context, now } = await prepare(services, op, input, caller, opts);
  let out: Invoked<unknown>;
  if (op.write && caller.idempotencyKey !== undefined) {
    const stored = await withIdempotency(services.knex, { scope: caller.idempotencyScope ?? scopeOf(caller.auth), key: caller.idempotencyKey, operation: op.id, body: input ?? null, now }, async (ids) => ({
      status: 200,
      body: await op.handle(context(ids), valid),
    }));
    out = { body: stored.body, replayed: stored.replayed };
  } else {
    out = { body: await op.handle(context(IdSource.random(now)), valid), replayed: false };
  }
  const violation = opts.checkContracts ? successViolation(op, out.body) : null;
  if (violation) throw new ContractViolation(violation);
  // The declaration's response schema made the body's type; a handler answers its input type.
  return out as Invoked<z.output<Op['response']>>;
}

/**
 * Calls `op` only if it is the very object the registry holds (on the core API, or internal): an in-process surface (the console,
 * a page, a worker) can call only declared operations, each with its own access rule (internal ones mostly `system`).
 */
export async function invokeRegistered<Op extends Invocable>(services: Services, registry: Registry, op: Op, input: unknown, caller: Caller, opts: InvokeOptions = {}): Promise<Invoked<z.output<Op['response']>>> {
  const registered = op.surface === 'integrations' ? undefined : registry.get(op.surface, op.id);
  if (registered?.kind !== 'json' || !Object.is(registered, op)) throw new Error(`${op.id} is not a registered operation of the core API or an internal one`);
  // `registered` is `op` itself, so its answer has `op`'s response type.
  return (await invoke(services, registered, input, caller, opts)) as Invoked<z.output<Op['response']>>;
}

/** The idempotency scope of a caller: keys of different callers never meet. */
export function scopeOf(auth: Auth): string {
  switch (auth.kind) {
    case 'session':
      return `user:${auth.userId}:${auth.organizationId}`;
    case 'integration':
      return `integration:${auth.integrationId}`;
    case 'system':
      return `system:${auth.job}`;
    default:
      return 'anonymous';
  }
}

// A paid feature needs its entitlement in effect for the caller's organization; staff are exempt.
async function checkEntitlement(op: Operation, auth: Auth, now: Date, entitled: Entitled | undefined): Promise<void> {
  if (!op.entitlement || !entitled || auth.kind === 'anonymous' || auth.kind === 'system' || hasRole(auth, 'billing_staff')) return;
  if (!(await entitled(auth.organizationId, op.entitlement, now)))
    throw commonErrors.error('entitlement_required', `This operation needs the ${op.entitlement} entitlement, which your organization does not have in effect.`);
}

/**
 * The command context of a system caller that calls command functions directly instead of an operation: only test fixtures
 * (test/support/system.ts) do; every surface of the service invokes operations. Its metadata is made by eventMetadata, as
 * invoke's: the job as actor, a request id that is also the correlation id, the reason.
 */
export function systemCommandContext<S extends Pick<Services, 'store' | 'clock' | 'knex'>>(services: S, caller: Caller & { auth: SystemAuth }): CommandContext & { knex: S['knex'] } {
  const now = services.clock.now();
  return { knex: services.knex, store: services.store, ids: IdSource.random(now), now, metadata: eventMetadata({ ...caller, requestId: caller.requestId ?? newId() }) };
}
