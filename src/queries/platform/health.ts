// platform.health.get: what an operator must act on in the read models, in one answer (the console's health page).
import { operation } from '../../contract/operation.ts';
import { HealthResponse } from '../../contract/schemas/platform.ts';
import { platformErrors } from '../../domain/platform/errors.ts';
import { listSkips } from '../../projections/engine/health.ts';
import { notReady } from '../../read-model-status.ts';
import { listUnreadableStreams } from '../../unreadable-streams.ts';

/** platform.health.get */
export const healthGet = operation({
  id: 'platform.health.get',
  examples: {
    request: null,
    response: {
      status: 'ok',
      projections: [{ name: 'Acme Repairs Ltd', state: 'running', position: 'position', lag_seconds: 1, failure: null }],
      skips: [
        {
          projection: 'projection',
          event_id: '019330c2-f3bb-7f6d-84a5-5f8ae6e46141',
          stream_id: '01930dc9-d7e0-7ff2-83c0-8a096f835f2d',
          position: 'position',
          type: 'type',
          reason: 'Agreed with the customer by phone',
          actor: 'dana@billing.example',
          skipped_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      unreadable_streams: [
        {
          stream_id: '01930dc9-d7e0-7ff2-83c0-8a096f835f2d',
          event_id: '019330c2-f3bb-7f6d-84a5-5f8ae6e46141',
          revision: 1,
          type: 'type',
          error: 'error',
          first_seen_at: '2026-01-15T09:30:00.000Z',
          last_seen_at: '2026-01-15T09:30:00.000Z',
        },
      ],
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'The state, lag and failure of every read model, the events skipped by operators, and the streams that cannot be read.',
  description: 'A failed read model is listed with the event it stopped at; repair it with platform.projections.retry or platform.projections.skip (or `core-server projections`). Billing and platform staff. Extension operation.',
  request: null,
  response: HealthResponse,
  error: 'platform.HealthGetError',
  errors: platformErrors.list(),
  access: 'billing_staff',
  async handle(ctx) {
    const knex = ctx.services.knex;
    const [projections, skips, unreadable] = await Promise.all([ctx.services.runner.statuses(), listSkips(knex), listUnreadableStreams(knex)]);
    return { status: notReady(projections).length || unreadable.length ? ('degraded' as const) : ('ok' as const), projections, skips, unreadable_streams: unreadable };
  },
});

/** Read operations of the platform's health. */
export const platformHealthQueries = [healthGet];
