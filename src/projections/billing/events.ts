// billing_events: the public billing event feed, read by queries/billing/events.ts.
// Only streams listed in FEEDS reach it, and only through their allow-list mappers (feed/*.ts).
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { Projection } from '../projection.ts';
import { streamCategory } from '../recorded.ts';
import { type CategoryFeed, type FeedEntry, type FeedKnowledge, categoryFeed } from './feed/types.ts';
import { customerCodec } from '../../domain/billing/customer.ts';
import { invoiceCodec } from '../../domain/billing/invoice-events.ts';
import { creditNoteRequestCodec } from '../../domain/billing/credit-note-request.ts';
import { accessCodec } from '../../domain/billing/access.ts';
import { customerFeed } from './feed/customer.ts';
import { invoiceFeed } from './feed/invoice.ts';
import { creditNoteRequestFeed } from './feed/credit-note-request.ts';
import { accessFeed } from './feed/access.ts';
import { erasedDoc, feedErasure } from './feed/erasure.ts';

/** The stored feed event: exactly the billing.EventDetailItem body. */
export interface BillingEventDoc extends Omit<FeedEntry, 'staffOnly'> {
  id: string;
  occurred_at: string;
}

/**
 * Stream categories in the feed. Notes (`note-*`) are deliberately absent: they are internal and only
 * owners/admins may read them, while every member of the organization reads the feed. Invoice number
 * counters, identity and everything else are not billing facts a customer acts on.
 */
const FEEDS: Record<string, CategoryFeed> = {
  customer: categoryFeed(customerCodec, customerFeed),
  invoice: categoryFeed(invoiceCodec, invoiceFeed),
  creditnoterequest: categoryFeed(creditNoteRequestCodec, creditNoteRequestFeed),
  access: categoryFeed(accessCodec, accessFeed),
};

/** Maps a recorded event to its feed document, or null when it is not part of the public feed. */
export function toFeedEvent(e: RecordedEvent, known: FeedKnowledge): { doc: BillingEventDoc; staffOnly: boolean } | null {
  const entry = FEEDS[streamCategory(e.streamId)]?.map(e, known);
  if (!entry) return null;
  return { doc: { id: e.id, type: entry.type, occurred_at: e.createdAt.toISOString(), subject: entry.subject, data: entry.data }, staffOnly: entry.staffOnly ?? false };
}

/** What earlier events said about the subjects of a batch: from the batch itself, else from the feed so far. */
async function knowledge(trx: Knex, subjectIds: string[]): Promise<FeedKnowledge & { learn(d: BillingEventDoc): void }> {
  const currencies = new Map<string, string>();
  const finalized = new Set<string>();
  const learn = (d: BillingEventDoc) => {
    const amount = d.data.amount;
    if (amount && typeof amount === 'object' && 'currency' in amount && typeof amount.currency === 'string') currencies.set(d.subject.id, amount.currency);
    if (d.type === 'invoice.finalized') finalized.add(d.subject.id);
  };
  for (let i = 0; i < subjectIds.length; i += 5000) {
    const rows = (await trx('billing_events').whereIn('subject_id', subjectIds.slice(i, i + 5000)).whereIn('type', ['credit_note_request.created', 'invoice.finalized']).select('doc')) as { doc: BillingEventDoc }[];
    rows.forEach((r) => learn(r.doc));
  }
  return { learn, currencyOf: (id) => currencies.get(id) ?? 'XXX', finalized: (id) => finalized.has(id) };
}

export const FEED_TYPES = new Set(Object.values(FEEDS).flatMap((f) => f.types));

/** Builds billing_events from the allow-listed categories. */
export const billingEventsProjection: Projection = {
  name: 'billing.events',
  // 2: rows name the actor and reason (migration 0120).
  version: 2,
  tables: ['billing_events'],
  handles: (type) => FEED_TYPES.has(type),
  async apply(trx, events) {
    const rows = (await feedRows(trx, events)).map((r) => ({ ...r, doc: JSON.stringify(r.doc) }));
    for (let i = 0; i < rows.length; i += 5000) await trx('billing_events').insert(rows.slice(i, i + 5000)).onConflict('id').ignore();
    for (const [id, doc] of await erasedRows(trx, events)) await trx('billing_events').where({ id }).update({ doc: JSON.stringify(doc) });
  },
  // One-statement commit: the feed rows, inserted by one CTE (JSON mapped onto the columns).
  async stage(knex, events) {
    const rows = await feedRows(knex, events);
    const erased = await erasedRows(knex, events);
    return {
      write(add) {
        for (const [id, doc] of erased) add((guard) => `update billing_events set doc = ?::jsonb where ${guard} and id = ?::uuid`, [JSON.stringify(doc), id]);
        if (rows.length === 0) return;
        const list = Object.keys(rows[0] ?? {}).map((c) => `"${c}"`).join(', ');
        add((guard) => `insert into billing_events (${list}) select ${list} from jsonb_populate_recordset(null::billing_events, ?::jsonb) where ${guard} on conflict (id) do nothing`, [JSON.stringify(rows)]);
      },
    };
  },
};

/** The feed rows of a batch (the documents as objects). */
async function feedRows(knex: Knex, events: RecordedEvent[]) {
  const asks = events.filter((e) => e.type === 'CreditNoteRequestUpdated' || e.type === 'InvoiceDetailsUpdated');
  const known = await knowledge(knex, [...new Set(asks.map((e) => e.streamId.slice(e.streamId.indexOf('-') + 1)))]);
  const rows = [];
  for (const e of events) {
    const mapped = toFeedEvent(e, known);
    if (!mapped) continue;
    const { doc, staffOnly } = mapped;
    known.learn(doc);
    rows.push({
      id: doc.id,
      position: e.position,
      organization_id: e.metadata.org_id,
      staff_only: staffOnly,
      type: doc.type,
      occurred_at: doc.occurred_at,
      subject_type: doc.subject.type,
      subject_id: doc.subject.id,
      actor_type: e.metadata.actor?.type ?? 'system',
      actor_id: e.metadata.actor?.id ?? null,
      reason: e.metadata.reason ?? null,
      doc,
    });
  }
  return rows;
}

/** The customer documents of the feed that the batch's erasures rewrite, as they must now read (one per row). */
async function erasedRows(knex: Knex, events: RecordedEvent[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const x of events.map(feedErasure)) {
    if (!x) continue;
    const rows = (await knex('billing_events').where({ subject_id: x.customerId, subject_type: 'customer' }).select('id', 'doc')) as { id: string; doc: unknown }[];
    for (const r of rows) {
      const doc = erasedDoc(out.get(r.id) ?? r.doc, x.paths);
      if (doc !== null) out.set(r.id, doc);
    }
  }
  return out;
}
