// platform.projections.retry and platform.projections.skip: an operator's repair of a read model that stopped
// at an event, without SQL. Both clear the stored failure; the runner that stopped resumes within a second,
// in whichever process it runs. The same functions serve the CLI (`core-server projections retry|skip`).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { ProjectionRetryRequest, ProjectionSkipRequest, ProjectionStatusSchema } from '../../contract/schemas/platform.ts';
import type { RequestContext } from '../../context.ts';
import { platformErrors } from '../../domain/platform/errors.ts';
import { clearFailure, recordSkip, storedFailures } from '../../projections/engine/health.ts';

// A name that is no read model is a 404 listing the ones there are.
function mustKnow(known: readonly string[], name: string): void {
  if (!known.includes(name)) throw platformErrors.error('projection_not_found', `No read model ${name}; known: ${known.join(', ')}.`);
}

/** Clears the failure of `name` so its runner applies the event again (after a fix of the code or the data). */
export async function retryProjection(knex: Knex, known: readonly string[], name: string): Promise<void> {
  mustKnow(known, name);
  if (!(await clearFailure(knex, name))) throw platformErrors.error('projection_not_failed', `${name} is not failed: there is nothing to retry.`);
}

/** Records that `eventId`, the event `name` failed at, is left out of it (who, when, why), and lets it go on. */
export async function skipProjectionEvent(knex: Knex, known: readonly string[], s: { name: string; eventId: string; reason: string; actor: string; now: Date }): Promise<void> {
  mustKnow(known, s.name);
  const failure = (await storedFailures(knex)).get(s.name);
  if (!failure) throw platformErrors.error('projection_not_failed', `${s.name} is not failed: only the event it fails at can be skipped.`);
  if (failure.event_id !== s.eventId) throw platformErrors.error('event_not_failing', `${s.name} failed at event ${failure.event_id}, not ${s.eventId}: only that event can be skipped.`);
  await recordSkip(knex, { projection: s.name, event_id: failure.event_id, stream_id: failure.stream_id, position: failure.position, type: failure.type, reason: s.reason, actor: s.actor, skipped_at: s.now.toISOString() });
}

// The projection's status once its runner (when it runs in this process) has picked the change up.
async function statusAfter(ctx: RequestContext, name: string) {
  await ctx.services.runner.resume?.();
  const status = (await ctx.services.runner.statuses()).find((st) => st.name === name);
  if (!status) throw platformErrors.error('projection_not_found', `No read model ${name}.`);
  return status;
}

const known = (ctx: RequestContext) => ctx.services.runner.names();

/** platform.projections.retry */
export const projectionsRetry = operation({
  id: 'platform.projections.retry',
  examples: {
    request: { name: 'billing.invoices' },
    response: { name: 'billing.invoices', state: 'running', position: 'pg1:00000000000000004711:00000000000000000000', lag_seconds: 0.2, failure: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Applies again the event a failed read model stopped at (after its code or data was fixed).',
  description: 'Clears the failure; the read model resumes from the event it stopped at within a second, and fails again (and says so) if the event still cannot be applied. Platform staff. Extension operation.',
  request: ProjectionRetryRequest,
  response: ProjectionStatusSchema,
  error: 'platform.ProjectionRetryError',
  errors: platformErrors.list('projection_not_found', 'projection_not_failed'),
  access: 'platform_staff',
  write: true,
  async handle(ctx, req) {
    await retryProjection(ctx.services.knex, known(ctx), req.name);
    ctx.logger.warn({ projection: req.name, actor: ctx.metadata.actor }, 'projection retry requested');
    return statusAfter(ctx, req.name);
  },
});

/** platform.projections.skip */
export const projectionsSkip = operation({
  id: 'platform.projections.skip',
  examples: {
    request: { name: 'billing.invoices', event_id: '019330c2-f3bb-7f6d-84a5-5f8ae6e46141', reason: 'Agreed with the customer by phone' },
    response: { name: 'billing.invoices', state: 'running', position: 'pg1:00000000000000004711:00000000000000000000', lag_seconds: 0.2, failure: null },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Leaves the event a failed read model stopped at out of it, with a reason, and lets it go on.',
  description: 'Only the event it failed at can be skipped. The skip is recorded with who, when and why, shown in billing.history.get on the event\'s stream and on the health page, and kept by rebuilds. Platform staff. Extension operation.',
  request: ProjectionSkipRequest,
  response: ProjectionStatusSchema,
  error: 'platform.ProjectionSkipError',
  errors: platformErrors.list('projection_not_found', 'projection_not_failed', 'event_not_failing'),
  access: 'platform_staff',
  write: true,
  async handle(ctx, req) {
    await skipProjectionEvent(ctx.services.knex, known(ctx), { name: req.name, eventId: req.event_id, reason: req.reason, actor: `${ctx.metadata.actor.type}:${ctx.metadata.actor.id}`, now: ctx.now });
    ctx.logger.warn({ projection: req.name, event_id: req.event_id, reason: req.reason, actor: ctx.metadata.actor }, 'projection event skipped');
    return statusAfter(ctx, req.name);
  },
});

/** Operator operations on the read models. */
export const platformProjectionCommands = [projectionsRetry, projectionsSkip];
