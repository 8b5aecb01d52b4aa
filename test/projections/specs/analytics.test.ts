// analytics.events, given logged events: each event stored with its headers, counts summed per organization, name and UTC day.
import { backends } from '../../support/db.ts';
import type { AnalyticsEvent } from '../../../src/domain/analytics/event.ts';
import { analyticsEventsProjection } from '../../../src/projections/analytics/events.ts';
import { nameId } from '../../../src/ids.ts';
import { on, projectionSpec } from '../spec.ts';

const ORG = '0190c6a2-0000-7000-8000-0000000000f1';
const ORG2 = '0190c6a2-0000-7000-8000-0000000000f2';
const event = (n: number, name: string, occurredAt: string, org = ORG, origin: string | null = null): AnalyticsEvent => ({
  type: 'AnalyticsEventRecorded',
  data: { event_id: `0190c6a2-0000-7000-8000-00000000e00${n}`, organization_id: org, name, properties: { n }, occurred_at: occurredAt, received_at: '2026-01-15T09:00:00.000Z', origin, referer: origin && `${origin}/page` },
});
const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

for (const backend of backends()) {
  describe(`analytics projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('stores each event and counts them per organization, name and UTC day of occurred_at', async () => {
      const events = [
        event(1, 'search', '2026-01-15T08:00:00.000Z', ORG, 'https://a.example'),
        event(2, 'search', '2026-01-15T23:59:59.000Z'),
        event(3, 'search', '2026-01-14T12:00:00.000Z'),
        event(4, 'view', '2026-01-15T08:00:00.000Z'),
        event(5, 'search', '2026-01-15T08:00:00.000Z', ORG2),
      ];
      const count = (org: string, day: string, name: string, n: number) => ({ id: nameId('analytics-daily-count', `${org}/${day}/${name}`), doc: { organization_id: org, day, name, count: n } });
      await spec.given(analyticsEventsProjection, [...on<AnalyticsEvent>('analytics-2026-01-15', events.slice(0, 3)), ...on<AnalyticsEvent>('analytics-2026-01-15', events.slice(3))]).then({
        analytics_events: byId(events.map((e) => ({ id: e.data.event_id, ...e.data }))).map(({ event_id: _e, ...rest }) => rest),
        analytics_daily_counts: byId([count(ORG, '2026-01-15', 'search', 2), count(ORG, '2026-01-14', 'search', 1), count(ORG, '2026-01-15', 'view', 1), count(ORG2, '2026-01-15', 'search', 1)]).map((r) => r.doc),
      });
    });
  });
}
