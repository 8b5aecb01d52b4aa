// analytics.events.insert: logs one event, appended with whatever other events arrive meanwhile (group commit).
import { operation } from '../../contract/operation.ts';
import { AnalyticsEventsInsertRequest, AnalyticsEventsInsertResponse } from '../../contract/schemas/analytics.ts';
import { analyticsErrors } from '../../domain/analytics/errors.ts';
import { recorderFor } from './recorder.ts';

/** analytics.events.insert. */
export const analyticsEventsInsert = operation({
  id: 'analytics.events.insert',
  examples: {
    request: { name: 'search_performed', properties: { query: 'front brake pads', results: 12 }, occurred_at: '2026-01-15T09:29:58.000Z' },
    response: {
      id: '019387ea-5dfc-7b8e-884d-848979496e70',
      name: 'search_performed',
      properties: { query: 'front brake pads', results: 12 },
      occurred_at: '2026-01-15T09:29:58.000Z',
      received_at: '2026-01-15T09:30:00.000Z',
      origin: 'https://app.acme-repairs.example',
      referer: 'https://app.acme-repairs.example/search',
    },
  },
  surface: 'core',
  tags: ['analytics'],
  summary: 'Logs one analytics event.',
  description:
    'Records the event with the request\'s `origin` and `referer` headers as given (null when absent). Any signed-in user of an organization may log events for it. The answer comes once the event is durably recorded; analytics.counts.list and analytics.events.list include it from their next call on.',
  request: AnalyticsEventsInsertRequest,
  response: AnalyticsEventsInsertResponse,
  error: 'analytics.AnalyticsEventsInsertError',
  errors: analyticsErrors.list('occurred_at_out_of_range'),
  access: 'org_user',
  write: true,
  requestHeaders: ['origin', 'referer'],
  async handle(ctx, req) {
    const id = ctx.ids.next();
    const data = {
      event_id: id,
      organization_id: ctx.auth.organizationId,
      name: req.name,
      properties: req.properties,
      occurred_at: req.occurred_at ?? null,
      origin: ctx.headers.origin ?? null,
      referer: ctx.headers.referer ?? null,
    };
    const now = ctx.now.toISOString();
    const decided = { type: 'RecordAnalyticsEvent' as const, data: { ...data, now } };
    await recorderFor(ctx.store).record(id, decided, ctx.metadata);
    return { id, name: req.name, properties: req.properties, occurred_at: new Date(req.occurred_at ?? now).toISOString(), received_at: now, origin: data.origin, referer: data.referer };
  },
});

/** Write operations of the analytics area. */
export const analyticsCommands = [analyticsEventsInsert];
