// Reads analytics_events and analytics_daily_counts (written by projections/analytics/events.ts), and their list operations (extensions).
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import { ERASED } from '../../domain/personal.ts';
import { AnalyticsCountsListRequest, AnalyticsCountsListResponse, AnalyticsEventsListRequest, AnalyticsEventsListResponse } from '../../contract/schemas/analytics.ts';
import { analyticsErrors } from '../../domain/analytics/errors.ts';
import { type AnalyticsEventDoc, analyticsEventsProjection } from '../../projections/analytics/events.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { cursorParts, cursorShape, documentPage, keysetPage } from '../pagination.ts';

/** The API body of a stored event. */
export function analyticsEventBody(d: AnalyticsEventDoc) {
  return { id: d.id, name: d.name, properties: d.properties, occurred_at: d.occurred_at, received_at: d.received_at, origin: d.origin, referer: d.referer };
}

const WHO = 'Any signed-in user of an organization; the answer covers that organization only. Includes every event recorded before the request.';

/** analytics.events.list: the organization's events by occurred_at (oldest first). */
export const analyticsEventsList = operation({
  id: 'analytics.events.list',
  examples: {
    request: { name: 'search_performed', limit: 50 },
    response: {
      items: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          name: 'search_performed',
          properties: { query: 'front brake pads', results: 12 },
          occurred_at: '2026-01-15T09:29:58.000Z',
          received_at: '2026-01-15T09:30:00.000Z',
          origin: 'https://app.acme-repairs.example',
          referer: 'https://app.acme-repairs.example/search',
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['analytics'],
  summary: "The organization's analytics events, oldest first.",
  description: `Extension. ${WHO}`,
  request: AnalyticsEventsListRequest,
  response: AnalyticsEventsListResponse,
  error: 'analytics.AnalyticsEventsListError',
  errors: analyticsErrors.list('invalid_cursor', 'projection_lag'),
  access: 'org_user',
  async handle(ctx, req) {
    await caughtUp(ctx.services, [analyticsEventsProjection]);
    const q = ctx.services.knex('analytics_events').where({ organization_id: ctx.auth.organizationId }).select('id', 'created_at', 'doc');
    if (req.name !== undefined) q.andWhere({ name: req.name });
    const res = await documentPage<AnalyticsEventDoc>(q, req);
    return { items: res.docs.map(analyticsEventBody), pagination: res.pagination };
  },
});

/** analytics.counts.list: events per UTC day and name in a period. */
export const analyticsCountsList = operation({
  id: 'analytics.counts.list',
  examples: {
    request: { from: '2026-01-15', to: '2026-01-15' },
    response: { items: [{ day: '2026-01-15', name: 'page_view', count: 184 }, { day: '2026-01-15', name: 'search_performed', count: 37 }], pagination: null },
  },
  surface: 'core',
  tags: ['analytics'],
  summary: 'Analytics events counted per name and UTC day.',
  description: `Extension. Days with no event of a name are left out; ordered by day, then name. ${WHO}`,
  request: AnalyticsCountsListRequest,
  response: AnalyticsCountsListResponse,
  error: 'analytics.AnalyticsCountsListError',
  errors: analyticsErrors.list('invalid_period', 'invalid_cursor', 'projection_lag'),
  access: 'org_user',
  async handle(ctx, req) {
    const days = (Date.parse(req.to) - Date.parse(req.from)) / 86_400_000;
    if (days < 0 || days > 366) throw ctx.errors.error('invalid_period', '`to` must be on or after `from`, at most 366 days later.');
    await caughtUp(ctx.services, [analyticsEventsProjection]);
    const q = ctx.services.knex('analytics_daily_counts')
      .where({ organization_id: ctx.auth.organizationId })
      .andWhere('day', '>=', req.from)
      .andWhere('day', '<=', req.to)
      .select(ctx.services.knex.raw(`to_char(day, 'YYYY-MM-DD') as day`), 'name', 'count');
    if (req.name !== undefined) q.andWhere({ name: req.name });
    const res = await keysetPage<{ day: string; name: string; count: string | number }>(q, { columns: ['day', 'name'], shape: cursorShape(cursorParts.day, cursorParts.eventName), limit: req.limit, cursor: req.cursor, key: (r) => [r.day, r.name] });
    return { items: res.rows.map((r) => ({ day: r.day, name: r.name, count: Number(r.count) })), pagination: res.pagination };
  },
});

/** Read operations of the analytics area. */
export const analyticsQueries = [analyticsEventsList, analyticsCountsList];

/** The distinct referers stored for an organization (its `analytics:<id>` subject's values, which an erasure searches for). */
export async function organizationReferers(knex: Knex, organizationId: string): Promise<string[]> {
  const rows = (await knex('analytics_events').where({ organization_id: organizationId }).whereRaw(`doc->>'referer' is not null and doc->>'referer' <> ?`, [ERASED]).distinct(knex.raw(`doc->>'referer' as referer`))) as { referer: string }[];
  return rows.map((r) => r.referer);
}
