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
      status: 'degraded',
      projections: [{ name: 'billing.invoices', state: 'running', position: 'pg1:00000000000000004711:00000000000000000000', lag_seconds: 0.2, failure: null }],
      skips: [
        {
          projection: 'billing.invoices',
          event_id: '019330c2-f3bb-7f6d-84a5-5f8ae6e46141',
          stream_id: 'invoice-019315d2-5c20-7d9b-8d8a-33f698daf185',
          position: 'pg1:00000000000000004711:00000000000000000000',
          type: 'InvoiceLinesReplaced',
          reason: 'Agreed with the customer by phone',
          actor: 'dana@billing.example',
          skipped_at: '2026-01-15T09:30:00.000Z',
        },
      ],
      unreadable_streams: [
        {
          stream_id: 'customer-0193a7a1-3f4c-7cb7-8452-4e44dfdad329',
          event_id: '0193c1a7-6e02-7d4b-8f15-2c9a7b3e5d81',
          revision: 1,
          type: 'CustomerUpdated',
          error: 'changes.email: Invalid email address',
          first_seen_at: '2026-01-15T09:30:00.000Z',
          last_seen_at: '2026-01-15T09:31:00.000Z',
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
