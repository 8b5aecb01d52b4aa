// analytics_events (one row per event) and analytics_daily_counts (events per organization, name and UTC day of occurred_at).
// A batch is written set-based: the events in one insert, the counts summed in memory and added in one upsert.
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { analyticsCodec } from '../../domain/analytics/event.ts';
import { nameId } from '../../ids.ts';
import type { Projection } from '../projection.ts';
import { readRecorded } from '../recorded.ts';
import { customerCodec } from '../../domain/billing/customer.ts';
import { ERASED } from '../../domain/personal.ts';

/** The organizations whose analytics referers a batch's erasures erase (`analytics:<organization id>` among the erased subjects). */
function erasedOrganizations(events: RecordedEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    if (e.type !== 'DataSubjectErased' || !e.streamId.startsWith('customer-')) continue;
    const read = readRecorded(customerCodec, e);
    if (read.type !== 'DataSubjectErased') continue;
    for (const s of read.data.erased) if (s.startsWith('analytics:')) out.add(s.slice('analytics:'.length));
  }
  return [...out];
}

/** A stored analytics event (analytics.AnalyticsEventItem plus its organization). */
export interface AnalyticsEventDoc {
  id: string;
  organization_id: string;
  name: string;
  properties: Record<string, string | number | boolean | null>;
  occurred_at: string;
  received_at: string;
  origin: string | null;
  referer: string | null;
}

/** A stored daily count. */
export interface DailyCountDoc {
  organization_id: string;
  day: string;
  name: string;
  count: number;
}

async function applyBatch(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void> {
  const rows: Record<string, unknown>[] = [];
  const counts = new Map<string, DailyCountDoc>();
  for (const e of events) {
    if (e.type !== 'AnalyticsEventRecorded') continue;
    const { data } = readRecorded(analyticsCodec, e);
    const doc: AnalyticsEventDoc = { id: data.event_id, organization_id: data.organization_id, name: data.name, properties: data.properties, occurred_at: data.occurred_at, received_at: data.received_at, origin: data.origin, referer: data.referer };
    rows.push({ id: doc.id, organization_id: doc.organization_id, name: doc.name, created_at: doc.occurred_at, doc });
    const day = data.occurred_at.slice(0, 10);
    const key = `${data.organization_id}/${day}/${data.name}`;
    const c = counts.get(key) ?? { organization_id: data.organization_id, day, name: data.name, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  // After this batch's inserts: an erasure of the organization's analytics subject (with its customer, issue 32) leaves
  // the stored rows' referers as a rebuild reads them, "[erased]".
  const erase = async () => {
    for (const org of erasedOrganizations(events))
      await trx.raw(`update analytics_events set doc = jsonb_set(doc, '{referer}', to_jsonb(?::text)) where organization_id = ? and doc->>'referer' is not null and doc->>'referer' <> ?`, [ERASED, org, ERASED]);
  };
  if (rows.length === 0) return erase();
  for (let i = 0; i < rows.length; i += 5000)
    await trx.raw(
      `insert into analytics_events (id, organization_id, name, created_at, doc)
       select id, organization_id, name, created_at, doc from jsonb_populate_recordset(null::analytics_events, ?::jsonb) on conflict (id) do nothing`,
      [JSON.stringify(rows.slice(i, i + 5000))],
    );
  const countRows = [...counts.values()].map((c) => ({ id: nameId('analytics-daily-count', `${c.organization_id}/${c.day}/${c.name}`), ...c, doc: c }));
  for (let i = 0; i < countRows.length; i += 5000)
    await trx.raw(
      `insert into analytics_daily_counts (id, organization_id, day, name, count, doc)
       select id, organization_id, day, name, count, doc from jsonb_populate_recordset(null::analytics_daily_counts, ?::jsonb)
       on conflict (id) do update set count = analytics_daily_counts.count + excluded.count,
         doc = jsonb_set(analytics_daily_counts.doc, '{count}', to_jsonb(analytics_daily_counts.count + excluded.count))`,
      [JSON.stringify(countRows.slice(i, i + 5000))],
    );
  await erase();
}

/** Builds analytics_events and analytics_daily_counts from AnalyticsEventRecorded events (and erases referers on DataSubjectErased). */
export const analyticsEventsProjection: Projection = {
  name: 'analytics.events',
  version: 1,
  tables: ['analytics_events', 'analytics_daily_counts'],
  handles: (type) => type === 'AnalyticsEventRecorded' || type === 'DataSubjectErased',
  apply: applyBatch,
};
